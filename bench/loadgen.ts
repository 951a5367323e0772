// Load generators: wrk (Debian's `wrk`) when it is installed, else autocannon (npm). Both report the same
// figures: completed requests, how many were not 2xx, req/s over the measured time, and latency
// percentiles in milliseconds.
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
  maxMs: number;
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
  return `wrk.method = "POST"
wrk.body = ${luaString(spec.body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%.1f,"p99":%.1f,"max":%.1f}\\n',
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;
}

function which(command: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return null;
}

async function collect(
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>,
): Promise<{ out: string; err: string; code: number; cpuS: number }> {
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
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
      const proc = Bun.spawn(
        [binary, '-t1', `-c${spec.connections}`, `-d${spec.durationSeconds}s`, '--timeout', '10s', '-s', script, spec.url],
        { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
      );
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
        maxMs: r.max! / 1000,
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
        [
          node,
          entry,
          '-m',
          'POST',
          ...headerArgs,
          '-b',
          spec.body,
          '-c',
          String(spec.connections),
          '-d',
          String(spec.durationSeconds),
          '-t',
          '10',
          '-j',
          spec.url,
        ],
        { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' },
      );
      track(proc);
      const { out, err, code, cpuS } = await collect(proc);
      const start = out.indexOf('{');
      if (code !== 0 || start < 0) throw new Error(`autocannon failed (exit ${code}): ${err || out}`);
      const r = JSON.parse(out.slice(start)) as {
        duration: number;
        requests: { total: number };
        latency: { p50: number; p99: number; max: number };
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
        maxMs: r.latency.max,
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
