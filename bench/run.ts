// `npm run bench`: Conduit against the floor (a bare Bun pass-through proxy with the same fetch limit), both
// in front of the same instant fake upstream, driven by wrk (or autocannon), plain and streaming, at low and
// saturating concurrency (the 4-connection phases 30 s long, for the tail); then thousands of concurrent
// slow streams (bench/slow-streams.ts: time to first token, none broken, each billed), Conduit against a
// copy of itself without metrics (their cost), and what routing and failover cost (bench/routing.ts).
// Prints req/s, p50, p99, p99.9 and max per target, Conduit's cost over the floor, Conduit's peak RSS per
// phase, requests slower than 50 ms, deadlocks and transient database errors, judges issue 13's and issue
// 29's targets, and checks that every request left a usage row and that the books balance. See bench/README.md.
//
// This file is the driver: it starts the servers, the bench's user and key, then runs the scenarios
// (scenarios/: load phases, the compared variant, routing, slow streams, the final checks) and prints the
// report (report.ts); the settings are read in settings.ts.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createBenchDatabase, deadlockCounts, seedPrices, topUp, type BenchDatabase, type SeededPrices } from './database';
import { conduitSource, machine, postgresLogDeadlocks, postJson, sanityCheck, utcDay, waitForPrices } from './environment';
import { pickLoadGenerator, type LoadGenerator } from './loadgen';
import {
  environOf,
  freePort,
  openFilesLimit,
  peakRssBytes,
  processTree,
  startReadyChild,
  treeRssBytes,
  stopChild,
  waitForHttp,
  withOpenFiles,
  type Child,
  conduitEnv,
} from './processes';
import { reportText, verdicts } from './report';
import { routingConduitEnv, routingSettings, routingVerdicts, runRoutingPhases, type RoutingOutcome } from './routing';
import { runChecks } from './scenarios/checks';
import { runCompare } from './scenarios/compare';
import { peakTracker, type BenchContext, type Tally } from './scenarios/context';
import { phaseRunner, runLoadPhases } from './scenarios/load';
import { runSlowStreams } from './scenarios/slow';
import { deadlineSeconds, FETCH_LIMIT, log, OPEN_FILES, PER_ADDRESS_LIMIT, REPO, settings, type Server } from './settings';

