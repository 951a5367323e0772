// `npm run bench:pglite-memory`: how much memory the embedded default (no DATABASE_URL: PGlite in the Bun
// process) takes, idle and under the bench's plain c=64 load (issue 30, point 6: peak ≤ 400 MB, idle ≤ 250 MB).
//
// Starts the fake upstream and Conduit (`bun src/index.ts`, what `npm start` runs after its dashboard build
// check, which is a separate process) on a fresh DATA_DIR, registers a user and a key over HTTP, lets it
// settle, then drives plain requests with wrk (bench/loadgen.ts) and samples Conduit's /proc/<pid>/status
// every 100 ms throughout. Prints:
//   idle after start   RSS once started, one request of each kind served and PGMEM_IDLE seconds of quiet
//   peak under load    VmHWM reset right before the load (clear_refs) and read right after it
//   peak since start   VmHWM over the whole life (start-up and migrations included)
//   idle after load    RSS PGMEM_IDLE seconds after the load ended
// and checks that every answered request left its usage row (GET /api/usage totals), so a setting that
// saves memory by losing writes cannot pass unnoticed.
//
// Knobs: PGMEM_DURATION (30 s), PGMEM_CONNECTIONS (64), PGMEM_IDLE (10 s), PGMEM_CONDUIT_ENV
// (`NAME=value,NAME=value`, e.g. to try a setting), PGMEM_BUN_ARGS (e.g. `--smol`), PGMEM_JSON (write the
// figures there too), PGMEM_RESTART=1 (measure a later start: a first start makes the cluster and is stopped,
// its peak printed, then the measured start finds the cluster), PGMEM_SMAPS=1 (also list Conduit's largest mappings at the end of the load: PGlite's
// WASM memory is one anonymous mapping of its size, the JS heap another, JIT code an rwx one). Exit code 1 when a check fails; PGMEM_STRICT=1 also on a missed target.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pickLoadGenerator, type LoadResult } from './loadgen';
import { freePort, peakRssBytes, resetPeakRss, rssBytes, startReadyChild, stopChild, waitForHttp, withOpenFiles, type Child, conduitEnv } from './processes';
import { pairs, requestBody } from './settings';

const REPO = resolve(import.meta.dir, '..');
const env = process.env;
const settings = {
  durationS: Number(env.PGMEM_DURATION ?? 30),
  connections: Number(env.PGMEM_CONNECTIONS ?? 64),
  idleS: Number(env.PGMEM_IDLE ?? 10),
  conduitEnv: pairs(env.PGMEM_CONDUIT_ENV),
  bunArgs: (env.PGMEM_BUN_ARGS ?? '').split(/\s+/).filter(Boolean),
  jsonOut: env.PGMEM_JSON,
  /** Also print Conduit's largest memory mappings when the load ends (where the resident memory is). */
  smaps: env.PGMEM_SMAPS === '1',
  strict: env.PGMEM_STRICT === '1',
  /** Measure a later start: the cluster is made by a first start that is stopped before the measured one. */
  restart: env.PGMEM_RESTART === '1',
};
for (const [name, value] of [
  ['PGMEM_DURATION', settings.durationS],
  ['PGMEM_CONNECTIONS', settings.connections],
  ['PGMEM_IDLE', settings.idleS],
] as const) {
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name}: a number above 0, not ${env[name]}`);
}

/** Issue 30, point 6. */
const TARGETS = { peakMiB: 400, idleMiB: 250 };
const MiB = 1024 * 1024;
const mib = (bytes: number | null) => (bytes === null ? 'n/a' : `${(bytes / MiB).toFixed(1)} MiB`);
const log = (msg: string) => process.stderr.write(`[pglite-memory ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** The bench's plain request (bench/run.ts). */
const BODY = requestBody('plain');

async function request(url: string, init: { method?: string; body?: unknown; token?: string } = {}) {
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  if (res.status !== 200 && res.status !== 201) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as any;
}

/** RSS samples every 100 ms, each with the phase it was taken in. */
class Sampler {
  readonly samples: { atMs: number; phase: string; rss: number }[] = [];
  phase = 'start';
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly t0 = performance.now();
  constructor(private readonly pid: number) {}
  start() {
    this.timer = setInterval(() => {
      const rss = rssBytes(this.pid);
      if (rss !== null) this.samples.push({ atMs: performance.now() - this.t0, phase: this.phase, rss });
    }, 100);
  }
  stop() {
    if (this.timer) clearInterval(this.timer);
  }
  max(phase: string): number | null {
    const of = this.samples.filter((s) => s.phase === phase).map((s) => s.rss);
    return of.length ? Math.max(...of) : null;
  }
  /** The last second's median of a phase: what it settled at, not one sample's accident. */
  settled(phase: string): number | null {
    const of = this.samples.filter((s) => s.phase === phase);
    if (!of.length) return null;
    const last = of
      .filter((s) => s.atMs >= of[of.length - 1]!.atMs - 1000)
      .map((s) => s.rss)
      .sort((a, b) => a - b);
    return last[Math.floor(last.length / 2)]!;
  }
}

/** The n mappings of a process with the most resident memory, as `rss MiB of size MiB  perms name`. */
function largestMappings(pid: number, n: number): string[] {
  let text = '';
  try {
    text = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  } catch {
    return [];
  }
  const maps: { head: string[]; sizeKb: number; rssKb: number }[] = [];
  for (const line of text.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) maps.push({ head: line.split(/\s+/), sizeKb: 0, rssKb: 0 });
    else if (line.startsWith('Size:')) maps[maps.length - 1]!.sizeKb = Number(line.split(/\s+/)[1]);
    else if (line.startsWith('Rss:')) maps[maps.length - 1]!.rssKb = Number(line.split(/\s+/)[1]);
  }
  return maps
    .sort((a, b) => b.rssKb - a.rssKb)
    .slice(0, n)
    .map((m) => `${(m.rssKb / 1024).toFixed(0)} MiB of ${(m.sizeKb / 1024).toFixed(0)} MiB  ${m.head[1]} ${m.head.slice(5).join(' ') || '[anonymous]'}`);
}

