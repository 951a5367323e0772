// `npm run bench:pglite-tail`: what the embedded default (no DATABASE_URL: PGlite inside the Bun process)
// adds to latency at low concurrency, against the floor (issue 46, point 5: added p99 ≤ 5 ms at c=4).
// `npm run bench` cannot measure it: it tops the balance up and checks the books in SQL through its own
// PostgreSQL database, which a PGlite instance does not have.
//
// Starts the fake upstream, the floor (bench/floor.ts, the fetch limit Conduit gives itself) and Conduit
// (`bun src/index.ts`) on a fresh DATA_DIR of its own; with PGTAIL_REF also a second Conduit exported from
// that commit (`git archive`, as bench:compare does) on another DATA_DIR. Each Conduit registers a user (the
// registration bonus pays: there is no SQL access from outside) and a key over HTTP. Then PGTAIL_ROUNDS
// rounds, each: the floor, then every Conduit (their order reversed every other round, so a drift of the
// machine falls on both), each a PGTAIL_WARMUP warm-up (discarded) and a PGTAIL_DURATION measured run of
// plain requests at PGTAIL_CONNECTIONS connections with wrk. Prints, per phase, req/s, p50/p99/p99.9/max,
// requests over 50 ms, the server's CPU µs per request and the machine's load average; then per Conduit
// the medians of its added p50 and p99 over the floor of the same round.
//
// Checks, per Conduit: no non-2xx and no socket errors; every answered request has its usage row
// (GET /api/usage totals, flushed first); and the books: the bonus minus the rows' cost is the balance
// GET /api/balance shows (leases included). Exit 1 when a check fails.
//
// Knobs: PGTAIL_DURATION (30 s), PGTAIL_WARMUP (3 s), PGTAIL_CONNECTIONS (4), PGTAIL_ROUNDS (2),
// PGTAIL_REF (a commit to measure beside the working tree), PGTAIL_CONDUIT_ENV (`NAME=value,…`, given to
// the working tree's Conduit only, e.g. to try a setting), PGTAIL_BUN_ARGS (bun's arguments for that one,
// e.g. `--cpu-prof`), PGTAIL_JSON (write the figures there too).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pickLoadGenerator, type LoadResult } from './loadgen';
import { CLOCK_TICKS_PER_SECOND, cpuTicks, freePort, startReadyChild, stopChild, waitForHttp, withOpenFiles, type Child, conduitEnv } from './processes';
import { pairs, requestBody } from './settings';

