// Load generators: wrk (Debian's `wrk`) when it is installed, else autocannon (npm). Both report the same
// figures: completed requests, how many were not 2xx, req/s over the measured time, and latency
// percentiles (p50, p99, p99.9) and the maximum in milliseconds. wrk also tells how many completed
// requests took longer than a threshold (autocannon cannot: null).
//
// wrk's percentiles are corrected for coordinated omission: after the run it adds, for every response
// slower than twice the mean interval between requests on one connection (e = duration ÷ (requests ÷
// connections)), synthetic samples at latency − e, latency − 2e, … down to e, standing for the requests
// that connection would have sent meanwhile. One stall of D ms therefore weighs D/e samples, which is why
// a single 1 s stall moves p99.9 (and often p99) while the max says what really happened.
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export interface LoadSpec {
  url: string;
  body: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Where a generator may write its scripts. */
  workDir: string;
  /** Name used for script files. */
  tag: string;
  /** Completed requests slower than this (ms) are counted, where the generator can tell. */
  slowMs: number;
  /**
   * A pause (ms) on each connection between an answer and the next request, not part of the latency
   * (wrk's delay(); autocannon has none and ignores it): a paced load instead of back to back.
   */
  delayMs?: number;
}

export interface LoadResult {
  requests: number;
  /** Completed responses whose status was not 2xx. */
  non2xx: number;
  /** Socket errors and timeouts (requests that got no complete response). */
  socketErrors: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Completed requests slower than spec.slowMs, real ones only (wrk); null when the generator cannot tell. */
  slowRequests: number | null;
  /** CPU time the generator itself used (user + system), in seconds. */
  generatorCpuS: number;
}

export interface LoadGenerator {
  name: string;
  /** The finest latency step the generator records: wrk keeps microseconds, autocannon whole milliseconds. */
  latencyResolutionMs: number;
  run(spec: LoadSpec, track: (proc: Bun.Subprocess) => void): Promise<LoadResult>;
}

const luaString = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

function wrkScript(spec: LoadSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`)
    .join('\n');
  // done() runs once after the run; its line is what we parse (latency figures are in microseconds).
  //
  // Requests slower than SLOW_US, from wrk's latency histogram: latency(i) is the i-th distinct latency
  // (µs) and how many samples had it. The histogram holds the coordinated-omission samples (see the head
  // of this file): for a latency m > e, samples(m) = real(m) + real(m + e) + real(m + 2e) + …, so
  // real(m) = samples(m) − samples(m + e), and the real requests slower than T ≥ e add up to the samples
  // in (T, T + e] (below e nothing was added). latency(i) scans the histogram from its minimum, so the
  // window is found by bisection and only the samples inside it are visited.
  const delay = spec.delayMs && spec.delayMs > 0 ? `function delay() return ${Math.round(spec.delayMs)} end\n` : '';
  return `wrk.method = "POST"
wrk.body = ${luaString(spec.body)}
${headers}
${delay}local CONNECTIONS = ${Math.max(1, Math.floor(spec.connections))}
local SLOW_US = ${Math.round(spec.slowMs * 1000)}
local function slow_requests(summary, latency)
  local n = #latency
  if n == 0 or latency.max <= SLOW_US then return 0 end
  local per_connection = math.floor(summary.requests / CONNECTIONS)
  local upper = latency.max
  if per_connection > 0 then
    local e = math.floor(summary.duration / per_connection)
    upper = math.max(SLOW_US, e) + e
  end
  local lo, hi = 1, n
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if latency(mid) > SLOW_US then hi = mid else lo = mid + 1 end
  end
  local count = 0
  for i = lo, n do
    local v, c = latency(i)
    if v > upper then break end
    if v > SLOW_US then count = count + c end
  end
  return count
end
done = function(summary, latency, requests)
  local e = summary.errors
  local ok, slow = pcall(slow_requests, summary, latency)
  if not ok then slow = -1 end
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%.1f,"p99":%.1f,"p999":%.1f,"max":%.1f,"slow":%d}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max, slow))
end
`;
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

async function collect(proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>): Promise<{ out: string; err: string; code: number; cpuS: number }> {
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const cpu = proc.resourceUsage()?.cpuTime;
  return { out, err, code, cpuS: cpu ? Number(cpu.total) / 1e6 : 0 };
}

export function wrkGenerator(binary: string): LoadGenerator {
  return {
    name: `wrk (${binary})`,
    latencyResolutionMs: 0.001,
    async run(spec, track) {
      const script = join(spec.workDir, `${spec.tag}.lua`);
      writeFileSync(script, wrkScript(spec));
      // One thread: on a small machine the generator should take as little CPU from the servers as it can.
      const proc = Bun.spawn([binary, '-t1', `-c${spec.connections}`, `-d${spec.durationSeconds}s`, '--timeout', '10s', '-s', script, spec.url], {
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      track(proc);
      const { out, err, code, cpuS } = await collect(proc);
      const line = out.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
      if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}): ${err || out}`);
      const r = JSON.parse(line.slice('BENCH_RESULT '.length)) as Record<string, number>;
      const seconds = r.duration_us! / 1e6;
      return {
        requests: r.requests!,
        non2xx: r.status!,
        socketErrors: r.connect! + r.read! + r.write! + r.timeout!,
        rps: r.requests! / seconds,
        p50Ms: r.p50! / 1000,
        p99Ms: r.p99! / 1000,
        p999Ms: r.p999! / 1000,
        maxMs: r.max! / 1000,
        // -1: the histogram walk failed (an older wrk without latency(i)); the figure is then unknown.
        slowRequests: r.slow! >= 0 ? r.slow! : null,
        generatorCpuS: cpuS,
      };
    },
  };
}

