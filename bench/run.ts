// `npm run bench`: Conduit against the floor (a bare Bun pass-through proxy with the same fetch limit), both
// in front of the same instant fake upstream, driven by wrk (or autocannon), plain and streaming, at low and
// saturating concurrency (the 4-connection phases 30 s long, for the tail); then thousands of concurrent
// slow streams (bench/slow-streams.ts: time to first token, none broken, each billed), Conduit against a
// copy of itself without metrics (their cost), and what routing and failover cost (bench/routing.ts).
// Prints req/s, p50, p99, p99.9 and max per target, Conduit's cost over the floor, Conduit's peak RSS per
// phase, requests slower than 50 ms, deadlocks and transient database errors, judges issue 13's and issue
// 29's targets, and checks that every request left a usage row and that the books balance. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import {
  createBenchDatabase,
  deadlockCounts,
  mispricedRows,
  modelUsageRows,
  readBooks,
  readKeyBooks,
  seedPrices,
  slowUsageRows,
  topUp,
  type BenchDatabase,
  type Books,
  type KeyBooks,
  type SeededPrices,
} from './database';
import { pickLoadGenerator, type LoadGenerator, type LoadResult } from './loadgen';
import {
  CLOCK_TICKS_PER_SECOND,
  cpuTicks,
  environOf,
  freePort,
  machineBusyTicks,
  openFilesLimit,
  peakRssBytes,
  postgresTicks,
  resetPeakRss,
  rssBytes,
  startReadyChild,
  stopChild,
  waitForHttp,
  withOpenFiles,
  type Child,
} from './processes';
import {
  routingChecks,
  routingConduitEnv,
  routingDescription,
  routingSeconds,
  routingSettings,
  routingSection,
  routingVerdicts,
  runRoutingPhases,
  type RoutingOutcome,
} from './routing';
import type { SlowStreamSummary } from './slow-streams';

const REPO = resolve(import.meta.dir, '..');
const env = process.env;

