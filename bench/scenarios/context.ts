// What every scenario of a run shares: the servers started, the bench's user and key, the load generator,
// and the running totals the checks at the end compare with the database.
import type { BenchDatabase } from '../database';
import type { LoadGenerator } from '../loadgen';
import { resetTreePeakRss, treePeakRssBytes, type Child } from '../processes';
import type { Server } from '../settings';

/** What Conduit answered over the whole run, to be found again in its usage rows. */
export interface Tally {
  conduit2xx: number;
  conduitNon2xx: number;
  conduitSocketErrors: number;
  /** Connections of Conduit's phases: at most that many requests may be cut off at the phases' ends. */
  conduitConnections: number;
}

/**
 * Conduit's peak RSS over the whole run: VmHWM is reset before each measured phase, so the peak so far is
 * taken before every reset and at the end. With WORKERS > 1, the sum of the workers' (and supervisor's) peaks.
 */
export function peakTracker(pid: number) {
  const peaks = {
    /** Over the whole run so far. */
    conduitPeakRss: treePeakRssBytes(pid),
    /** False when VmHWM cannot be reset (then peaks are since start). */
    peakResets: true,
    notePeak() {
      const now = treePeakRssBytes(pid);
      if (now !== null && (peaks.conduitPeakRss === null || now > peaks.conduitPeakRss)) peaks.conduitPeakRss = now;
    },
    /** Starts a phase's own peak. */
    startPeak() {
      peaks.notePeak();
      if (!resetTreePeakRss(pid)) peaks.peakResets = false;
    },
  };
  return peaks;
}
export type PeakTracker = ReturnType<typeof peakTracker>;

export interface StartedConduit {
  child: Child;
  url: string;
  logs: string[];
}

export interface BenchContext {
  workDir: string;
  /** bench/.tmp: where variants are built. */
  tmp: string;
  baseEnv: Record<string, string>;
  /** The bun that runs the bench, for the processes it starts. */
  bun: string;
  generator: LoadGenerator;
  database: BenchDatabase;
  fakeUrl: string;
  fakePid: number;
  conduit: Child;
  conduitLogs: string[];
  /** Where Conduit runs from (working tree, BENCH_REF export or BENCH_CONDUIT_DIR). */
  conduitDir: string;
  apiKey: string;
  urls: Record<Server, string>;
  pids: Record<Server, number>;
  /** Load generator processes, killed if the run is stopped. */
  loadProcs: Set<Bun.Subprocess>;
  tally: Tally;
  peaks: PeakTracker;
  /** Conduit (or the BENCH_COMPARE variant) from dir, against the bench database, with its own data directory and logs. */
  startConduit: (dir: string, name: string) => Promise<StartedConduit>;
}
