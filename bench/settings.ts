// The bench's settings (BENCH_* variables, checked), its targets and the shapes of what its phases measure:
// shared by the driver (run.ts), the scenarios (scenarios/) and the report (report.ts).
import { resolve } from 'node:path';
import type { LoadResult } from './loadgen';
import { routingSeconds } from './routing';
import type { SlowStreamSummary } from './slow-streams';

export const REPO = resolve(import.meta.dir, '..');
const env = process.env;

const list = (value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `NAME=value,NAME=value` (a value may hold `=`) as an object; unset or empty: {}. */
export const pairs = (value: string | undefined): Record<string, string> =>
  Object.fromEntries(list(value, '').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));

/**
 * BENCH_ONLY_COMPARE=1 (`npm run bench:compare`): only the BENCH_COMPARE phases run: no floor, latency, tail,
 * slow-stream or routing phases, and the targets that need them are not judged (not listed at all).
 */
const onlyCompare = env.BENCH_ONLY_COMPARE === '1';

export const settings = {
  onlyCompare,
  adminUrl: env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  durationS: Number(env.BENCH_DURATION ?? 6),
  warmupS: Number(env.BENCH_WARMUP ?? 2),
  low: onlyCompare ? [] : list(env.BENCH_LOW, '1,4').map(Number),
  high: list(env.BENCH_HIGH, '64').map(Number),
  /** Connection counts whose measured phases last longDurationS instead (the tail: "no request over 50 ms in a 30 s run"). */
  long: onlyCompare ? [] : list(env.BENCH_LONG, '4').map(Number),
  longDurationS: Number(env.BENCH_LONG_DURATION ?? 30),
  /** Concurrent slow streams against the floor and Conduit (TTFT compared), each count once. */
  slowStreams: onlyCompare ? [] : [...new Set(list(env.BENCH_SLOW_STREAMS, '512').map(Number))],
  /** Concurrent slow streams against Conduit alone (none broken, each billed); null: skipped. */
  slowStreamsMax: onlyCompare || (env.BENCH_SLOW_STREAMS_MAX ?? '4096').trim() === '' ? null : Number(env.BENCH_SLOW_STREAMS_MAX ?? 4096),
  /** A variant of Conduit (bench/variants.sh changes, or a directory) measured against it at the first BENCH_HIGH; null: skipped. */
  compare: (env.BENCH_COMPARE ?? 'nometrics').trim() || null,
  compareModes: list(env.BENCH_COMPARE_MODES, 'plain') as Mode[],
  compareRounds: Math.max(1, Math.floor(Number(env.BENCH_COMPARE_ROUNDS ?? 2))),
  /** What the compare phases measure, in the report (default: the metrics cost, or the cost of what the change list removes). */
  compareLabel: env.BENCH_COMPARE_LABEL?.trim() || null,
  modes: list(env.BENCH_MODES, 'plain,stream') as Mode[],
  targets: list(env.BENCH_TARGETS, 'floor,conduit') as Target[],
  /** Extra flags for Conduit's bun, e.g. `--cpu-prof-md --cpu-prof-dir=bench/.tmp/prof`. */
  conduitBunArgs: list(env.BENCH_CONDUIT_BUN_ARGS?.replace(/\s+/g, ','), ''),
  /** Extra Conduit configuration, `NAME=value,NAME=value` (e.g. USAGE_FLUSH_MS=200). */
  conduitEnv: pairs(env.BENCH_CONDUIT_ENV),
  /** PostgreSQL settings for the bench database only, `name=value,name=value` (e.g. synchronous_commit=off). */
  databaseSettings: pairs(env.BENCH_DB_SETTINGS),
  /** Unset: enough for the phases asked for (at least 180 s); see deadlineSeconds(). */
  deadlineS: env.BENCH_DEADLINE ? Number(env.BENCH_DEADLINE) : null,
  jsonOut: env.BENCH_JSON,
  /** Benchmark a committed version (e.g. HEAD) exported to bench/.tmp instead of the working tree. */
  ref: env.BENCH_REF,
  /** Or run Conduit from this directory (holding src/ and drizzle/; node_modules must resolve from it). */
  conduitDir: env.BENCH_CONDUIT_DIR,
  strict: env.BENCH_STRICT === '1',
  /** Rows put into model_prices before the load (one of them, `acme/*`, prices the bench's model). */
  priceRows: Math.max(0, Math.floor(Number(env.BENCH_PRICE_ROWS ?? 0))),
  /** The bench key's spend limit in currency units, reset daily; unset: a key without a limit. */
  keyLimit: env.BENCH_KEY_LIMIT ? Number(env.BENCH_KEY_LIMIT) : null,
  /** Requests slower than this (ms) are counted per phase. */
  slowMs: Number(env.BENCH_SLOW_MS ?? 50),
  /** Where PostgreSQL writes its log (its `deadlock detected` lines are counted when readable). */
  pgLogDir: env.BENCH_PG_LOG_DIR ?? '/var/log/postgresql',
};

