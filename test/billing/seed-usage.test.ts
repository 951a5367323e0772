// `npm run seed:usage`: refuses a production configuration without touching the database; otherwise writes
// exactly the rows asked for through the settlement statement, so their rollups equal them, the ledger
// equals every balance, and the account it names sees its half of them in the dashboard.
import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { call, startTestApp } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { unbalancedUsers } from '../helpers/gateway';

setDefaultTimeout(120_000);

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function runSeed(database: TestDatabase, args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([process.execPath, 'scripts/seed-usage.ts', ...args], {
    cwd: `${import.meta.dir}/../..`,
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: database.dataDir,
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : {}),
      NODE_ENV: 'development',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe('npm run seed:usage', () => {
  test('refuses when NODE_ENV=production: exit code 1, a Russian message, nothing written', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const result = await runSeed(database, ['--email', 'prod@example.com', '--rows', '100', '--days', '2'], {
      NODE_ENV: 'production',
      JWT_SECRET: 'production-secret-that-is-long-enough-for-hs256',
      ENCRYPTION_KEY: 'ef'.repeat(32),
      PUBLIC_BASE_URL: 'https://conduit.example.com',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('NODE_ENV=production: тестовые данные в рабочую базу не записываются');
    const app = await startTestApp({ database });
    cleanup.push(() => app.stop());
    expect(await app.sql(`select email from users where email = 'prod@example.com'`)).toEqual([]);
    expect(await app.sql('select 1 from usage_records')).toEqual([]);
  });

  test('bad arguments are refused in Russian', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const result = await runSeed(database, ['--email', 'x@example.com', '--rows', 'много', '--days', '2']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--rows: ожидается целое число');
  });

  test('writes N rows over D days, half for the account it creates; rollups equal the rows; the ledger equals every balance', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    const rows = 12_345;
    const result = await runSeed(database, ['--email', 'Demo@Example.com', '--rows', String(rows), '--days', '7', '--other-users', '3']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const password = /пароль: (\S+)/.exec(result.stdout)?.[1];
    expect(password).toBeDefined();

    const app = await startTestApp({ database });
    let running = true;
    cleanup.push(async () => {
      if (running) await app.stop();
    });
    const [counts] = await app.sql<{
      n: string;
      main: string;
      users: string;
      keys: string;
      models: string;
      endpoints: string;
      statuses: string;
      first: Date;
      last: Date;
    }>(
      `select count(*)::text as n, count(*) filter (where u.email = 'demo@example.com')::text as main,
         count(distinct r.user_id)::text as users, count(distinct r.api_key_id)::text as keys, count(distinct r.model)::text as models,
         count(distinct r.endpoint)::text as endpoints, count(distinct r.status)::text as statuses,
         min(r.created_at) as first, max(r.created_at) as last
       from usage_records r join users u on u.id = r.user_id`,
    );
    expect(Number(counts!.n)).toBe(rows);
    // Half for the named account, give or take the dice.
    expect(Math.abs(Number(counts!.main) - rows / 2)).toBeLessThan(rows * 0.05);
    expect(Number(counts!.users)).toBe(4);
    expect(Number(counts!.keys)).toBe(8);
    expect(Number(counts!.models)).toBeGreaterThanOrEqual(5);
    expect(Number(counts!.endpoints)).toBe(3);
    expect(Number(counts!.statuses)).toBeGreaterThanOrEqual(3);
    const span = new Date(counts!.last).getTime() - new Date(counts!.first).getTime();
    expect(span).toBeGreaterThan(6 * 86_400_000);
    expect(span).toBeLessThanOrEqual(7 * 86_400_000 + 3_600_000);

    const drift = await app.sql(`
      select r.user_id, r.bucket, r.api_key_id, r.model, r.endpoint from (
        select user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01Z') as bucket, api_key_id, model, endpoint,
          count(*) as requests, sum(cost_nano) as cost, sum(total_tokens) as tokens
        from usage_records group by 1, 2, 3, 4, 5) r
      full join usage_rollups s on s.user_id = r.user_id and s.bucket = r.bucket and s.api_key_id = r.api_key_id
        and s.model = r.model and s.endpoint = r.endpoint
      where r.requests is distinct from s.requests::bigint or r.cost is distinct from s.cost_nano::numeric
        or r.tokens is distinct from s.total_tokens::numeric`);
    expect(drift).toEqual([]);
    const [days] = await app.sql<{ requests: string; cost: string }>(`select sum(requests)::text as requests, sum(cost_nano)::text as cost from usage_rollups_daily`);
    const [raw] = await app.sql<{ requests: string; cost: string }>(`select count(*)::text as requests, sum(cost_nano)::text as cost from usage_records`);
    expect(days).toEqual(raw!);
    expect(await unbalancedUsers(app)).toEqual([]);
    // Every charge has its ledger row: Σ usage cost = Σ usage debits.
    const [books] = await app.sql<{ usage: string; debits: string }>(
      `select (select sum(cost_nano) from usage_records)::text as usage,
              (select -sum(amount_nano) from ledger_entries where kind = 'usage')::text as debits`,
    );
    expect(books!.usage).toBe(books!.debits);

    // The account logs in with the password it printed and sees its rows in the summary.
    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: 'demo@example.com', password } });
    expect(login.status).toBe(200);
    const from = new Date(Date.now() - 8 * 86_400_000).toISOString();
    const summary = await call(app.url, 'GET', `/api/usage/summary?from=${from}&timeZone=Europe/Moscow`, { token: login.body.token });
    expect(summary.body.totals.requests).toBe(Number(counts!.main));
    expect(summary.body.days.length).toBeGreaterThanOrEqual(7);

    // Run again for the same account: it is reused, and the rows add up.
    await app.stop();
    running = false;
    const again = await runSeed(database, ['--email', 'demo@example.com', '--rows', '1000', '--days', '1', '--other-users', '3']);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('пароль');
  });

  test('the operator guide documents it', () => {
    const guide = readFileSync(`${import.meta.dir}/../../docs/operator.md`, 'utf8');
    expect(guide).toContain('npm run seed:usage -- --email');
  });
});
