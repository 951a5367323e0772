// Usage history at scale (issue 30): `npm run bench:usage -- [--rows 10000000] [--days 90] [--other-users 20 |
// --accounts 1000] [--calls 5] [--keep]`. On PostgreSQL (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres)
// it makes a fresh database, seeds it with `npm run seed:usage` (half the rows for one account over the
// days, half over the other accounts: `--other-users M` shares that half 1/i among M accounts, a few busy
// ones and a long tail; `--accounts N` evenly among N − 1, a fleet of N accounts every one of them active
// every day, issue 46), starts Conduit on it, and times the reads over that history: the median of
// `--calls` calls each (after one warm-up call) of the list's first page with its totals, the summary over
// 30 and 90 days in UTC and in zones whose days are not whole UTC hours away (+05:30, +05:45, −03:30),
// operators' daily figures (JSON and CSV), their user list, and the 30-day export (rows a second and time
// to the first byte). Then it times the settlement statement itself on 500-row batches with and
// without the rollups it maintains, the per-row cost the rollups add to the write path.
// Try it at `--rows 200000` first; 10 million rows take a while to seed. `--database <name> --password <p>`
// times an existing database instead (one a `--keep` run left, with the password it printed): migrated to
// this code first, the migration timed, so one seed serves a before and an after (an older checkout's run
// with `--keep`, then this one).
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createBenchDatabase, type BenchDatabase } from './database';
import { freePort, stopChild, waitForHttp, type Child, conduitEnv } from './processes';
import postgres from 'postgres';
import { openDatabase } from '../src/db/client';
import { runMigrations } from '../src/db/migrate';
import { writeBatchStatement, serialize, type Pending } from '../src/gateway/billing/rows';