const list = (value: string | undefined, fallback: string) =>
  (value ?? fallback)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const settings = {
  adminUrl: env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  durationS: Number(env.BENCH_DURATION ?? 6),
  warmupS: Number(env.BENCH_WARMUP ?? 2),
  low: list(env.BENCH_LOW, '1,4').map(Number),
  high: list(env.BENCH_HIGH, '64').map(Number),
  /** Connection counts whose measured phases last longDurationS instead (the tail: "no request over 50 ms in a 30 s run"). */
  long: list(env.BENCH_LONG, '4').map(Number),
  longDurationS: Number(env.BENCH_LONG_DURATION ?? 30),
  /** Concurrent slow streams against the floor and Conduit (TTFT compared), each count once. */
  slowStreams: [...new Set(list(env.BENCH_SLOW_STREAMS, '512').map(Number))],
  /** Concurrent slow streams against Conduit alone (none broken, each billed); null: skipped. */
  slowStreamsMax: (env.BENCH_SLOW_STREAMS_MAX ?? '4096').trim() === '' ? null : Number(env.BENCH_SLOW_STREAMS_MAX ?? 4096),
  /** A variant of Conduit (bench/variants.sh changes, or a directory) measured against it at the first BENCH_HIGH; null: skipped. */
  compare: (env.BENCH_COMPARE ?? 'nometrics').trim() || null,
  compareModes: list(env.BENCH_COMPARE_MODES, 'plain') as Mode[],
  compareRounds: Math.max(1, Math.floor(Number(env.BENCH_COMPARE_ROUNDS ?? 2))),
  modes: list(env.BENCH_MODES, 'plain,stream') as Mode[],
  targets: list(env.BENCH_TARGETS, 'floor,conduit') as Target[],
  /** Extra flags for Conduit's bun, e.g. `--cpu-prof-md --cpu-prof-dir=bench/.tmp/prof`. */
  conduitBunArgs: list(env.BENCH_CONDUIT_BUN_ARGS?.replace(/\s+/g, ','), ''),
  /** Extra Conduit configuration, `NAME=value,NAME=value` (e.g. USAGE_FLUSH_MS=200). */
  conduitEnv: Object.fromEntries(
    list(env.BENCH_CONDUIT_ENV, '').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ) as Record<string, string>,
  /** PostgreSQL settings for the bench database only, `name=value,name=value` (e.g. synchronous_commit=off). */
  databaseSettings: Object.fromEntries(
    list(env.BENCH_DB_SETTINGS, '').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ) as Record<string, string>,
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
if (!(settings.longDurationS > 0)) throw new Error(`BENCH_LONG_DURATION=${env.BENCH_LONG_DURATION}: seconds, above 0`);

/** Measured seconds of a phase at this many connections. */
const phaseSeconds = (connections: number) => (settings.long.includes(connections) ? settings.longDurationS : settings.durationS);

/** The fetch limit of the floor: what Conduit asks for its own upstream requests (UPSTREAM_MAX_CONNECTIONS, default 4096). */
const FETCH_LIMIT = Number(settings.conduitEnv.UPSTREAM_MAX_CONNECTIONS ?? 4096);
/**
 * Every bench connection comes from 127.0.0.1, where real streams come from many addresses: Conduit's limit
 * of connections per client address (default 1024) is raised above the most slow streams at once, unless
 * BENCH_CONDUIT_ENV sets it. The guard still counts every request.
 */
const PER_ADDRESS_LIMIT =
  settings.conduitEnv.MAX_CONNECTIONS_PER_ADDRESS ?? String(Math.max(1024, Math.max(...settings.slowStreams, settings.slowStreamsMax ?? 0) + 1024));
/** Open files asked for each server process: a socket per stream (Conduit two), with room. */
const OPEN_FILES = Math.max(65_536, 3 * Math.max(...settings.slowStreams, settings.slowStreamsMax ?? 0) + 4096);

/** The hard deadline: BENCH_DEADLINE, or the phases' own length with room for start, drain and stop. */
function deadlineSeconds(): number {
  if (settings.deadlineS !== null) return settings.deadlineS;
  let seconds = 0;
  for (const c of [...settings.low, ...settings.high]) {
    seconds += settings.modes.length * settings.targets.length * (settings.warmupS + phaseSeconds(c) + 1.5);
  }
  // Slow streams: about a second each phase when all goes well; a stuck one waits for the client's timeout.
  const slowPhases = settings.slowStreams.length * settings.targets.length + (settings.slowStreamsMax ? 1 : 0);
  seconds += slowPhases * 10;
  if (settings.compare) seconds += 40 + settings.compareModes.length * (settings.warmupS + 2 * settings.compareRounds * (settings.durationS + 1));
  seconds += routingSeconds(settings.durationS, settings.warmupS);
  return Math.max(180, Math.ceil(seconds * 1.3 + 60));
}

type Mode = 'plain' | 'stream';
type Target = 'floor' | 'conduit';
/** Also the BENCH_COMPARE copy of Conduit, in its own phases. */
type Server = Target | 'variant';

/** Other work above this (cores) during a phase means the machine was shared and the phase is suspect. */
const OTHER_WORK_WARN_CORES = 0.15;

/** Issue 13, point 2 (and point 4's metrics cost). */
const TARGETS = {
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
const SLOW_MODEL = 'acme/slow';
/** The fake upstream's usage for a slow stream: 12 prompt tokens, one token per content chunk. */
const SLOW_USAGE = { prompt: 12, completion: 50 };

/** A small chat request; the streaming one is what an OpenAI SDK sends by default (no include_usage). */
function requestBody(mode: Mode, model = 'acme/chat'): string {
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
interface CpuShare {
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
interface ConduitState {
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

interface LogCounts {
  deadlock: number;
  transient: number;
  warnOrError: number;
}

interface Row {
  mode: Mode;
  connections: number;
  target: Target;
  seconds: number;
  result: LoadResult;
  cpu: CpuShare;
  conduit?: ConduitState;
}

/** A slow-stream phase: N streams at once against one server. */
interface SlowRow {
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
interface CompareRow {
  mode: Mode;
  connections: number;
  target: 'conduit' | 'variant';
  result: LoadResult;
  cpu: CpuShare;
}

const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : 'n/a');
const ms1 = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : 'n/a');
const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

function git(...args: string[]): string {
  const r = Bun.spawnSync(['git', ...args], { cwd: REPO, stdout: 'pipe', stderr: 'ignore' });
  return r.stdout.toString().trim();
}

function machine() {
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    kernel: release(),
    bun: Bun.version,
  };
}

/**
 * Where Conduit runs from: the working tree (default), a committed ref exported with `git archive`
 * (BENCH_REF), or a directory given (BENCH_CONDUIT_DIR). Exports live under bench/.tmp, inside the
 * repository, so they resolve the repository's node_modules.
 */
function conduitSource(): { dir: string; commit: string; version: string } {
  if (settings.conduitDir) {
    const dir = resolve(settings.conduitDir);
    return { dir, commit: 'n/a', version: `from ${dir}` };
  }
  if (settings.ref) {
    const commit = git('rev-parse', '--short', settings.ref);
    if (!commit) throw new Error(`BENCH_REF=${settings.ref} is not a commit`);
    const dir = join(REPO, 'bench', '.tmp', `ref-${commit}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const archive = Bun.spawnSync(['git', 'archive', '--format=tar', commit, 'src', 'drizzle', 'package.json', 'tsconfig.json'], {
      cwd: REPO,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    if (archive.exitCode !== 0) throw new Error(`git archive failed: ${archive.stderr.toString()}`);
    const untar = Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout, stderr: 'pipe' });
    if (untar.exitCode !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
    return { dir, commit, version: `commit ${commit} (exported clean)` };
  }
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--', 'src', 'drizzle') !== '';
  return { dir: REPO, commit, version: `commit ${commit}${dirty ? ' + uncommitted changes in src/ (working tree)' : ' (working tree, clean)'}` };
}

async function fakeStats(url: string): Promise<{ floor: number; other: number }> {
  return (await (await fetch(`${url}/stats`)).json()) as { floor: number; other: number };
}

async function postJson(url: string, body: unknown, token?: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as any;
}

/** One request of each mode, checked by eye of a client: a JSON answer, or a stream ending in [DONE]. */
async function sanityCheck(url: string, key: string, mode: Mode): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: requestBody(mode),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`sanity ${mode} ${url}: ${res.status} ${text.slice(0, 300)}`);
  if (mode === 'plain' && !text.includes('"choices"')) throw new Error(`sanity plain ${url}: ${text.slice(0, 300)}`);
  if (mode === 'stream' && !text.trimEnd().endsWith('data: [DONE]')) throw new Error(`sanity stream ${url}: ${text.slice(-300)}`);
}

function table(rows: Row[]): string {
  const find = (mode: Mode, c: number, t: Target) =>
    rows.find((r) => r.mode === mode && r.connections === c && r.target === t)?.result;
  const lines = [
    '| mode | conns | floor req/s | floor p50 ms | floor p99 ms | floor p99.9 ms | floor max ms | conduit req/s | conduit p50 ms | conduit p99 ms | conduit p99.9 ms | conduit max ms | req/s ratio | added p50 ms | added p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const keys = [...new Set(rows.map((r) => `${r.mode}:${r.connections}`))];
  for (const k of keys) {
    const [mode, cText] = k.split(':') as [Mode, string];
    const c = Number(cText);
    const f = find(mode, c, 'floor');
    const d = find(mode, c, 'conduit');
    const cell = (r: LoadResult | undefined, pick: (r: LoadResult) => string) => (r ? pick(r) : '—');
    const figures = (r: LoadResult | undefined) =>
      `${cell(r, (x) => x.rps.toFixed(0))} | ${cell(r, (x) => ms(x.p50Ms))} | ${cell(r, (x) => ms(x.p99Ms))} | ` +
      `${cell(r, (x) => ms(x.p999Ms))} | ${cell(r, (x) => ms(x.maxMs))}`;
    lines.push(
      `| ${mode} | ${c} | ${figures(f)} | ${figures(d)} | ` +
        `${f && d ? pct(d.rps / f.rps) : '—'} | ${f && d ? ms(d.p50Ms - f.p50Ms) : '—'} | ${f && d ? ms(d.p99Ms - f.p99Ms) : '—'} |`,
    );
  }
  return lines.join('\n');
}

function cpuTable(rows: Row[]): string {
  const lines = [
    '| mode | conns | target | proxy µs/req | fake upstream µs/req | PostgreSQL µs/req | generator µs/req | machine busy (cores) | other work (cores) | Conduit peak RSS in phase | Conduit RSS at end | usage rows not yet written at end |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const c = r.cpu;
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${c.proxyUs.toFixed(0)} | ${c.upstreamUs.toFixed(0)} | ${c.postgresUs.toFixed(0)} | ` +
        `${c.generatorUs.toFixed(0)} | ${c.busyCores.toFixed(2)} | ${c.otherCores.toFixed(2)}${c.otherCores > OTHER_WORK_WARN_CORES ? ' ⚠' : ''} | ` +
        `${r.conduit ? mib(r.conduit.peakRssBytes) : ''} | ${r.conduit ? mib(r.conduit.rssBytes) : ''} | ${r.conduit ? r.conduit.unwrittenRows : ''} |`,
    );
  }
  return lines.join('\n');
}

/** The slow end of every measured phase: p99.9, max, how many requests took longer than settings.slowMs, database trouble. */
function tailTable(rows: Row[]): string {
  const t = settings.slowMs;
  const lines = [
    `| mode | conns | target | requests | p99.9 ms | max ms | requests > ${t} ms (wrk) | Conduit usage rows > ${t} ms | Conduit log: deadlock / transient DB error / all warn+error lines |`,
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const slow = r.result.slowRequests;
    const d = r.conduit;
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${r.result.requests} | ${ms(r.result.p999Ms)} | ${ms(r.result.maxMs)} | ` +
        `${slow === null ? 'n/a' : `${slow} (${((slow / Math.max(1, r.result.requests)) * 100).toFixed(3)} %)`} | ` +
        `${d ? (d.slowRows ?? 'n/a') : ''} | ${d ? `${d.log.deadlock} / ${d.log.transient} / ${d.log.warnOrError}` : ''} |`,
    );
  }
  return lines.join('\n');
}

/** The slow-stream phases: TTFT from the request's write to the first content event, completions, billing. */
function slowTable(rows: SlowRow[]): string {
  const lines = [
    '| streams | target | ok | broken (connect / socket / status / no [DONE] / timeout) | TTFT p50 ms | TTFT p99 ms | TTFT max ms | connect p99 ms | stream p50 ms | stream p99 ms | all ended after s | open at the upstream at once | server CPU s | Conduit peak RSS in phase | Conduit usage rows: ok / all / exact tokens |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const x = r.summary;
    const why = x.reasons;
    lines.push(
      `| ${r.count} | ${r.target} | ${x.ok} | ${x.broken} (${why.connect} / ${why.socket} / ${why.status} / ${why.noDone} / ${why.timeout}) | ` +
        `${ms1(x.ttftMs.p50)} | ${ms1(x.ttftMs.p99)} | ${ms1(x.ttftMs.max)} | ${ms1(x.connectMs.p99)} | ${ms1(x.totalMs.p50)} | ${ms1(x.totalMs.p99)} | ` +
        `${(x.wallMs / 1000).toFixed(2)} | ${r.upstreamPeak} | ${r.proxyCpuS.toFixed(2)} | ${r.target === 'conduit' ? mib(r.peakRssBytes) : ''} | ` +
        `${r.rows ? `${r.rows.ok} / ${r.rows.all} / ${r.rows.exactTokens}` : ''} |`,
    );
  }
  return lines.join('\n');
}

/** BENCH_COMPARE: Conduit and its variant, phase by phase, in the order they ran. */
function compareTable(rows: CompareRow[]): string {
  const lines = [
    '| mode | conns | target | req/s | p50 ms | p99 ms | max ms | proxy µs/req | other work (cores) |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.mode} | ${r.connections} | ${r.target} | ${r.result.rps.toFixed(0)} | ${ms(r.result.p50Ms)} | ${ms(r.result.p99Ms)} | ${ms1(r.result.maxMs)} | ` +
        `${r.cpu.proxyUs.toFixed(1)} | ${r.cpu.otherCores.toFixed(2)}${r.cpu.otherCores > OTHER_WORK_WARN_CORES ? ' ⚠' : ''} |`,
    );
  }
  return lines.join('\n');
}

/** Lines of Conduit's logs (JSON lines on stdout, anything on stderr) from the given byte offsets on. */
function scanLogs(files: string[], from: number[]): { counts: LogCounts; sizes: number[] } {
  const counts: LogCounts = { deadlock: 0, transient: 0, warnOrError: 0 };
  const sizes: number[] = [];
  files.forEach((file, i) => {
    let text = '';
    let size = 0;
    try {
      const bytes = readFileSync(file);
      size = bytes.length;
      text = bytes.subarray(Math.min(from[i] ?? 0, size)).toString('utf8');
    } catch {
      // Not written yet.
    }
    sizes.push(size);
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      if (/deadlock|40P01/i.test(line)) counts.deadlock++;
      if (/transient database error/i.test(line)) counts.transient++;
      if (!line.startsWith('{') || /"level":"(warn|error)"/.test(line)) counts.warnOrError++;
    }
  });
  return { counts, sizes };
}

/**
 * `deadlock detected` lines in PostgreSQL's own log: all of them, and those naming `database` (when the
 * log_line_prefix holds %d, as Debian's does). null when the log cannot be read.
 */
function postgresLogDeadlocks(dir: string, database: string): { all: number; database: number } | null {
  try {
    if (!existsSync(dir)) return null;
    let all = 0;
    let here = 0;
    let read = 0;
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (!name.includes('.log') || !statSync(file).isFile()) continue;
      const text = readFileSync(file, 'utf8');
      read++;
      for (const line of text.split('\n')) {
        if (!line.includes('deadlock detected')) continue;
        all++;
        if (line.includes(`@${database} `) || line.includes(`@${database}:`)) here++;
      }
    }
    return read > 0 ? { all, database: here } : null;
  } catch {
    return null;
  }
}