if (!Number.isInteger(Number(env.BENCH_PRICE_ROWS ?? 0)) || Number(env.BENCH_PRICE_ROWS ?? 0) < 0) {
  throw new Error(`BENCH_PRICE_ROWS=${env.BENCH_PRICE_ROWS}: a whole number of rows, 0 or more`);
}
if (settings.keyLimit !== null && !(settings.keyLimit > 0)) {
  throw new Error(`BENCH_KEY_LIMIT=${env.BENCH_KEY_LIMIT}: a spend limit in currency units, above 0`);
}
if (!(settings.slowMs > 0)) throw new Error(`BENCH_SLOW_MS=${env.BENCH_SLOW_MS}: milliseconds, above 0`);
for (const n of [...settings.slowStreams, settings.slowStreamsMax ?? 1]) {
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_SLOW_STREAMS / BENCH_SLOW_STREAMS_MAX: whole numbers above 0, not ${n}`);
}
if (onlyCompare && !settings.compare) throw new Error('BENCH_ONLY_COMPARE=1 needs BENCH_COMPARE (a change list or a directory)');
if (onlyCompare && !settings.targets.includes('conduit')) throw new Error('BENCH_ONLY_COMPARE=1 needs conduit among BENCH_TARGETS');
if (!(settings.longDurationS > 0)) throw new Error(`BENCH_LONG_DURATION=${env.BENCH_LONG_DURATION}: seconds, above 0`);

/** Measured seconds of a phase at this many connections. */
export const phaseSeconds = (connections: number) => (settings.long.includes(connections) ? settings.longDurationS : settings.durationS);

/** The fetch limit of the floor: what Conduit asks for its own upstream requests (UPSTREAM_MAX_CONNECTIONS, default 4096). */
export const FETCH_LIMIT = Number(settings.conduitEnv.UPSTREAM_MAX_CONNECTIONS ?? 4096);
/**
 * Every bench connection comes from 127.0.0.1, where real streams come from many addresses: Conduit's limit
 * of connections per client address (default 1024) is raised above the most slow streams at once, unless
 * BENCH_CONDUIT_ENV sets it. The guard still counts every request.
 */
export const PER_ADDRESS_LIMIT =
  settings.conduitEnv.MAX_CONNECTIONS_PER_ADDRESS ?? String(Math.max(1024, Math.max(...settings.slowStreams, settings.slowStreamsMax ?? 0) + 1024));
/** Open files asked for each server process: a socket per stream (Conduit two), with room. */
export const OPEN_FILES = Math.max(65_536, 3 * Math.max(...settings.slowStreams, settings.slowStreamsMax ?? 0) + 4096);

/** The hard deadline: BENCH_DEADLINE, or the phases' own length with room for start, drain and stop. */
export function deadlineSeconds(): number {
  if (settings.deadlineS !== null) return settings.deadlineS;
  let seconds = 0;
  for (const c of settings.onlyCompare ? [] : [...settings.low, ...settings.high]) {
    seconds += settings.modes.length * settings.targets.length * (settings.warmupS + phaseSeconds(c) + 1.5);
  }
  // Slow streams: about a second each phase when all goes well; a stuck one waits for the client's timeout.
  const slowPhases = settings.slowStreams.length * settings.targets.length + (settings.slowStreamsMax ? 1 : 0);
  seconds += slowPhases * 10;
  if (settings.compare)
    seconds += 40 + settings.compareModes.length * ((settings.onlyCompare ? 2 : 1) * settings.warmupS + 2 * settings.compareRounds * (settings.durationS + 1));
  if (!settings.onlyCompare) seconds += routingSeconds(settings.durationS, settings.warmupS);
  return Math.max(180, Math.ceil(seconds * 1.3 + 60));
}

export type Mode = 'plain' | 'stream';
export type Target = 'floor' | 'conduit';
/** Also the BENCH_COMPARE copy of Conduit, in its own phases. */
export type Server = Target | 'variant';

/** Other work above this (cores) during a phase means the machine was shared and the phase is suspect. */
export const OTHER_WORK_WARN_CORES = 0.15;

/** Issue 13, point 2 (and point 4's metrics cost). */
export const TARGETS = {
  /** Conduit's req/s over the floor's at saturating concurrency (BENCH_HIGH), per mode. */
  rpsRatio: { plain: 0.6, stream: 0.5 } as Record<Mode, number>,
  /** Added latency is judged at these connection counts; other BENCH_LOW counts (1) are reported only. */
  latencyConnections: [4],
  addedP50Ms: 0.3,
  addedP99Ms: 2,
  /** "No request over 50 ms in a 30 s run": judged on the long phases (BENCH_LONG) when they last that long. */
  tailMaxMs: 50,
  tailRunS: 30,
  /** Peak RSS during the plain phase at the first BENCH_HIGH count (VmHWM reset right before it). */
  peakRssMiB: 120,
  /** TTFT p99 of BENCH_SLOW_STREAMS concurrent slow streams, Conduit over the floor. */
  ttftAddedP99Ms: 1,
  /** Req/s Conduit loses to its metrics (BENCH_COMPARE=nometrics). */
  metricsCost: 0.02,
};
export const SLOW_MODEL = 'acme/slow';
/** The fake upstream's usage for a slow stream: 12 prompt tokens, one token per content chunk. */
export const SLOW_USAGE = { prompt: 12, completion: 50 };

/** A small chat request; the streaming one is what an OpenAI SDK sends by default (no include_usage). */
export function requestBody(mode: Mode, model = 'acme/chat'): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'Say hello in five words.' },
    ],
    max_tokens: 16,
    ...(mode === 'stream' ? { stream: true } : {}),
  });
}

/** Where the CPU went during a measured phase, per completed request (µs), and how busy the machine was. */
export interface CpuShare {
  proxyUs: number;
  upstreamUs: number;
  postgresUs: number;
  generatorUs: number;
  /** Everything else on the machine meanwhile (the bench itself, the kernel's share not charged to a process, other work). */
  otherUs: number;
  /** That "other" as cores: well above ~0.1 means something foreign competed for the CPU during the phase. */
  otherCores: number;
  /** Cores busy on average over the phase (of nproc). */
  busyCores: number;
}

/** Conduit's state when a measured phase ends. */
export interface ConduitState {
  rssBytes: number | null;
  /** Requests already answered upstream whose usage rows are not in the database yet. */
  unwrittenRows: number;
  /** Lines Conduit logged during the phase: naming a deadlock, a transient database error, and all warn/error lines. */
  log: LogCounts;
  /** When the phase ran, by the wall clock Conduit stamps usage rows with. */
  window: { from: Date; to: Date };
  /** Usage rows settled in the phase whose request took longer than settings.slowMs (Conduit's clock); filled in after the drain. */
  slowRows?: number;
  /** Peak RSS (VmHWM) during the measured phase: reset right before it, read right after (null: could not reset). */
  peakRssBytes: number | null;
}

export interface LogCounts {
  deadlock: number;
  transient: number;
  warnOrError: number;
}

export interface Row {
  mode: Mode;
  connections: number;
  target: Target;
  seconds: number;
  result: LoadResult;
  cpu: CpuShare;
  conduit?: ConduitState;
}

/** A slow-stream phase: N streams at once against one server. */
export interface SlowRow {
  target: Target;
  count: number;
  model: string;
  summary: SlowStreamSummary;
  /** The most slow streams open at the fake upstream at once during the phase (from this server). */
  upstreamPeak: number;
  /** CPU the server used over the phase, seconds. */
  proxyCpuS: number;
  /** Conduit's peak RSS during the phase (VmHWM reset before it). */
  peakRssBytes: number | null;
  /** Conduit's usage rows for the phase's model, after the drain. */
  rows?: { all: number; ok: number; exactTokens: number };
}

/** One phase of the BENCH_COMPARE pair: Conduit or its variant, same load, back to back. */
export interface CompareRow {
  mode: Mode;
  connections: number;
  target: 'conduit' | 'variant';
  result: LoadResult;
  cpu: CpuShare;
}

export const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