async function main() {
  const workDir = join(REPO, 'bench', '.tmp', `pglite-memory-${process.pid}`);
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  const dataDir = join(workDir, 'data');
  const children: Child[] = [];
  const loadProcs = new Set<Bun.Subprocess>();
  let cleaning: Promise<void> | null = null;
  const cleanup = () =>
    (cleaning ??= (async () => {
      for (const p of loadProcs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      for (const child of children.reverse()) await stopChild(child, 10_000).catch(() => {});
      rmSync(workDir, { recursive: true, force: true });
    })());
  // Bounded whatever happens: start, idles, the load and the stop, with room.
  const deadlineS = Math.ceil(120 + settings.durationS * 1.5 + settings.idleS * 2);
  const deadline = setTimeout(() => {
    log(`deadline of ${deadlineS} s passed; stopping`);
    void cleanup().finally(() => process.exit(2));
  }, deadlineS * 1000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void cleanup().finally(() => process.exit(130)));
  }

  let failed = false;
  try {
    const generator = pickLoadGenerator(env, REPO);
    const bun = process.execPath;
    const baseEnv = { PATH: env.PATH ?? '/usr/bin:/bin', HOME: env.HOME ?? '/tmp' };
    const fake = await startReadyChild('fake upstream', withOpenFiles([bun, join(REPO, 'bench', 'fake-upstream.ts')], 65_536), baseEnv);
    children.push(fake.child);

    const secrets = { JWT_SECRET: randomBytes(48).toString('base64url'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    const spawnConduit = (port: number, name: string) =>
      Bun.spawn(withOpenFiles([bun, ...settings.bunArgs, 'src/index.ts'], 65_536), {
        cwd: REPO,
        env: {
          ...baseEnv,
          // No DATABASE_URL: the embedded default, in a DATA_DIR of its own that starts empty.
          ...conduitEnv(port),
          DATA_DIR: dataDir,
          ...secrets,
          UPSTREAM_BASE_URL: `http://127.0.0.1:${fake.port}/v1`,
          LOG_REQUESTS: 'false',
          LOG_LEVEL: 'warn',
          // The bench cannot top the balance up in SQL here (the database is inside Conduit): the bonus pays.
          REGISTRATION_BONUS: '100000',
          ...settings.conduitEnv,
        },
        stdin: 'ignore',
        stdout: Bun.file(join(workDir, `${name}.log`)),
        stderr: Bun.file(join(workDir, `${name}.err.log`)),
      });

    // PGMEM_RESTART=1: a first start makes the cluster and stops; the measured start finds it (a later `npm start`).
    let firstStartPeak: number | null = null;
    if (settings.restart) {
      const port = freePort();
      const first = spawnConduit(port, 'first');
      const child: Child = { name: 'first start', proc: first, pid: first.pid };
      children.push(child);
      await waitForHttp(`http://127.0.0.1:${port}/health`, 60_000, () => first.exitCode === null && first.signalCode === null);
      firstStartPeak = peakRssBytes(first.pid);
      const code = await stopChild(child, 15_000);
      if (code !== 0) throw new Error(`the first start exited with ${code} on SIGTERM`);
      log(`first start (cluster made): peak ${mib(firstStartPeak)}; now the measured start on the same DATA_DIR`);
    }

    const port = freePort();
    const startedAt = performance.now();
    const proc = spawnConduit(port, 'conduit');
    const conduit: Child = { name: 'conduit', proc, pid: proc.pid };
    children.push(conduit);
    const sampler = new Sampler(proc.pid);
    sampler.start();
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/health`, 60_000, () => proc.exitCode === null && proc.signalCode === null);
    const startMs = performance.now() - startedAt;
    log(`conduit pid ${proc.pid} on ${url} (PGlite in ${dataDir}), ready in ${(startMs / 1000).toFixed(1)} s; ${generator.name}`);

    const registered = await request(`${url}/api/auth/register`, { body: { email: `pgmem-${Date.now()}@example.com`, password: 'bench-password-1' } });
    const key = (await request(`${url}/api/keys`, { body: { name: 'bench' }, token: registered.token })).key as string;
    const sanity = await request(`${url}/v1/chat/completions`, { body: BODY, token: key });
    if (!Array.isArray(sanity.choices)) throw new Error(`sanity: ${JSON.stringify(sanity).slice(0, 300)}`);

    sampler.phase = 'idle-start';
    await Bun.sleep(settings.idleS * 1000);
    const idleStart = sampler.settled('idle-start');
    log(`idle after start: ${mib(idleStart)}`);

    sampler.phase = 'load';
    // The settlement backlog (usage rows answered but not yet written), once a second from GET /metrics: rows
    // waiting in memory are what grows when the embedded database cannot keep up with the writes.
    const backlog: { atS: number; rows: number; rssMiB: number }[] = [];
    const loadStarted = performance.now();
    const backlogTimer = setInterval(() => {
      void fetch(`${url}/metrics`, { signal: AbortSignal.timeout(900) })
        .then((r) => r.text())
        .then((text) => {
          const rows = Number(/^conduit_settlement_backlog_rows (\d+)/m.exec(text)?.[1] ?? NaN);
          backlog.push({ atS: Math.round((performance.now() - loadStarted) / 100) / 10, rows, rssMiB: Math.round((rssBytes(proc.pid) ?? 0) / MiB) });
        })
        .catch(() => {});
    }, 1000);
    const peakSinceStartBefore = peakRssBytes(proc.pid);
    const resets = resetPeakRss(proc.pid);
    const load: LoadResult = await generator.run(
      {
        url: `${url}/v1/chat/completions`,
        body: BODY,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        connections: settings.connections,
        durationSeconds: settings.durationS,
        workDir,
        tag: 'pglite-memory',
        slowMs: 50,
      },
      (p) => loadProcs.add(p),
    );
    clearInterval(backlogTimer);
    const peakLoad = resets ? peakRssBytes(proc.pid) : sampler.max('load');
    const maxBacklog = backlog.reduce((n, b) => (Number.isFinite(b.rows) ? Math.max(n, b.rows) : n), 0);
    const mappings = settings.smaps ? largestMappings(proc.pid, 8) : [];
    log(`load: ${load.requests} requests, ${load.rps.toFixed(0)} req/s, p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms; peak ${mib(peakLoad)}`);

    sampler.phase = 'idle-after';
    await Bun.sleep(settings.idleS * 1000);
    const idleAfter = sampler.settled('idle-after');
    const peakSinceStart = Math.max(peakSinceStartBefore ?? 0, peakRssBytes(proc.pid) ?? 0);
    sampler.stop();

    // Every answered request has its row: the totals over all of the user's usage (flushed first by the API).
    const usage = await request(`${url}/api/usage?limit=1`, { token: registered.token });
    const rows = Number(usage.totals.requests);
    const answered = load.requests - load.non2xx + 1; // + the sanity request
    const rowsOk = rows >= answered && rows <= answered + settings.connections;
    const exit = await stopChild(conduit, 15_000);

    const checks = [
      {
        name: 'no non-2xx answers and no socket errors under load',
        ok: load.non2xx === 0 && load.socketErrors === 0,
        detail: `non-2xx ${load.non2xx}, socket errors ${load.socketErrors}`,
      },
      {
        name: 'every answered request has its usage row (at most one more per connection cut off at the end)',
        ok: rowsOk,
        detail: `${rows} rows for ${answered} answered requests`,
      },
      { name: 'clean exit on SIGTERM', ok: exit === 0, detail: `exit ${exit}` },
    ];
    const targets = [
      {
        name: `peak RSS ≤ ${TARGETS.peakMiB} MB under plain c=${settings.connections}`,
        ok: peakLoad !== null && peakLoad <= TARGETS.peakMiB * MiB,
        detail: mib(peakLoad),
      },
      {
        name: `idle RSS ≤ ${TARGETS.idleMiB} MB`,
        ok: idleStart !== null && idleStart <= TARGETS.idleMiB * MiB,
        detail: `${mib(idleStart)} after start, ${mib(idleAfter)} after the load`,
      },
    ];
    const extra = Object.entries(settings.conduitEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    process.stdout.write(
      [
        '',
        `PGlite memory — ${new Date().toISOString()} — commit ${Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { cwd: REPO }).stdout.toString().trim()}` +
          `; bun ${Bun.version}${settings.bunArgs.length ? ` ${settings.bunArgs.join(' ')}` : ''}${extra ? `; ${extra}` : ''}`,
        `load: plain, c=${settings.connections}, ${settings.durationS} s (${generator.name}): ${load.requests} requests, ${load.rps.toFixed(0)} req/s, ` +
          `p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms, max ${load.maxMs.toFixed(1)} ms`,
        `${settings.restart ? `a later start on the same DATA_DIR; the first start, which made the cluster, peaked at ${mib(firstStartPeak)}` : 'a first start: the cluster is made (initdb) in a new DATA_DIR'}`,
        `settlement backlog during the load (GET /metrics, once a second): at most ${maxBacklog} rows; ` +
          backlog
            .filter((_, i) => i % 5 === 4)
            .map((b) => `${b.atS} s: ${b.rows} rows, ${b.rssMiB} MiB`)
            .join('; '),
        `| idle after start | peak under load | peak since start | idle after load (${settings.idleS} s) | ready after |`,
        '|---:|---:|---:|---:|---:|',
        `| ${mib(idleStart)} | ${mib(peakLoad)} | ${mib(peakSinceStart)} | ${mib(idleAfter)} | ${(startMs / 1000).toFixed(1)} s |`,
        '',
        ...(mappings.length ? ['largest mappings when the load ended (resident of size):', ...mappings.map((m) => `  ${m}`), ''] : []),
        'targets:',
        ...targets.map((t) => `  ${t.ok ? 'MET ' : 'MISS'}  ${t.name}: ${t.detail}`),
        'checks:',
        ...checks.map((c) => `  ${c.ok ? 'OK  ' : 'FAIL'}  ${c.name}: ${c.detail}`),
        '',
      ].join('\n'),
    );
    if (settings.jsonOut) {
      writeFileSync(
        settings.jsonOut,
        `${JSON.stringify(
          {
            settings,
            load,
            backlog,
            firstStartPeak,
            idleStart,
            peakLoad,
            peakSinceStart,
            idleAfter,
            startMs,
            rows,
            answered,
            checks,
            targets,
            samples: sampler.samples,
          },
          null,
          2,
        )}\n`,
      );
    }
    if (checks.some((c) => !c.ok)) failed = true;
    if (settings.strict && targets.some((t) => !t.ok)) failed = true;
  } catch (error) {
    failed = true;
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    try {
      const text = await Bun.file(join(workDir, 'conduit.err.log')).text();
      if (text.trim()) log(`conduit.err.log (last lines):\n${text.trim().split('\n').slice(-20).join('\n')}`);
    } catch {
      // No log yet.
    }
  } finally {
    await cleanup();
    clearTimeout(deadline);
  }
  process.exit(failed ? 1 : 0);
}

void main();