/** "123456789" nano-units per 1M tokens as GET /v1/models prints it per token ("0.000000123456789"): exact, no floats. */
function perTokenToNanoPerMillion(text: string): bigint | null {
  const match = /^(\d+)(?:\.(\d{1,15}))?$/.exec(text);
  if (!match) return null;
  return BigInt(match[1]!) * 10n ** 15n + BigInt((match[2] ?? '').padEnd(15, '0'));
}

/** Polls Conduit's GET /v1/models until the probe model shows the seeded price: the table was reloaded. */
async function waitForPrices(conduitUrl: string, seeded: SeededPrices, timeoutMs: number): Promise<number> {
  const probe = seeded.probe;
  if (!probe) return 0;
  const started = performance.now();
  let last = '';
  while (performance.now() - started < timeoutMs) {
    try {
      const res = await fetch(`${conduitUrl}/v1/models`);
      const text = await res.text();
      last = `${res.status} ${text.slice(0, 200)}`;
      if (res.ok) {
        const list = JSON.parse(text) as { data: { id: string; pricing?: { prompt?: string; completion?: string } }[] };
        const model = list.data.find((m) => m.id === probe.model);
        if (
          model?.pricing?.prompt !== undefined &&
          perTokenToNanoPerMillion(model.pricing.prompt) === probe.promptNanoPerMillion &&
          perTokenToNanoPerMillion(model.pricing.completion ?? '') === probe.completionNanoPerMillion
        ) {
          return performance.now() - started;
        }
      }
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await Bun.sleep(50);
  }
  throw new Error(`Conduit did not load the ${seeded.rows} price rows within ${timeoutMs} ms (GET /v1/models: ${last})`);
}

/** Start of the UTC day, as a `day` spend limit counts its periods. */
const utcDay = (at: number) => {
  const d = new Date(at);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
};

function keyBooksLine(k: KeyBooks): string {
  const sum = k.budgetNano + k.claimedNano + k.spentNano;
  return (
    `limit ${k.limitNano} = budget ${k.budgetNano} + claimed ${k.claimedNano} (${k.claims} claim rows) + spent ${k.spentNano} → ` +
    `${k.limitNano === sum ? 'holds' : `OFF by ${(k.limitNano ?? 0n) - sum}`}`
  );
}

interface Verdict {
  name: string;
  /** null: cannot be judged with this load generator. */
  ok: boolean | null;
  detail: string;
}

/** What the targets are judged on, besides the wrk phases. */
interface VerdictInputs {
  rows: Row[];
  slowRows: SlowRow[];
  compareRows: CompareRow[];
  /** Why BENCH_COMPARE has no figures (variant not built or did not start), or null. */
  compareError: string | null;
  compareLabel: string | null;
  idleRss: number | null;
  /** VmHWM could be reset per phase; else peaks are since the process started. */
  peakResets: boolean;
  latencyResolutionMs: number;
  /** Whether every usage row is priced exactly (the check of that name). */
  allPricedExactly: boolean;
}

/** Mean req/s and CPU µs per request over phases of one kind. */
function pooled(rows: { result: LoadResult; cpu: CpuShare }[]): { rps: number; proxyUs: number } {
  const requests = rows.reduce((n, r) => n + r.result.requests, 0);
  const seconds = rows.reduce((n, r) => n + r.result.requests / Math.max(1e-9, r.result.rps), 0);
  const proxyUs = rows.reduce((n, r) => n + r.cpu.proxyUs * r.result.requests, 0) / Math.max(1, requests);
  return { rps: requests / Math.max(1e-9, seconds), proxyUs };
}

function verdicts(input: VerdictInputs): Verdict[] {
  const { rows, slowRows } = input;
  // Sub-millisecond added latency cannot be judged from whole-millisecond percentiles.
  const judgeable = input.latencyResolutionMs <= 0.1;
  const unjudged = judgeable ? '' : ` (not judged: ${input.latencyResolutionMs} ms latency resolution; install wrk)`;
  const out: Verdict[] = [];
  const findRow = (mode: Mode, c: number, t: Target) => rows.find((r) => r.mode === mode && r.connections === c && r.target === t);
  const find = (mode: Mode, c: number, t: Target) => findRow(mode, c, t)?.result;
  for (const mode of settings.modes) {
    for (const c of settings.high) {
      const f = find(mode, c, 'floor');
      const d = find(mode, c, 'conduit');
      if (!f || !d) continue;
      const ratio = d.rps / f.rps;
      out.push({
        name: `throughput ${mode} c=${c}: Conduit ≥ ${TARGETS.rpsRatio[mode]}× the floor's req/s`,
        ok: ratio >= TARGETS.rpsRatio[mode],
        detail: `${d.rps.toFixed(0)} / ${f.rps.toFixed(0)} = ${ratio.toFixed(2)}×`,
      });
    }
    for (const c of settings.low) {
      if (!TARGETS.latencyConnections.includes(c)) continue;
      const f = find(mode, c, 'floor');
      const d = find(mode, c, 'conduit');
      if (!f || !d) continue;
      const a50 = d.p50Ms - f.p50Ms;
      const a99 = d.p99Ms - f.p99Ms;
      out.push({
        name: `latency ${mode} c=${c}: added p50 ≤ ${TARGETS.addedP50Ms} ms`,
        ok: judgeable ? a50 <= TARGETS.addedP50Ms : null,
        detail: `${ms(d.p50Ms)} − ${ms(f.p50Ms)} = ${a50 >= 0 ? '+' : ''}${ms(a50)} ms${unjudged}`,
      });
      out.push({
        name: `latency ${mode} c=${c}: added p99 ≤ ${TARGETS.addedP99Ms} ms`,
        ok: judgeable ? a99 <= TARGETS.addedP99Ms : null,
        detail: `${ms(d.p99Ms)} − ${ms(f.p99Ms)} = ${a99 >= 0 ? '+' : ''}${ms(a99)} ms${unjudged}`,
      });
    }
    for (const c of settings.long) {
      const d = findRow(mode, c, 'conduit');
      if (!d) continue;
      const f = find(mode, c, 'floor');
      const longEnough = d.seconds >= TARGETS.tailRunS;
      const slow = d.result.slowRequests;
      out.push({
        name: `tail ${mode} c=${c}: no request over ${TARGETS.tailMaxMs} ms in a ${TARGETS.tailRunS} s run (wrk's max)`,
        ok: longEnough ? d.result.maxMs <= TARGETS.tailMaxMs : null,
        detail:
          `${longEnough ? '' : `not judged: the phase lasted ${d.seconds} s (BENCH_LONG_DURATION); `}` +
          `max ${ms1(d.result.maxMs)} ms, p99.9 ${ms(d.result.p999Ms)} ms, ${slow ?? 'n/a'} of ${d.result.requests} requests > ${settings.slowMs} ms, ` +
          `Conduit usage rows > ${settings.slowMs} ms: ${d.conduit?.slowRows ?? 'n/a'}` +
          (f ? `; floor: max ${ms1(f.maxMs)} ms, p99.9 ${ms(f.p999Ms)} ms` : ''),
      });
    }
  }
  if (settings.targets.includes('conduit') && settings.modes.includes('plain') && settings.high.length > 0) {
    const c = settings.high[0]!;
    const d = findRow('plain', c, 'conduit');
    const peak = d?.conduit?.peakRssBytes ?? null;
    out.push({
      name: `Conduit peak RSS ≤ ${TARGETS.peakRssMiB} MiB during plain c=${c}`,
      ok: peak === null ? null : peak <= TARGETS.peakRssMiB * 1024 * 1024,
      detail:
        `${mib(peak)} (VmHWM ${input.peakResets ? 'reset right before the measured phase, read right after' : 'since start: /proc/<pid>/clear_refs could not reset it'}); ` +
        `idle RSS before the load ${mib(input.idleRss)}`,
    });
  }
  for (const count of settings.slowStreams) {
    const f = slowRows.find((r) => r.target === 'floor' && r.count === count);
    const d = slowRows.find((r) => r.target === 'conduit' && r.count === count);
    if (!f || !d) continue;
    const added = d.summary.ttftMs.p99 - f.summary.ttftMs.p99;
    out.push({
      name: `${count} concurrent slow streams: Conduit's TTFT p99 ≤ ${TARGETS.ttftAddedP99Ms} ms over the floor's`,
      ok: d.summary.broken === 0 && f.summary.broken === 0 && Number.isFinite(added) ? added <= TARGETS.ttftAddedP99Ms : false,
      detail:
        `${ms1(d.summary.ttftMs.p99)} − ${ms1(f.summary.ttftMs.p99)} = ${added >= 0 ? '+' : ''}${ms1(added)} ms ` +
        `(p50 ${ms1(d.summary.ttftMs.p50)} vs ${ms1(f.summary.ttftMs.p50)} ms; broken ${d.summary.broken} / ${f.summary.broken}; ` +
        `at the upstream at once ${d.upstreamPeak} / ${f.upstreamPeak})`,
    });
  }
  if (settings.slowStreamsMax !== null) {
    const d = slowRows.find((r) => r.target === 'conduit' && r.count === settings.slowStreamsMax && r.model.endsWith('-max'));
    if (d) {
      const rows = d.rows;
      const billed = rows !== undefined && rows.ok === d.summary.ok && rows.all === d.summary.count && rows.exactTokens === rows.ok;
      out.push({
        name: `${d.count} concurrent slow streams to Conduit: none broken, every one billed exactly`,
        ok: d.summary.broken === 0 && billed && input.allPricedExactly,
        detail:
          `${d.summary.ok} of ${d.count} ended with [DONE], ${d.summary.broken} broken; ${d.upstreamPeak} open at the upstream at once; ` +
          `usage rows for ${d.model}: ${rows ? `${rows.ok} ok of ${rows.all}, ${rows.exactTokens} with the upstream's ${SLOW_USAGE.prompt} + ${SLOW_USAGE.completion} tokens` : 'n/a'}; ` +
          `every row priced exactly: ${input.allPricedExactly ? 'yes' : 'NO'}; TTFT p50 ${ms1(d.summary.ttftMs.p50)} p99 ${ms1(d.summary.ttftMs.p99)} max ${ms1(d.summary.ttftMs.max)} ms`,
      });
    }
  }
  if (input.compareLabel !== null) {
    for (const mode of settings.compareModes) {
      const c = settings.high[0] ?? 64;
      const withIt = input.compareRows.filter((r) => r.mode === mode && r.target === 'conduit');
      const without = input.compareRows.filter((r) => r.mode === mode && r.target === 'variant');
      const name = `${input.compareLabel} ${mode} c=${c}: Conduit's req/s ≥ ${(1 - TARGETS.metricsCost).toFixed(2)}× the variant's (cost ≤ ${pct(TARGETS.metricsCost)})`;
      if (withIt.length === 0 || without.length === 0) {
        out.push({ name, ok: null, detail: `not measured: ${input.compareError ?? 'no phases ran'}` });
        continue;
      }
      const a = pooled(withIt);
      const b = pooled(without);
      const cost = 1 - a.rps / b.rps;
      out.push({
        name,
        ok: cost <= TARGETS.metricsCost,
        detail:
          `${a.rps.toFixed(0)} vs ${b.rps.toFixed(0)} req/s over ${withIt.length} + ${without.length} alternating phases: cost ${(cost * 100).toFixed(1)} %; ` +
          `Conduit CPU ${a.proxyUs.toFixed(1)} vs ${b.proxyUs.toFixed(1)} µs/req (${(((a.proxyUs - b.proxyUs) / a.proxyUs) * 100).toFixed(1)} % of it)`,
      });
    }
  }
  return out;
}

function booksLine(b: Books): string {
  return (
    `Σ ledger ${b.ledgerNano} = balance ${b.balanceNano} + leases ${b.leasedNano} → ` +
    `${b.ledgerNano === b.balanceNano + b.leasedNano ? 'holds' : `OFF by ${b.ledgerNano - b.balanceNano - b.leasedNano}`}`
  );
}

async function main() {
  const started = Date.now();
  // Its own directory (several benches may run at once in one tree); those of finished runs are removed.
  const tmp = join(REPO, 'bench', '.tmp');
  mkdirSync(tmp, { recursive: true });
  for (const name of readdirSync(tmp)) {
    const owner = /^run-(\d+)$/.exec(name)?.[1] ?? /^compare-(\d+)$/.exec(name)?.[1];
    if (owner && !existsSync(`/proc/${owner}`)) rmSync(join(tmp, name), { recursive: true, force: true });
  }
  const workDir = join(tmp, `run-${process.pid}`);
  mkdirSync(workDir, { recursive: true });

  const children: Child[] = [];
  const loadProcs = new Set<Bun.Subprocess>();
  let database: BenchDatabase | null = null;
  let conduit: Child | null = null;
  let cleaning: Promise<void> | null = null;
  /** Set by the deadline or a signal: the phase in flight fails because its processes were stopped. */
  let interrupted = false;

  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const p of loadProcs) {
        if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      }
      for (const child of children.reverse()) {
        await stopChild(child, child === conduit ? 8_000 : 2_000).catch(() => {});
      }
      if (database) {
        await database.drop().then(
          () => log(`dropped database ${database!.name}`),
          (error) => log(`could not drop database ${database!.name}: ${String(error)}`),
        );
      }
    })());

  // Bounded in time whatever happens: past the deadline everything is stopped and the database dropped.
  const deadlineS = deadlineSeconds();
  const deadline = setTimeout(() => {
    log(`deadline of ${deadlineS} s passed; stopping`);
    interrupted = true;
    void cleanup().finally(() => process.exit(2));
  }, deadlineS * 1000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      log(`${signal}; stopping`);
      interrupted = true;
      void cleanup().finally(() => process.exit(130));
    });
  }

  let failed = false;
  try {
    const generator: LoadGenerator = pickLoadGenerator(env, REPO);
    const pgLogBefore = postgresLogDeadlocks(settings.pgLogDir, '');
    const info = machine();
    const { dir: conduitDir, commit, version } = conduitSource();
    log(`load generator: ${generator.name}; Conduit ${version} from ${conduitDir}`);

    const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp' };
    const bun = process.execPath;

    const fake = await startReadyChild('fake upstream', withOpenFiles([bun, join(REPO, 'bench', 'fake-upstream.ts')], OPEN_FILES), baseEnv);
    children.push(fake.child);
    const fakeUrl = `http://127.0.0.1:${fake.port}`;

    // The floor gets the fetch limit Conduit gives itself (src/index.ts restarts itself with
    // BUN_CONFIG_MAX_HTTP_REQUESTS = UPSTREAM_MAX_CONNECTIONS), so neither waits for a fetch slot the other has.
    const floor = await startReadyChild('floor', withOpenFiles([bun, join(REPO, 'bench', 'floor.ts')], OPEN_FILES), {
      ...baseEnv,
      UPSTREAM_URL: `${fakeUrl}/v1/chat/completions`,
      BUN_CONFIG_MAX_HTTP_REQUESTS: String(FETCH_LIMIT),
    });
    children.push(floor.child);
    const floorUrl = `http://127.0.0.1:${floor.port}`;

    database = await createBenchDatabase(settings.adminUrl, settings.databaseSettings);
    log(`created database ${database.name}`);
    const deadlocksBefore = await deadlockCounts(database.sql, database.name);

    /** Conduit (or the BENCH_COMPARE variant) from dir, against the bench database, with its own data directory and logs. */
    const startConduit = async (dir: string, name: string) => {
      const port = freePort();
      const logs = [join(workDir, `${name}.log`), join(workDir, `${name}.err.log`)];
      const proc = Bun.spawn(withOpenFiles([bun, ...settings.conduitBunArgs, 'src/index.ts'], OPEN_FILES), {
        cwd: dir,
        env: {
          ...baseEnv,
          NODE_ENV: 'production',
          HOST: '127.0.0.1',
          PORT: String(port),
          PUBLIC_BASE_URL: 'https://conduit.bench.invalid',
          DATABASE_URL: database!.url,
          // Its own: the settlement journal lives there, and an instance replays what it finds at start.
          DATA_DIR: join(workDir, `data-${name}`),
          JWT_SECRET: randomBytes(48).toString('base64url'),
          ENCRYPTION_KEY: randomBytes(32).toString('hex'),
          UPSTREAM_BASE_URL: `${fakeUrl}/v1`,
          LOG_REQUESTS: 'false',
          LOG_LEVEL: 'warn',
          MAX_CONNECTIONS_PER_ADDRESS: PER_ADDRESS_LIMIT,
          ...routingConduitEnv(),
          ...settings.conduitEnv,
        },
        stdin: 'ignore',
        stdout: Bun.file(logs[0]!),
        stderr: Bun.file(logs[1]!),
      });
      const child: Child = { name, proc, pid: proc.pid };
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(`${url}/health`, 30_000, () => proc.exitCode === null && proc.signalCode === null);
      return { child, url, logs };
    };
    const started0 = await startConduit(conduitDir, 'conduit');
    conduit = started0.child;
    const proc = conduit.proc;
    const conduitUrl = started0.url;
    const conduitLogs = started0.logs;
    log(`conduit pid ${proc.pid} on ${conduitUrl}; floor on ${floorUrl}; fake upstream on ${fakeUrl}`);
    // What each server really runs with: Conduit's limit after its restart in place (same pid, new environment).
    const limits = {
      fetch: {
        floor: environOf(floor.child.pid, 'BUN_CONFIG_MAX_HTTP_REQUESTS'),
        conduit: environOf(conduit.pid, 'BUN_CONFIG_MAX_HTTP_REQUESTS'),
      },
      openFiles: {
        floor: openFilesLimit(floor.child.pid),
        conduit: openFilesLimit(conduit.pid),
        upstream: openFilesLimit(fake.child.pid),
      },
    };
    const limitsLine =
      `fetch limit (BUN_CONFIG_MAX_HTTP_REQUESTS): floor ${limits.fetch.floor ?? 'unset (256)'}, Conduit ${limits.fetch.conduit ?? 'unset (256)'} ` +
      `(UPSTREAM_MAX_CONNECTIONS ${settings.conduitEnv.UPSTREAM_MAX_CONNECTIONS ?? 'default 4096'}); ` +
      `connections per client address (MAX_CONNECTIONS_PER_ADDRESS): ${PER_ADDRESS_LIMIT}${settings.conduitEnv.MAX_CONNECTIONS_PER_ADDRESS ? '' : ' (raised by the bench: every connection comes from 127.0.0.1)'}; ` +
      `open files: floor ${limits.openFiles.floor}, Conduit ${limits.openFiles.conduit}, fake upstream ${limits.openFiles.upstream}`;
    const maxStreams = Math.max(0, ...settings.slowStreams, settings.slowStreamsMax ?? 0);
    if ((limits.openFiles.conduit ?? 0) < 2 * maxStreams + 512) {
      log(`WARNING: Conduit may open ${limits.openFiles.conduit} files, fewer than ${maxStreams} slow streams need (two sockets each)`);
    }
    log(limitsLine);
    if (limits.fetch.floor !== limits.fetch.conduit) log(`WARNING: the floor and Conduit run with different fetch limits`);

    // A real user and a real key, over HTTP; then enough money for the whole run, ledger and balance together.
    const email = `bench-${Date.now()}@example.com`;
    const registered = await postJson(`${conduitUrl}/api/auth/register`, { email, password: 'bench-password-1' });
    const userId = registered.user.id as string;
    // BENCH_KEY_LIMIT: the key gets a daily spend limit, so every request also reserves against the key's
    // claim on its budget (key_leases); far above what a run spends, so it never runs out.
    const created = await postJson(
      `${conduitUrl}/api/keys`,
      settings.keyLimit === null ? { name: 'bench' } : { name: 'bench', spendLimit: settings.keyLimit, limitReset: 'day' },
      registered.token as string,
    );
    const apiKey = created.key as string;
    const keyId = created.id as string;
    const keyDay = utcDay(Date.now());
    const TOP_UP_NANO = 100_000n * 1_000_000_000n; // 100 000 currency units: far more than a run spends
    await topUp(database.sql, userId, TOP_UP_NANO);
    log(
      `user ${userId} topped up; key ${apiKey.slice(0, 12)}…` +
        (settings.keyLimit === null ? '' : ` with a spend limit of ${created.spendLimit} a day`),
    );

    // BENCH_PRICE_ROWS: a price table of that size, loaded by Conduit through the same NOTIFY an admin's
    // change sends; the bench's model matches `acme/*`, priced at TOKEN_PRICE so costs are as without it.
    const tokenPriceNano = BigInt(Math.round(Number(settings.conduitEnv.TOKEN_PRICE ?? 1.25e-7) * 1e9));
    const benchPrice = { promptNanoPerMillion: tokenPriceNano * 1_000_000n, completionNanoPerMillion: tokenPriceNano * 1_000_000n };
    let seeded: SeededPrices | null = null;
    if (settings.priceRows > 0) {
      seeded = await seedPrices(database.sql, settings.priceRows, tokenPriceNano * 1_000_000n);
      await database.sql`select pg_notify('conduit_prices_changed', '')`;
      const tookMs = await waitForPrices(conduitUrl, seeded, 15_000);
      log(
        `${seeded.rows} price rows in model_prices; ` +
          (seeded.probe ? `Conduit shows them on /v1/models ${tookMs.toFixed(0)} ms after the notification` : 'one row: its load cannot be seen from outside'),
      );
    }

    const urls: Record<Server, string> = {
      floor: `${floorUrl}/v1/chat/completions`,
      conduit: `${conduitUrl}/v1/chat/completions`,
      variant: '',
    };
    let conduit2xx = 0;
    let conduitNon2xx = 0;
    let conduitSocketErrors = 0;
    let conduitConnections = 0;
    for (const mode of settings.modes) {
      for (const target of settings.targets) {
        await sanityCheck(urls[target], apiKey, mode);
        if (target === 'conduit') conduit2xx++;
      }
    }

    const idleRss = rssBytes(conduit.pid);
    // Conduit's peak RSS over the whole run: VmHWM is reset before each measured phase, so the peak so far is
    // taken before every reset and at the end.
    let conduitPeakRss = peakRssBytes(conduit.pid);
    const notePeak = () => {
      const now = peakRssBytes(conduit!.pid);
      if (now !== null && (conduitPeakRss === null || now > conduitPeakRss)) conduitPeakRss = now;
    };
    /** Starts a phase's own peak; false when VmHWM cannot be reset (then peaks are since start). */
    let peakResets = true;
    const startPeak = () => {
      notePeak();
      if (!resetPeakRss(conduit!.pid)) peakResets = false;
    };
    const rows: Row[] = [];
    const pids: Record<Server, number> = { floor: floor.child.pid, conduit: conduit.pid, variant: 0 };
    const snapshot = (target: Server) => ({
      at: performance.now(),
      proxy: cpuTicks(pids[target]),
      upstream: cpuTicks(fake.child.pid),
      postgres: postgresTicks(),
      machine: machineBusyTicks(),
    });
    /** One load phase; `load` changes the model asked for and paces the requests (the routing phases). */
    const run = async (
      target: Server,
      mode: Mode,
      connections: number,
      seconds: number,
      tag: string,
      load: { model?: string; delayMs?: number } = {},
    ) => {
      const from = new Date();
      const logAtStart = scanLogs(conduitLogs, []).sizes;
      const measured = tag === 'measure' && target === 'conduit';
      if (measured) startPeak();
      const before = snapshot(target);
      const result = await generator.run(
        {
          url: urls[target],
          body: requestBody(mode, load.model),
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
          connections,
          durationSeconds: seconds,
          workDir,
          tag: `${target}-${mode}-${connections}-${tag}`,
          slowMs: settings.slowMs,
          ...(load.delayMs ? { delayMs: load.delayMs } : {}),
        },
        (p) => loadProcs.add(p),
      );
      const after = snapshot(target);
      const phasePeak = measured ? peakRssBytes(conduit!.pid) : null;
      if (target !== 'floor') {
        conduit2xx += result.requests - result.non2xx;
        conduitNon2xx += result.non2xx;
        conduitSocketErrors += result.socketErrors;
        conduitConnections += connections;
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
        const [forwarded, [counted]] = await Promise.all([
          fakeStats(fakeUrl),
          database!.sql<{ n: string }[]>`select count(*)::text as n from usage_records`,
        ]);
        const logged = scanLogs(conduitLogs, logAtStart);
        // Rows of requests cut off before reaching the upstream can make the difference slightly negative.
        state = {
          rssBytes: rssBytes(conduit!.pid),
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
    const phaseLine = (target: Server, mode: Mode, connections: number, result: LoadResult, cpu: CpuShare, state?: ConduitState) =>
      `${target.padEnd(7)} ${mode.padEnd(6)} c=${String(connections).padEnd(3)} ${result.rps.toFixed(0).padStart(6)} req/s  ` +
      `p50 ${ms(result.p50Ms)}  p99 ${ms(result.p99Ms)}  p99.9 ${ms(result.p999Ms)}  max ${ms1(result.maxMs)} ms  ` +
      `>${settings.slowMs} ms ${result.slowRequests ?? 'n/a'}  ` +
      `cpu/req µs: proxy ${cpu.proxyUs.toFixed(0)} upstream ${cpu.upstreamUs.toFixed(0)} pg ${cpu.postgresUs.toFixed(0)} ` +
      `wrk ${cpu.generatorUs.toFixed(0)}; other ${cpu.otherCores.toFixed(2)} cores` +
      (state?.peakRssBytes ? `; peak RSS ${mib(state.peakRssBytes)}` : '') +
      (result.non2xx || result.socketErrors ? `  non-2xx ${result.non2xx} socket errors ${result.socketErrors}` : '') +
      (state && (state.log.deadlock || state.log.transient)
        ? `  log: ${state.log.deadlock} deadlock, ${state.log.transient} transient-error lines`
        : '');

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

    // BENCH_COMPARE: Conduit against a copy of itself with a part removed (nometrics: the metrics recording),
    // same load at the first BENCH_HIGH count, alternating A B B A … so drift on a shared machine falls on both.
    const compareRows: CompareRow[] = [];
    let compareError: string | null = null;
    let compareLabel: string | null = null;
    let compareSource: string | null = null;
    const compareChecks: Verdict[] = [];
    let variantLogs: string[] = [];
    if (settings.compare && settings.targets.includes('conduit')) {
      const spec = settings.compare;
      compareLabel = spec === 'nometrics' ? 'metrics cost' : `cost of what ${spec} removes`;
      let variant: Child | null = null;
      try {
        let dir: string;
        if (spec.includes('/')) {
          dir = resolve(spec);
          compareSource = dir;
        } else {
          // Built from what Conduit runs from (working tree, BENCH_REF export or BENCH_CONDUIT_DIR), so only the change differs.
          const built = Bun.spawnSync(['bash', join(REPO, 'bench', 'variants.sh'), `bench-compare=${spec}`], {
            cwd: REPO,
            env: { ...baseEnv, VARIANT_SOURCE: conduitDir, VARIANT_DIR: join(tmp, `compare-${process.pid}`) },
            stdout: 'pipe',
            stderr: 'pipe',
          });
          if (built.exitCode !== 0) throw new Error(`bench/variants.sh ${spec}: ${built.stderr.toString().trim() || built.stdout.toString().trim()}`);
          dir = join(tmp, `compare-${process.pid}`, 'bench-compare');
          compareSource = `${spec} (bench/variants.sh) applied to a copy of ${conduitDir === REPO ? 'the working tree' : conduitDir}`;
        }
        const started = await startConduit(dir, 'variant');
        variant = started.child;
        variantLogs = started.logs;
        urls.variant = `${started.url}/v1/chat/completions`;
        pids.variant = variant.pid;
        log(`compare: variant pid ${variant.pid} on ${started.url} (${compareSource})`);
        const c = settings.high[0] ?? 64;
        for (const mode of settings.compareModes) {
          await sanityCheck(urls.variant, apiKey, mode);
          conduit2xx++;
          if (settings.warmupS > 0) await run('variant', mode, c, settings.warmupS, 'warmup');
          for (let round = 0; round < settings.compareRounds; round++) {
            const order: ('conduit' | 'variant')[] = round % 2 === 0 ? ['conduit', 'variant'] : ['variant', 'conduit'];
            for (const target of order) {
              const { result, cpu } = await run(target, mode, c, settings.durationS, 'compare');
              compareRows.push({ mode, connections: c, target, result, cpu });
              log(`compare ${phaseLine(target, mode, c, result, cpu)}`);
            }
          }
        }
      } catch (error) {
        compareError = error instanceof Error ? error.message : String(error);
        log(`compare: ${compareError}`);
      } finally {
        if (variant) {
          const code = await stopChild(variant, 10_000);
          compareChecks.push({
            name: 'the compared variant: clean exit after SIGTERM (its rows written, its leases returned)',
            ok: code === 0,
            detail: `exit ${code}`,
          });
        }
      }
    }

    // Issue 29: what routing and failover cost (bench/routing.ts), on this Conduit, switched through the database.
    let routingOutcome: RoutingOutcome | null = null;
    if (routingSettings.phases.size > 0 && settings.targets.includes('conduit')) {
      routingOutcome = await runRoutingPhases({
        sql: database.sql,
        fakeUrl,
        conduitUrl,
        apiKey,
        generator,
        workDir,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
        highConnections: settings.high[0] ?? 64,
        measure: (mode, connections, seconds, tag, load) => run('conduit', mode, connections, seconds, tag, load),
        counted: () => {
          conduit2xx++;
        },
        track: (p) => loadProcs.add(p),
        log,
      });
    }

    // Slow streams: N streaming requests at once, each on its own connection, from their own process.
    const slowRows: SlowRow[] = [];
    const runSlow = async (target: Target, count: number, model: string) => {
      await fetch(`${fakeUrl}/stats/reset-peak`, { method: 'POST' });
      if (target === 'conduit') startPeak();
      const cpuBefore = cpuTicks(pids[target]);
      const timeoutMs = 60_000 + count * 10;
      const client = Bun.spawn(
        withOpenFiles(
          [bun, join(REPO, 'bench', 'slow-streams.ts'), '--url', urls[target], '--count', String(count), '--key', apiKey, '--model', model, '--timeout-ms', String(timeoutMs)],
          count + 1024,
        ),
        { env: baseEnv, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
      );
      loadProcs.add(client);
      const [out, err, code] = await Promise.all([new Response(client.stdout).text(), new Response(client.stderr).text(), client.exited]);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || !line) throw new Error(`slow-streams client failed (exit ${code}): ${err.slice(0, 500) || out.slice(0, 500)}`);
      const summary = JSON.parse(line) as SlowStreamSummary;
      const upstream = (await (await fetch(`${fakeUrl}/stats`)).json()) as { slow: Record<'floor' | 'other', { peak: number }> };
      const row: SlowRow = {
        target,
        count,
        model,
        summary,
        upstreamPeak: upstream.slow[target === 'floor' ? 'floor' : 'other'].peak,
        proxyCpuS: (cpuTicks(pids[target]) - cpuBefore) / CLOCK_TICKS_PER_SECOND,
        peakRssBytes: target === 'conduit' ? peakRssBytes(conduit!.pid) : null,
      };
      if (target === 'conduit') {
        conduit2xx += summary.ok;
        // A broken stream may or may not have settled as 'ok': room for it in the row accounting.
        conduitConnections += summary.broken;
      }
      slowRows.push(row);
      log(
        `${target.padEnd(7)} ${String(count).padStart(5)} slow streams: ok ${summary.ok} broken ${summary.broken}  ` +
          `TTFT p50 ${ms1(summary.ttftMs.p50)} p99 ${ms1(summary.ttftMs.p99)} max ${ms1(summary.ttftMs.max)} ms  ` +
          `connect p99 ${ms1(summary.connectMs.p99)} ms  all ended after ${(summary.wallMs / 1000).toFixed(2)} s  ` +
          `${row.upstreamPeak} at the upstream at once` +
          (row.peakRssBytes ? `; peak RSS ${mib(row.peakRssBytes)}` : '') +
          (summary.samples.length ? `  e.g. ${summary.samples.join('; ')}` : ''),
      );
      await Bun.sleep(500);
    };
    for (const count of settings.slowStreams) {
      for (const target of settings.targets) await runSlow(target, count, `${SLOW_MODEL}-${count}`);
    }
    if (settings.slowStreamsMax !== null && settings.targets.includes('conduit')) {
      await runSlow('conduit', settings.slowStreamsMax, `${SLOW_MODEL}-${settings.slowStreamsMax}-max`);
    }

    notePeak();
    const floorPeakRss = peakRssBytes(floor.child.pid);
    const upstreamPeakRss = peakRssBytes(fake.child.pid);

    // Settlements are written in batches at most USAGE_FLUSH_MS late, unless the writer falls behind:
    // wait until the row count stops moving (at most 10 s), and say how long that took.
    const loadEnded = performance.now();
    let stats = await fakeStats(fakeUrl);
    let books = await readBooks(database.sql, userId);
    for (let still = 0; still < 3 && performance.now() - loadEnded < 10_000; ) {
      await Bun.sleep(100);
      const next = await readBooks(database.sql, userId);
      still = next.usageRows === books.usageRows && next.usageRows >= stats.other ? still + 1 : 0;
      books = next;
    }
    const drainMs = performance.now() - loadEnded;
    stats = await fakeStats(fakeUrl);
    const conduitRows = rows.filter((r) => r.conduit);
    const slowCounts = await slowUsageRows(
      database.sql,
      userId,
      conduitRows.map((r) => r.conduit!.window),
      settings.slowMs,
    );
    conduitRows.forEach((r, i) => (r.conduit!.slowRows = slowCounts[i]));
    const priced = await mispricedRows(database.sql, userId, benchPrice.promptNanoPerMillion, benchPrice.completionNanoPerMillion);
    for (const r of slowRows) {
      if (r.target === 'conduit') r.rows = await modelUsageRows(database.sql, userId, r.model, SLOW_USAGE);
    }
    const keyRunning = settings.keyLimit === null ? null : await readKeyBooks(database.sql, keyId);
    const sameDay = utcDay(Date.now()) === keyDay;
    const cutOff = books.usageRows - conduit2xx;
    const usageChecks: Verdict[] = [
      {
        name: 'every request Conduit forwarded upstream has its usage row',
        ok: books.usageRows >= stats.other && books.usageRows - stats.other <= conduitConnections,
        detail:
          `${books.usageRows} rows, ${stats.other} upstream requests ` +
          `(rows settled ${drainMs.toFixed(0)} ms after the load ended)`,
      },
      {
        name: "every 2xx the generator saw has an 'ok' usage row; extra rows only for requests cut off at phase ends",
        ok: books.usageOkRows >= conduit2xx && cutOff >= 0 && cutOff <= conduitConnections,
        detail: `${books.usageOkRows} ok rows of ${books.usageRows} vs ${conduit2xx} 2xx; ${cutOff} extra, at most ${conduitConnections} in flight at phase ends`,
      },
      {
        name: 'Σ ledger = users.balance_nano + Σ balance_leases (Conduit running)',
        ok: books.ledgerNano === books.balanceNano + books.leasedNano,
        detail: booksLine(books),
      },
      {
        name: 'Σ usage cost = Σ usage ledger debits',
        ok: books.usageCostNano === -books.usageLedgerNano,
        detail: `${books.usageCostNano} vs ${-books.usageLedgerNano}`,
      },
      {
        name: `every usage row costs its tokens at ${seeded ? `the ${seeded.benchPattern} row of ${seeded.rows} price rows` : 'TOKEN_PRICE'} (prompt rounded down, request rounded up once)`,
        ok: priced.wrong === 0 && priced.rows === books.usageRows,
        detail: `${priced.wrong} of ${priced.rows} rows off; ${benchPrice.promptNanoPerMillion} / ${benchPrice.completionNanoPerMillion} nano per 1M tokens`,
      },
      ...(keyRunning
        ? [
            {
              name: "key limit = budget + Σ key_leases + the key's spend this period (Conduit running; claims are not money)",
              // A run across midnight UTC starts a new period: the old one's claims are void by design.
              ok: sameDay ? keyRunning.limitNano === keyRunning.budgetNano + keyRunning.claimedNano + keyRunning.spentNano : null,
              detail: sameDay ? keyBooksLine(keyRunning) : `not judged: the run crossed midnight UTC; ${keyBooksLine(keyRunning)}`,
            },
          ]
        : []),
      ...slowRows
        .filter((r) => r.target === 'conduit')
        .map((r) => ({
          name: `${r.count} slow streams: every stream that ended with [DONE] has its 'ok' usage row with the upstream's tokens`,
          ok: r.rows !== undefined && r.rows.ok >= r.summary.ok && r.rows.all <= r.count && r.rows.exactTokens === r.rows.ok,
          detail: r.rows
            ? `${r.rows.ok} ok rows of ${r.rows.all} for ${r.model}, ${r.rows.exactTokens} with ${SLOW_USAGE.prompt} + ${SLOW_USAGE.completion} tokens; ${r.summary.ok} streams completed of ${r.count}`
            : 'not read',
        })),
      ...compareChecks,
      ...(routingOutcome ? routingChecks(routingOutcome) : []),
      {
        name: 'no non-2xx and no socket errors from Conduit (wrk phases)',
        ok: conduitNon2xx === 0 && conduitSocketErrors === 0,
        detail: `non-2xx ${conduitNon2xx}, socket errors ${conduitSocketErrors}`,
      },
    ];

    // A graceful stop writes what is left and hands the lease back: the books must still balance.
    const stopStarted = performance.now();
    const exitCode = await stopChild(conduit, 10_000);
    const stopMs = performance.now() - stopStarted;
    const after = await readBooks(database.sql, userId);
    usageChecks.push({
      name: 'after SIGTERM: clean exit, leases returned, Σ ledger = balance',
      ok:
        exitCode === 0 &&
        after.leasedNano === 0n &&
        after.ledgerNano === after.balanceNano &&
        after.usageRows >= stats.other &&
        after.usageRows - stats.other <= conduitConnections,
      detail: `exit ${exitCode} in ${stopMs.toFixed(0)} ms; ${booksLine(after)}; ${after.usageRows} rows for ${stats.other} upstream requests`,
    });
    if (settings.keyLimit !== null) {
      const keyAfter = await readKeyBooks(database.sql, keyId);
      const sameDayAfter = utcDay(Date.now()) === keyDay;
      usageChecks.push({
        name: "after SIGTERM: the key's claims handed back, key limit = budget + the key's spend this period",
        ok: sameDayAfter ? keyAfter.claims === 0 && keyAfter.limitNano === keyAfter.budgetNano + keyAfter.spentNano : null,
        detail: `${sameDayAfter ? '' : 'not judged: the run crossed midnight UTC; '}${keyBooksLine(keyAfter)}`,
      });
    }

    // Deadlocks and transient database errors. PostgreSQL counts a deadlock in the statistics of the backend
    // that lost it, which reports them when it exits at the latest: Conduit has stopped, so wait for its
    // connections to close before reading the counter.
    for (let i = 0; i < 30; i++) {
      const [open] = await database.sql<{ n: string }[]>`
        select count(*)::text as n from pg_stat_activity where datname = ${database.name} and pid <> pg_backend_pid()`;
      if (Number(open?.n ?? 0) <= 1) break; // the bench's own second pooled connection may be open
      await Bun.sleep(100);
    }
    await Bun.sleep(200);
    const deadlocksAfter = await deadlockCounts(database.sql, database.name);
    const pgLogAfter = postgresLogDeadlocks(settings.pgLogDir, database.name);
    // The compared variant's logs too: it wrote to the same database.
    const conduitLogTotal = scanLogs([...conduitLogs, ...variantLogs], []).counts;
    const benchDeadlocks = deadlocksAfter.database - deadlocksBefore.database;
    const dbTrouble = {
      pgStatDeadlocks: { database: [deadlocksBefore.database, deadlocksAfter.database], server: [deadlocksBefore.server, deadlocksAfter.server] },
      postgresLog: pgLogAfter ? { benchDatabase: pgLogAfter.database, allBefore: pgLogBefore?.all ?? null, allAfter: pgLogAfter.all } : null,
      conduitLog: conduitLogTotal,
    };
    usageChecks.push({
      name: 'no deadlock in the bench database (pg_stat_database, PostgreSQL log) and none in Conduit\'s log',
      ok: benchDeadlocks === 0 && (pgLogAfter?.database ?? 0) === 0 && conduitLogTotal.deadlock === 0,
      detail:
        `pg_stat_database.deadlocks ${deadlocksBefore.database} → ${deadlocksAfter.database}; ` +
        `PostgreSQL log: ${pgLogAfter ? `${pgLogAfter.database} 'deadlock detected' lines for this database` : 'not readable'}; ` +
        `Conduit log: ${conduitLogTotal.deadlock} lines naming a deadlock, ${conduitLogTotal.transient} naming a transient database error`,
    });

    const targetVerdicts = verdicts({
      rows,
      slowRows,
      compareRows,
      compareError,
      compareLabel,
      idleRss,
      peakResets,
      latencyResolutionMs: generator.latencyResolutionMs,
      allPricedExactly: priced.wrong === 0 && priced.rows === books.usageRows,
    });
    if (routingOutcome) targetVerdicts.push(...routingVerdicts(routingOutcome, generator.latencyResolutionMs));
    const tableText = table(rows);
    const report = [
      '',
      `Conduit benchmark — ${new Date().toISOString()} — Conduit ${version}`,
      `machine: ${info.nproc} CPUs (${info.cpu}), ${info.memoryGiB} GiB, Linux ${info.kernel}; bun ${info.bun}; ${generator.name}`,
      `phases: ${settings.warmupS} s warm-up + ${settings.durationS} s measured each` +
        (settings.long.length ? ` (${settings.longDurationS} s at ${settings.long.join(', ')} connection${settings.long.length > 1 || settings.long[0] !== 1 ? 's' : ''})` : '') +
        `; request: acme/chat, 2 messages, max_tokens 16; slow streams: ${[...settings.slowStreams.map((n) => `${n} (floor and Conduit)`), ...(settings.slowStreamsMax ? [`${settings.slowStreamsMax} (Conduit)`] : [])].join(', ') || 'none'}`,
      limitsLine,
      `routing (issue 29): ${routingOutcome ? routingDescription() : 'nothing (BENCH_ROUTING empty or no conduit target)'}`,
      `compared: ${compareSource ?? (settings.compare ? `${settings.compare}: not run (${compareError ?? 'no conduit target'})` : 'nothing (BENCH_COMPARE empty)')}`,
      `price table: ${seeded ? `${seeded.rows} rows in model_prices (acme/chat matches ${seeded.benchPattern} at TOKEN_PRICE)` : 'empty (every model at TOKEN_PRICE)'}; ` +
        `bench key: ${settings.keyLimit === null ? 'no spend limit' : `spend limit ${settings.keyLimit} a day (claims in key_leases)`}`,
      '',
      tableText,
      '',
      `The slow end of each measured phase (wrk's p99.9 includes its coordinated-omission samples, see README; "requests > ${settings.slowMs} ms" counts real completed requests only; ` +
        `Conduit usage rows: requests settled in the phase that took longer by Conduit's own clock, reservation included):`,
      '',
      tailTable(rows),
      '',
      'CPU per completed request in the measured phases (from /proc; "other work" is the rest of the machine: the bench, unattributed kernel time, anything foreign — ⚠ marks a phase where it exceeded ' +
        `${OTHER_WORK_WARN_CORES} cores, so the machine was shared and that phase's figures are suspect):`,
      '',
      cpuTable(rows),
      '',
      ...(slowRows.length
        ? [
            'Slow streams (bench/slow-streams.ts; the fake upstream sends the first content 50 ms after the request, then 49 more 20 ms apart, ~1.05 s in all): ' +
              'TTFT from writing the request to the first SSE event with content; connect: until the connection is open; stream: from the write to the end; ' +
              '"open at the upstream at once": the most concurrent slow streams the fake upstream held from that server:',
            '',
            slowTable(slowRows),
            '',
          ]
        : []),
      ...(compareRows.length
        ? [
            `${compareLabel}: Conduit and the variant (${compareSource}) in alternating phases, same load:`,
            '',
            compareTable(compareRows),
            '',
          ]
        : []),
      ...(routingOutcome ? routingSection(routingOutcome) : []),
      `peak RSS (VmHWM): conduit ${mib(conduitPeakRss)} over the whole run (${mib(idleRss)} idle before the load; per phase in the CPU and slow-stream tables), floor ${mib(floorPeakRss)}, fake upstream ${mib(upstreamPeakRss)}`,
      '',
      'database errors:',
      `  deadlocks (pg_stat_database): bench database ${deadlocksBefore.database} → ${deadlocksAfter.database}; whole server ${deadlocksBefore.server} → ${deadlocksAfter.server} (other databases: other people's work)`,
      `  PostgreSQL log (${settings.pgLogDir}): ` +
        (pgLogAfter
          ? `${pgLogAfter.database} 'deadlock detected' lines for ${database.name}; ${pgLogBefore?.all ?? 'n/a'} → ${pgLogAfter.all} for all databases`
          : 'not readable'),
      `  Conduit log: ${conduitLogTotal.deadlock} lines naming a deadlock, ${conduitLogTotal.transient} naming a transient database error, ${conduitLogTotal.warnOrError} warn/error lines in all (${[...conduitLogs, ...variantLogs].join(', ')})`,
      '',
      'targets:',
      ...targetVerdicts.map((v) => `  ${v.ok === null ? 'n/a ' : v.ok ? 'MET ' : 'MISS'}  ${v.name}: ${v.detail}`),
      '',
      'checks:',
      ...usageChecks.map((v) => `  ${v.ok === null ? 'n/a ' : v.ok ? 'OK  ' : 'FAIL'}  ${v.name}: ${v.detail}`),
      '',
      `total time ${((Date.now() - started) / 1000).toFixed(0)} s`,
      '',
    ].join('\n');
    process.stdout.write(report);

    if (settings.jsonOut) {
      writeFileSync(
        settings.jsonOut,
        JSON.stringify(
          {
            date: new Date().toISOString(),
            commit,
            version,
            machine: info,
            generator: generator.name,
            settings,
            priceRows: seeded?.rows ?? 0,
            keyLimit: settings.keyLimit,
            rows,
            slowRows,
            compareRows,
            compareSource,
            routing: routingOutcome,
            limits,
            conduitPeakRss,
            conduitIdleRss: idleRss,
            floorPeakRss,
            drainMs,
            dbTrouble,
            targetVerdicts,
            usageChecks,
          },
          null,
          2,
        ) + '\n',
      );
    }
    if (usageChecks.some((v) => v.ok === false)) failed = true;
    if (settings.strict && targetVerdicts.some((v) => v.ok === false)) failed = true;
  } catch (error) {
    failed = true;
    if (interrupted) return;
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    for (const file of ['conduit.log', 'conduit.err.log']) {
      try {
        const text = readFileSync(join(workDir, file), 'utf8').trim();
        if (text) log(`${file} (last lines):\n${text.split('\n').slice(-20).join('\n')}`);
      } catch {
        // No log yet.
      }
    }
  } finally {
    await cleanup();
    clearTimeout(deadline);
  }
  process.exit(failed ? 1 : 0);
}

void main();