const REPO = join(import.meta.dir, '..');
const bun = process.execPath;
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MAIN_EMAIL = 'bench-usage@example.com';
const ADMIN_EMAIL = 'bench-usage-admin@example.com';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  if (at < 0) return fallback;
  const n = Number(process.argv[at + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: expected a positive whole number`);
  return n;
}
const rows = option('--rows', 10_000_000);
const days = option('--days', 90);
const fleet = process.argv.includes('--accounts');
if (fleet && process.argv.includes('--other-users')) throw new Error('--accounts and --other-users: one or the other');
const otherUsers = fleet ? option('--accounts', 1000) - 1 : option('--other-users', 20);
const calls = option('--calls', 5);
const keep = process.argv.includes('--keep');
const textOption = (name: string) => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const reuse = textOption('--database');
const reusePassword = textOption('--password');
if (reuse !== undefined && (!/^[a-z0-9_]+$/.test(reuse) || !reusePassword)) throw new Error('--database <name> needs --password <the seeded account’s>');

const log = (line: string) => process.stdout.write(`${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function json(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  const body = await res.json();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body as any;
}

let database: BenchDatabase | null = null;
let conduit: Child | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'conduit-bench-usage-'));
try {
  let password: string;
  const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: '', DATA_DIR: dataDir };
  if (reuse !== undefined) {
    const url = new URL(ADMIN_URL);
    url.pathname = `/${reuse}`;
    const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
    database = { name: reuse, url: url.toString(), sql, drop: async () => {} };
    baseEnv.DATABASE_URL = database.url;
    password = reusePassword!;
    const handle = await openDatabase({ databaseUrl: database.url, dataDir, maxConnections: 1 });
    const started = performance.now();
    await runMigrations(handle, database.url);
    await handle.close();
    log(`database ${reuse}: kept, migrated to this code in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else {
    database = await createBenchDatabase(ADMIN_URL);
    baseEnv.DATABASE_URL = database.url;

    log(`database ${database.name}: seeding ${rows.toLocaleString('en')} rows over ${days} days (${otherUsers} other accounts, ${fleet ? 'even' : 'zipf'})`);
    const seed = Bun.spawn(
      [
        bun,
        join(REPO, 'scripts', 'seed-usage.ts'),
        '--email',
        MAIN_EMAIL,
        '--rows',
        String(rows),
        '--days',
        String(days),
        '--other-users',
        String(otherUsers),
        '--spread',
        fleet ? 'even' : 'zipf',
      ],
      { cwd: REPO, env: { ...baseEnv, NODE_ENV: 'development' }, stdout: 'pipe', stderr: 'inherit' },
    );
    const seedStarted = performance.now();
    const seedOut = await new Response(seed.stdout).text();
    if ((await seed.exited) !== 0) throw new Error(`seed failed: ${seedOut}`);
    process.stdout.write(seedOut);
    log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (accounts, credits and rows)`);
    const printed = /пароль: (\S+)/.exec(seedOut)?.[1];
    if (!printed) throw new Error('the seed printed no password for the new account');
    password = printed;
  }
  // A database that has been serving has had its tables analysed by autovacuum; a bulk load (or the tables a
  // migration just filled) has not yet.
  await database.sql.unsafe('vacuum analyze');

  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([bun, 'src/index.ts'], {
    cwd: REPO,
    env: {
      ...baseEnv,
      ...conduitEnv(port),
      // Fixed: a kept database (--keep, --database) is opened again with the secrets it was made with.
      JWT_SECRET: 'bench-usage-history-secret-long-enough-for-hs256',
      ENCRYPTION_KEY: '5a'.repeat(32),
      ADMIN_EMAILS: ADMIN_EMAIL,
      LOG_REQUESTS: 'false',
      REGISTRATION_LIMIT_PER_HOUR: '0',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  conduit = { name: 'conduit', proc, pid: proc.pid };
  await waitForHttp(`${url}/health`, 60_000, () => proc.exitCode === null);

  const main = await json(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: MAIN_EMAIL, password }),
  });
  // A kept database has its operator from the earlier run.
  const [known] = await database.sql`select 1 from users where email = ${ADMIN_EMAIL}`;
  if (!known) {
    await json(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: 'bench-admin-password' }),
    });
  }
  await database.sql`update users set role = 'admin' where email = ${ADMIN_EMAIL}`;
  const admin = await json(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: 'bench-admin-password' }),
  });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const since = (d: number) => encodeURIComponent(new Date(Date.now() - d * 86_400_000).toISOString());

  const reads: [string, string, string][] = [
    ['GET /api/usage?limit=50 (page + totals)', `/api/usage?limit=50`, main.token],
    ['GET /api/usage/summary 30 days', `/api/usage/summary?from=${since(30)}&timeZone=Europe/Moscow`, main.token],
    ['GET /api/usage/summary 90 days', `/api/usage/summary?from=${since(90)}&timeZone=Europe/Moscow`, main.token],
    ['GET /api/usage/summary 30 days UTC', `/api/usage/summary?from=${since(30)}&timeZone=UTC`, main.token],
    ['GET /api/usage/summary 90 days UTC', `/api/usage/summary?from=${since(90)}&timeZone=UTC`, main.token],
    ['GET /api/usage/summary 30 days +05:30', `/api/usage/summary?from=${since(30)}&timeZone=Asia/Kolkata`, main.token],
    ['GET /api/usage/summary 90 days +05:30', `/api/usage/summary?from=${since(90)}&timeZone=Asia/Kolkata`, main.token],
    ['GET /api/usage/summary 30 days +05:45', `/api/usage/summary?from=${since(30)}&timeZone=Asia/Kathmandu`, main.token],
    ['GET /api/usage/summary 90 days +05:45', `/api/usage/summary?from=${since(90)}&timeZone=Asia/Kathmandu`, main.token],
    ['GET /api/usage/summary 90 days −03:30', `/api/usage/summary?from=${since(90)}&timeZone=America/St_Johns`, main.token],
    ['GET /api/admin/stats/daily (30 days)', `/api/admin/stats/daily`, admin.token],
    ['GET /api/admin/stats/daily/export (30 days CSV)', `/api/admin/stats/daily/export`, admin.token],
    ['GET /api/admin/users', `/api/admin/users`, admin.token],
  ];
  const table: string[] = [];
  for (const [name, path, token] of reads) {
    const times: number[] = [];
    for (let i = 0; i <= calls; i++) {
      const t = performance.now();
      const res = await fetch(url + path, as(token));
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${name}: ${res.status}`);
      if (i > 0) times.push(performance.now() - t);
    }
    table.push(`| ${name} | ${median(times).toFixed(1)} ms | min ${Math.min(...times).toFixed(1)} / max ${Math.max(...times).toFixed(1)} ms |`);
  }
  // `--no-export`: a re-run that changed only the sums' reads skips the export's minutes.
  if (!process.argv.includes('--no-export')) {
    const ttfb: number[] = [];
    const rates: number[] = [];
    let exported = 0;
    for (let i = 0; i < Math.min(calls, 3); i++) {
      const t = performance.now();
      const res = await fetch(`${url}/api/usage/export?from=${since(30)}`, as(main.token));
      const reader = res.body!.getReader();
      let first = 0;
      let lines = 0;
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) break;
        if (first === 0) first = performance.now() - t;
        for (const byte of chunk.value) if (byte === 10) lines++;
      }
      const seconds = (performance.now() - t) / 1000;
      ttfb.push(first);
      exported = lines - 1;
      rates.push(exported / seconds);
    }
    table.push(
      `| GET /api/usage/export 30 days (${exported.toLocaleString('en')} rows) | first byte ${median(ttfb).toFixed(1)} ms | ${Math.round(median(rates)).toLocaleString('en')} rows/s |`,
    );
  }
  await stopChild(conduit, 10_000);
  conduit = null;

  // The settlement statement on 500-row batches of one account's live traffic (the current quarter hour),
  // with and without its rollup CTEs, alternating so both meet the same machine.
  const [user] = await database.sql<{ id: string }[]>`select id from users where email = ${MAIN_EMAIL}`;
  const keysOf = await database.sql<{ id: string }[]>`select id from api_keys where user_id = ${user!.id}`;
  await database.sql`update users set balance_nano = balance_nano + 1000000000000000 where id = ${user!.id}`;
  await database.sql`insert into ledger_entries (user_id, amount_nano, kind, reference) values (${user!.id}, 1000000000000000, 'adjustment', 'bench usage-history settlement timing')`;
  // Every CTE that inserts into a rollup table (usage_rollups…), each ending at the next CTE.
  const withoutRollups = writeBatchStatement.replace(/, \w+ as \(\n {2}insert into usage_rollups[\s\S]*?\n\)(?=, \w+ as \()/g, '');
  if (withoutRollups.includes('usage_rollups') || withoutRollups === writeBatchStatement) throw new Error('could not take the rollup CTE out');
  const models = ['openai/gpt-4o-mini', 'openai/gpt-4o', 'anthropic/claude-3.5-sonnet', 'deepseek/deepseek-chat'];
  let n = 0;
  const batch = () => {
    const list: string[] = [];
    for (let i = 0; i < 500; i++, n++) {
      const p: Pending = {
        facts: {
          userId: user!.id,
          apiKeyId: keysOf[n % keysOf.length]!.id,
          agentId: null,
          requestId: `timing-${n}`,
          endpoint: 'chat',
          model: models[n % models.length]!,
          stream: n % 2 === 0,
          promptTokens: 100,
          completionTokens: 50,
          totalTokens: 150,
          status: 'ok',
          usageSource: 'upstream',
          upstreamStatus: 200,
          error: null,
          durationMs: 400,
          providerId: 'default',
          attempts: 1,
        },
        promptCostNano: 12_500n,
        completionCostNano: 6_250n,
        costNano: 18_750n,
        providerCostNano: null,
        leaseId: null,
        keyLeaseId: null,
        memberLeaseId: null,
        member: null,
        overage: null,
        createdAt: new Date(),
        json: undefined,
        segment: null,
      };
      list.push(serialize(p, p.costNano, 0n));
    }
    return `[${list.join(',')}]`;
  };
  // Through the app's own database handle, as the settlement writer sends it.
  const handle = await openDatabase({ databaseUrl: database.url, dataDir, maxConnections: 1 });
  const timing = { with: [] as number[], without: [] as number[] };
  for (let round = 0; round < 40; round++) {
    for (const variant of ['with', 'without'] as const) {
      const body = batch();
      const t = performance.now();
      await handle.query(variant === 'with' ? writeBatchStatement : withoutRollups, [body, 60], { prepared: true });
      if (round >= 5) timing[variant].push(((performance.now() - t) * 1000) / 500);
    }
  }
  await handle.close();

  log('');
  log(
    reuse !== undefined
      ? `Usage history: kept database ${reuse} (as its seeding run printed it); median of ${calls} calls`
      : `Usage history: ${rows.toLocaleString('en')} rows over ${days} days, ${otherUsers + 1} accounts (half for one, the rest ${fleet ? 'evenly' : '1/i'}); median of ${calls} calls`,
  );
  log('| read | median | spread |');
  log('|---|---|---|');
  for (const line of table) log(line);
  log('');
  log(
    `settlement statement, 500-row batches: ${median(timing.with).toFixed(1)} µs a row with rollups, ${median(timing.without).toFixed(1)} µs without (median of ${timing.with.length} batches each)`,
  );
} finally {
  if (conduit) await stopChild(conduit, 5_000);
  if (database && !keep) await database.drop();
  else if (database) {
    log(`kept database ${database.name}`);
    await database.sql.end({ timeout: 2 });
  }
  rmSync(dataDir, { recursive: true, force: true });
}