const REPO = resolve(import.meta.dir, '..');
const env = process.env;
const settings = {
  durationS: Number(env.PGTAIL_DURATION ?? 30),
  warmupS: Number(env.PGTAIL_WARMUP ?? 3),
  connections: Number(env.PGTAIL_CONNECTIONS ?? 4),
  rounds: Number(env.PGTAIL_ROUNDS ?? 2),
  ref: env.PGTAIL_REF?.trim() || null,
  conduitEnv: pairs(env.PGTAIL_CONDUIT_ENV),
  bunArgs: (env.PGTAIL_BUN_ARGS ?? '').split(/\s+/).filter(Boolean),
  jsonOut: env.PGTAIL_JSON,
};
for (const [name, value] of [
  ['PGTAIL_DURATION', settings.durationS],
  ['PGTAIL_WARMUP', settings.warmupS],
  ['PGTAIL_CONNECTIONS', settings.connections],
  ['PGTAIL_ROUNDS', settings.rounds],
] as const) {
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name}: a number above 0, not ${env[name]}`);
}

/** Issue 46, point 5. */
const TARGET_ADDED_P99_MS = 5;
const BONUS = 100_000;
const FETCH_LIMIT = 4096;
const log = (msg: string) => process.stderr.write(`[pglite-tail ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** The bench's plain request (bench/run.ts). */
const BODY = requestBody('plain');

async function request(url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await fetch(url, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as any;
}

function git(...args: string[]): { ok: boolean; out: string } {
  const r = Bun.spawnSync(['git', ...args], { cwd: REPO, stdout: 'pipe', stderr: 'pipe' });
  return { ok: r.exitCode === 0, out: r.stdout.toString().trim() };
}

/** `ref` exported into dir (inside the repository, so its node_modules serve the copy). */
function exportRef(ref: string, dir: string): string {
  const sha = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  if (!sha.ok) throw new Error(`PGTAIL_REF=${ref} is not a commit`);
  mkdirSync(dir, { recursive: true });
  const archive = Bun.spawnSync(['git', 'archive', '--format=tar', sha.out, 'src', 'drizzle', 'package.json', 'tsconfig.json'], { cwd: REPO, stdout: 'pipe' });
  if (archive.exitCode !== 0) throw new Error(`git archive ${ref} failed`);
  if (Bun.spawnSync(['tar', '-x', '-C', dir], { stdin: archive.stdout }).exitCode !== 0) throw new Error(`could not unpack ${ref}`);
  return git('rev-parse', '--short', sha.out).out;
}

interface Instance {
  name: string;
  child: Child;
  url: string;
  token: string;
  key: string;
  answered: number;
}

interface Phase {
  round: number;
  target: string;
  result: LoadResult;
  cpuUsPerRequest: number;
  load1: number;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main() {
  const workDir = join(REPO, 'bench', '.tmp', `pglite-tail-${process.pid}`);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const children: Child[] = [];
  const loadProcs = new Set<Bun.Subprocess>();
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const p of loadProcs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      for (const child of children.reverse()) await stopChild(child, 15_000).catch(() => {});
      rmSync(workDir, { recursive: true, force: true });
    })());
  const targets = settings.ref ? 3 : 2;
  const deadlineS = Math.ceil(180 + settings.rounds * targets * (settings.durationS + settings.warmupS + 5));
  const deadline = setTimeout(() => {
    log(`deadline of ${deadlineS} s passed; stopping`);
    void cleanup().finally(() => process.exit(2));
  }, deadlineS * 1000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)));

  let failed = false;
  try {
    const generator = pickLoadGenerator(env, REPO);
    if (generator.latencyResolutionMs > 0.01) log(`WARNING: ${generator.name} records whole milliseconds; the added p99 is rough`);
    const bun = process.execPath;
    const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp' };
    const fake = await startReadyChild('fake upstream', withOpenFiles([bun, join(REPO, 'bench', 'fake-upstream.ts')], 65_536), baseEnv);
    children.push(fake.child);
    const floor = await startReadyChild('floor', withOpenFiles([bun, join(REPO, 'bench', 'floor.ts')], 65_536), {
      ...baseEnv,
      UPSTREAM_URL: `http://127.0.0.1:${fake.port}/v1/chat/completions`,
      BUN_CONFIG_MAX_HTTP_REQUESTS: String(FETCH_LIMIT),
    });
    children.push(floor.child);

    const head = git('rev-parse', '--short', 'HEAD').out;
    const dirty = git('status', '--porcelain', '--', 'src', 'drizzle').out !== '';
    const sources = [{ name: `working tree (${head}${dirty ? ' + changes' : ''})`, dir: REPO, extra: settings.conduitEnv }];
    if (settings.ref) {
      const dir = join(workDir, 'ref');
      const short = exportRef(settings.ref, dir);
      sources.push({ name: `${settings.ref} (${short})`, dir, extra: {} });
    }

    const instances: Instance[] = [];
    for (const [i, source] of sources.entries()) {
      const port = freePort();
      const proc = Bun.spawn(withOpenFiles([bun, ...(i === 0 ? settings.bunArgs : []), 'src/index.ts'], 65_536), {
        cwd: source.dir,
        env: {
          ...baseEnv,
          // No DATABASE_URL: the embedded default, in a DATA_DIR of its own that starts empty.
          ...conduitEnv(port),
          DATA_DIR: join(workDir, `data-${i}`),
          UPSTREAM_BASE_URL: `http://127.0.0.1:${fake.port}/v1`,
          LOG_REQUESTS: 'false',
          LOG_LEVEL: 'warn',
          REGISTRATION_BONUS: String(BONUS),
          ...source.extra,
        },
        stdin: 'ignore',
        stdout: Bun.file(join(workDir, `conduit-${i}.log`)),
        stderr: Bun.file(join(workDir, `conduit-${i}.err.log`)),
      });
      const child: Child = { name: source.name, proc, pid: proc.pid };
      children.push(child);
      const url = `http://127.0.0.1:${port}`;
      await waitForHttp(`${url}/health`, 90_000, () => proc.exitCode === null && proc.signalCode === null);
      const registered = await request(`${url}/api/auth/register`, { body: { email: `pgtail-${i}-${Date.now()}@example.com`, password: 'bench-password-1' } });
      const key = (await request(`${url}/api/keys`, { body: { name: 'bench' }, token: registered.token })).key as string;
      const sanity = await request(`${url}/v1/chat/completions`, { body: BODY, token: key });
      if (!Array.isArray(sanity.choices)) throw new Error(`sanity: ${JSON.stringify(sanity).slice(0, 300)}`);
      instances.push({ name: source.name, child, url, token: registered.token, key, answered: 1 });
      log(`conduit ${source.name}: pid ${proc.pid} on ${url}`);
    }

    const phases: Phase[] = [];
    const drive = async (round: number, target: string, url: string, pid: number, key: string | null) => {
      const spec = (seconds: number, tag: string) => ({
        url: `${url}/v1/chat/completions`,
        body: BODY,
        headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
        connections: settings.connections,
        durationSeconds: seconds,
        workDir,
        tag,
        slowMs: 50,
      });
      const warm = await generator.run(spec(settings.warmupS, 'warmup'), (p) => loadProcs.add(p));
      const cpuBefore = cpuTicks(pid);
      const result = await generator.run(spec(settings.durationS, 'measured'), (p) => loadProcs.add(p));
      const cpuS = (cpuTicks(pid) - cpuBefore) / CLOCK_TICKS_PER_SECOND;
      const phase = { round, target, result, cpuUsPerRequest: (cpuS * 1e6) / Math.max(1, result.requests), load1: loadavg()[0]! };
      phases.push(phase);
      log(
        `round ${round} ${target}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, ` +
          `p99.9 ${result.p999Ms.toFixed(2)} ms, max ${result.maxMs.toFixed(1)} ms, ${phase.cpuUsPerRequest.toFixed(0)} µs/req; load ${phase.load1.toFixed(2)}`,
      );
      return warm.requests - warm.non2xx + result.requests - result.non2xx;
    };
    for (let round = 1; round <= settings.rounds; round++) {
      await drive(round, 'floor', `http://127.0.0.1:${floor.port}`, floor.child.pid, null);
      const order = round % 2 === 1 ? instances : [...instances].reverse();
      for (const instance of order) instance.answered += await drive(round, instance.name, instance.url, instance.child.pid, instance.key);
    }

    const checks: { name: string; ok: boolean; detail: string }[] = [];
    for (const instance of instances) {
      const mine = phases.filter((p) => p.target === instance.name);
      const errors = mine.reduce((n, p) => n + p.result.non2xx + p.result.socketErrors, 0);
      checks.push({ name: `${instance.name}: no non-2xx answers and no socket errors`, ok: errors === 0, detail: `${errors}` });
      const usage = await request(`${instance.url}/api/usage?limit=1`, { token: instance.token });
      const rows = Number(usage.totals.requests);
      checks.push({
        name: `${instance.name}: every answered request has its usage row (at most one more per connection cut off at the end of a phase)`,
        ok: rows >= instance.answered && rows <= instance.answered + settings.connections * settings.rounds * 2,
        detail: `${rows} rows for ${instance.answered} answered requests`,
      });
      const balance = Number((await request(`${instance.url}/api/balance`, { token: instance.token })).balance);
      const expected = BONUS - Number(usage.totals.cost);
      checks.push({
        name: `${instance.name}: bonus − Σ usage cost = balance (leases included)`,
        ok: Math.abs(balance - expected) < 1e-6,
        detail: `${balance} vs ${expected}`,
      });
    }

    const lines = [
      '',
      `PGlite tail — ${new Date().toISOString()} — bun ${Bun.version}; plain, c=${settings.connections}, ${settings.durationS} s a phase (${generator.name}), ${settings.rounds} rounds`,
      '',
      '| round | target | req/s | p50 ms | p99 ms | p99.9 ms | max ms | over 50 ms | CPU µs/req | load (1 min) |',
      '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...phases.map(
        (p) =>
          `| ${p.round} | ${p.target} | ${p.result.rps.toFixed(0)} | ${p.result.p50Ms.toFixed(2)} | ${p.result.p99Ms.toFixed(2)} | ${p.result.p999Ms.toFixed(2)} | ` +
          `${p.result.maxMs.toFixed(1)} | ${p.result.slowRequests ?? 'n/a'} | ${p.cpuUsPerRequest.toFixed(0)} | ${p.load1.toFixed(2)} |`,
      ),
      '',
      `| Conduit on PGlite | added p50 (median of rounds) | added p99 (median) | added p99 per round | target p99 ≤ +${TARGET_ADDED_P99_MS} ms |`,
      '|---|---:|---:|---|---|',
    ];
    const summary: Record<string, { addedP50Ms: number; addedP99Ms: number; perRound: number[] }> = {};
    for (const instance of instances) {
      const added50: number[] = [];
      const added99: number[] = [];
      for (let round = 1; round <= settings.rounds; round++) {
        const f = phases.find((p) => p.round === round && p.target === 'floor')!.result;
        const c = phases.find((p) => p.round === round && p.target === instance.name)!.result;
        added50.push(c.p50Ms - f.p50Ms);
        added99.push(c.p99Ms - f.p99Ms);
      }
      summary[instance.name] = { addedP50Ms: median(added50), addedP99Ms: median(added99), perRound: added99 };
      lines.push(
        `| ${instance.name} | +${median(added50).toFixed(2)} | +${median(added99).toFixed(2)} | ${added99.map((v) => `+${v.toFixed(2)}`).join(', ')} | ` +
          `${median(added99) <= TARGET_ADDED_P99_MS ? 'MET' : 'MISS'} |`,
      );
    }
    lines.push('', 'checks:', ...checks.map((c) => `  ${c.ok ? 'OK  ' : 'FAIL'}  ${c.name}: ${c.detail}`), '');
    process.stdout.write(lines.join('\n'));
    if (settings.jsonOut) writeFileSync(settings.jsonOut, `${JSON.stringify({ settings, phases, summary, checks }, null, 2)}\n`);
    if (checks.some((c) => !c.ok)) failed = true;
  } catch (error) {
    failed = true;
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await cleanup();
    clearTimeout(deadline);
  }
  process.exit(failed ? 1 : 0);
}

void main();