const env = process.env;

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

    const startConduit = async (dir: string, name: string) => {
      const port = freePort();
      const logs = [join(workDir, `${name}.log`), join(workDir, `${name}.err.log`)];
      const proc = Bun.spawn(withOpenFiles([bun, ...settings.conduitBunArgs, 'src/index.ts'], OPEN_FILES), {
        cwd: dir,
        env: {
          ...baseEnv,
          ...conduitEnv(port),
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
      await waitForWorkers(proc.pid, settings.conduitEnv.WORKERS, `${url}/health`);
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
    log(`user ${userId} topped up; key ${apiKey.slice(0, 12)}…${settings.keyLimit === null ? '' : ` with a spend limit of ${created.spendLimit} a day`}`);

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
    const tally: Tally = { conduit2xx: 0, conduitNon2xx: 0, conduitSocketErrors: 0, conduitConnections: 0 };
    for (const mode of settings.modes) {
      for (const target of settings.targets) {
        await sanityCheck(urls[target], apiKey, mode);
        if (target === 'conduit') tally.conduit2xx++;
      }
    }

    const idleRss = treeRssBytes(conduit.pid);
    const peaks = peakTracker(conduit.pid);
    const ctx: BenchContext = {
      workDir,
      tmp,
      baseEnv,
      bun,
      generator,
      database,
      fakeUrl,
      fakePid: fake.child.pid,
      conduit,
      conduitLogs,
      conduitDir,
      apiKey,
      urls,
      pids: { floor: floor.child.pid, conduit: conduit.pid, variant: 0 },
      loadProcs,
      tally,
      peaks,
      startConduit,
    };
    const run = phaseRunner(ctx);
    const rows = await runLoadPhases(run);
    const { compareRows, compareError, compareLabel, compareSource, compareChecks, variantLogs } = await runCompare(ctx, run);

    // Issue 29: what routing and failover cost (bench/routing.ts), on this Conduit, switched through the database.
    let routingOutcome: RoutingOutcome | null = null;
    if (routingSettings.phases.size > 0 && settings.targets.includes('conduit') && !settings.onlyCompare) {
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
          tally.conduit2xx++;
        },
        track: (p) => loadProcs.add(p),
        log,
      });
    }

    const slowRows = await runSlowStreams(ctx);

    peaks.notePeak();
    const floorPeakRss = peakRssBytes(floor.child.pid);
    const upstreamPeakRss = peakRssBytes(fake.child.pid);

    const { usageChecks, books, priced, drainMs, deadlocksAfter, pgLogAfter, conduitLogTotal, dbTrouble } = await runChecks(ctx, {
      userId,
      keyId,
      keyDay,
      rows,
      slowRows,
      compareChecks,
      routingOutcome,
      benchPrice,
      seeded,
      deadlocksBefore,
      pgLogBefore,
      variantLogs,
    });

    const targetVerdicts = verdicts({
      rows,
      slowRows,
      compareRows,
      compareError,
      compareLabel,
      idleRss,
      peakResets: peaks.peakResets,
      latencyResolutionMs: generator.latencyResolutionMs,
      allPricedExactly: priced.wrong === 0 && priced.rows === books.usageRows,
    });
    if (routingOutcome) targetVerdicts.push(...routingVerdicts(routingOutcome, generator.latencyResolutionMs));
    process.stdout.write(
      reportText({
        started,
        version,
        info,
        generatorName: generator.name,
        limitsLine,
        routingOutcome,
        compareSource,
        compareError,
        compareLabel,
        seeded,
        rows,
        slowRows,
        compareRows,
        conduitPeakRss: peaks.conduitPeakRss,
        idleRss,
        floorPeakRss,
        upstreamPeakRss,
        deadlocksBefore,
        deadlocksAfter,
        pgLogBefore,
        pgLogAfter,
        databaseName: database.name,
        conduitLogTotal,
        conduitLogs,
        variantLogs,
        targetVerdicts,
        usageChecks,
      }),
    );

    if (settings.jsonOut) {
      writeFileSync(
        settings.jsonOut,
        `${JSON.stringify(
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
            conduitPeakRss: peaks.conduitPeakRss,
            conduitIdleRss: idleRss,
            floorPeakRss,
            drainMs,
            dbTrouble,
            targetVerdicts,
            usageChecks,
          },
          null,
          2,
        )}\n`,
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

/**
 * WORKERS > 1 (BENCH_CONDUIT_ENV=WORKERS=2): /health answers once the first worker listens; the phases
 * start once every worker runs and has answered (each new connection goes to one the kernel picks).
 */
async function waitForWorkers(pid: number, workers: string | undefined, healthUrl: string): Promise<void> {
  const wanted = workers === 'auto' ? availableParallelism() : Number(workers ?? 1);
  if (!(wanted > 1)) return;
  const deadline = Date.now() + 60_000;
  while (processTree(pid).length - 1 < wanted) {
    if (Date.now() > deadline) throw new Error(`Conduit did not start ${wanted} workers within 60 s`);
    await Bun.sleep(100);
  }
  // A worker's process exists before it listens: ask until a run of new connections all answered.
  for (let answered = 0; answered < 20 * wanted; ) {
    if (Date.now() > deadline) throw new Error(`Conduit's ${wanted} workers did not all answer within 60 s`);
    const ok = await fetch(healthUrl, { headers: { connection: 'close' } }).then(
      (r) => r.ok,
      () => false,
    );
    answered = ok ? answered + 1 : 0;
    if (!ok) await Bun.sleep(100);
  }
  log(`Conduit runs ${wanted} workers (pids ${processTree(pid).slice(1).join(', ')})`);
}
