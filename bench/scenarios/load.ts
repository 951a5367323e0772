// The load phases: wrk (or autocannon) against the floor and Conduit, plain and streaming, at each
// connection count, with the CPU each process used, Conduit's memory and its log lines per phase.
import { fakeStats, scanLogs } from '../environment';
import type { LoadResult } from '../loadgen';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, machineBusyTicks, postgresTicks, treeCpuTicks, treePeakRssBytes, treeRssBytes } from '../processes';
import { phaseLine } from '../report';
import { log, phaseSeconds, requestBody, settings, type ConduitState, type CpuShare, type Mode, type Row, type Server } from '../settings';
import type { BenchContext } from './context';

export interface PhaseOutcome {
  result: LoadResult;
  cpu: CpuShare;
  state: ConduitState | undefined;
}

/** One load phase; `load` changes the model asked for and paces the requests (the routing phases). */
export type PhaseRunner = (
  target: Server,
  mode: Mode,
  connections: number,
  seconds: number,
  tag: string,
  load?: { model?: string; delayMs?: number },
) => Promise<PhaseOutcome>;

/** Runs one phase of load against a server and measures it. */
export function phaseRunner(ctx: BenchContext): PhaseRunner {
  const snapshot = (target: Server) => ({
    at: performance.now(),
    // The whole tree: with WORKERS > 1 the server's CPU is its workers'.
    proxy: treeCpuTicks(ctx.pids[target]),
    upstream: cpuTicks(ctx.fakePid),
    postgres: postgresTicks(),
    machine: machineBusyTicks(),
  });
  return async (target: Server, mode: Mode, connections: number, seconds: number, tag: string, load: { model?: string; delayMs?: number } = {}) => {
    const from = new Date();
    const logAtStart = scanLogs(ctx.conduitLogs, []).sizes;
    const measured = tag === 'measure' && target === 'conduit';
    if (measured) ctx.peaks.startPeak();
    const before = snapshot(target);
    const result = await ctx.generator.run(
      {
        url: ctx.urls[target],
        body: requestBody(mode, load.model),
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${ctx.apiKey}` },
        connections,
        durationSeconds: seconds,
        workDir: ctx.workDir,
        tag: `${target}-${mode}-${connections}-${tag}`,
        slowMs: settings.slowMs,
        ...(load.delayMs ? { delayMs: load.delayMs } : {}),
      },
      (p) => ctx.loadProcs.add(p),
    );
    const after = snapshot(target);
    const phasePeak = measured ? treePeakRssBytes(ctx.conduit.pid) : null;
    if (target !== 'floor') {
      ctx.tally.conduit2xx += result.requests - result.non2xx;
      ctx.tally.conduitNon2xx += result.non2xx;
      ctx.tally.conduitSocketErrors += result.socketErrors;
      ctx.tally.conduitConnections += connections;
    }
    const perRequestUs = (ticks: number) => (ticks / CLOCK_TICKS_PER_SECOND / Math.max(1, result.requests)) * 1e6;
    const proxy = after.proxy - before.proxy;
    const upstream = after.upstream - before.upstream;
    const pg = after.postgres - before.postgres;
    const machineTicks = after.machine - before.machine;
    const generatorTicks = result.generatorCpuS * CLOCK_TICKS_PER_SECOND;
    const otherTicks = Math.max(0, machineTicks - proxy - upstream - pg - generatorTicks);
    const wallS = (after.at - before.at) / 1000;
    const cpu: CpuShare = {
      proxyUs: perRequestUs(proxy),
      upstreamUs: perRequestUs(upstream),
      postgresUs: perRequestUs(pg),
      generatorUs: perRequestUs(generatorTicks),
      otherUs: perRequestUs(otherTicks),
      otherCores: otherTicks / CLOCK_TICKS_PER_SECOND / wallS,
      busyCores: machineTicks / CLOCK_TICKS_PER_SECOND / wallS,
    };
    let state: ConduitState | undefined;
    if (target === 'conduit') {
      const [forwarded, [counted]] = await Promise.all([fakeStats(ctx.fakeUrl), ctx.database.sql<{ n: string }[]>`select count(*)::text as n from usage_records`]);
      const logged = scanLogs(ctx.conduitLogs, logAtStart);
      // Rows of requests cut off before reaching the upstream can make the difference slightly negative.
      state = {
        rssBytes: treeRssBytes(ctx.conduit.pid),
        unwrittenRows: Math.max(0, forwarded.other - Number(counted!.n)),
        log: logged.counts,
        // Rows of requests cut off at the end settle a moment later; the next phase starts after 250 ms.
        window: { from, to: new Date(Date.now() + 200) },
        peakRssBytes: phasePeak,
      };
    }
    // Requests the generator cut off at its end finish on the server before the next phase starts.
    await Bun.sleep(250);
    return { result, cpu, state };
  };
}

/** Every mode at every connection count against every target: a warm-up, then the measured phase. */
export async function runLoadPhases(run: PhaseRunner): Promise<Row[]> {
  const rows: Row[] = [];
  if (settings.onlyCompare) return rows;
  for (const mode of settings.modes) {
    for (const connections of [...settings.low, ...settings.high]) {
      for (const target of settings.targets) {
        const seconds = phaseSeconds(connections);
        if (settings.warmupS > 0) await run(target, mode, connections, settings.warmupS, 'warmup');
        const { result, cpu, state } = await run(target, mode, connections, seconds, 'measure');
        rows.push({ mode, connections, target, seconds, result, cpu, ...(state ? { conduit: state } : {}) });
        log(phaseLine(target, mode, connections, result, cpu, state));
      }
    }
  }
  return rows;
}