export function autocannonGenerator(entry: string, node: string): LoadGenerator {
  return {
    name: `autocannon (${entry})`,
    latencyResolutionMs: 1,
    async run(spec, track) {
      const headerArgs = Object.entries(spec.headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
      const proc = Bun.spawn(
        [node, entry, '-m', 'POST', ...headerArgs, '-b', spec.body, '-c', String(spec.connections), '-d', String(spec.durationSeconds), '-t', '10', '-j', spec.url],
        { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
      );
      track(proc);
      const { out, err, code, cpuS } = await collect(proc);
      const start = out.indexOf('{');
      if (code !== 0 || start < 0) throw new Error(`autocannon failed (exit ${code}): ${err || out}`);
      const r = JSON.parse(out.slice(start)) as {
        duration: number;
        requests: { total: number };
        latency: { p50: number; p99: number; p99_9?: number; max: number };
        non2xx: number;
        errors: number;
        timeouts: number;
      };
      return {
        requests: r.requests.total,
        non2xx: r.non2xx,
        socketErrors: r.errors + r.timeouts,
        rps: r.requests.total / r.duration,
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        p999Ms: r.latency.p99_9 ?? Number.NaN,
        maxMs: r.latency.max,
        slowRequests: null,
        generatorCpuS: cpuS,
      };
    },
  };
}

/**
 * wrk if it is on PATH (or BENCH_LOADGEN=wrk), else autocannon from node_modules (or AUTOCANNON_ENTRY).
 * BENCH_LOADGEN=autocannon forces the fallback.
 */
export function pickLoadGenerator(env: Record<string, string | undefined>, repoRoot: string): LoadGenerator {
  const wanted = env.BENCH_LOADGEN;
  if (wanted !== 'autocannon') {
    const wrk = which('wrk');
    if (wrk) return wrkGenerator(wrk);
    if (wanted === 'wrk') throw new Error('BENCH_LOADGEN=wrk but wrk is not on PATH (apt-get install -y wrk)');
  }
  let entry = env.AUTOCANNON_ENTRY;
  if (!entry) {
    try {
      entry = createRequire(join(repoRoot, 'package.json')).resolve('autocannon/autocannon.js');
    } catch {
      throw new Error(
        'No load generator: install wrk (apt-get install -y wrk) or add autocannon to devDependencies ' +
          '(npm install --save-dev autocannon), or point AUTOCANNON_ENTRY at autocannon.js',
      );
    }
  }
  const node = env.BENCH_NODE ?? which('node');
  if (!node) throw new Error('autocannon needs Node.js on PATH (or BENCH_NODE)');
  return autocannonGenerator(entry, node);
}
