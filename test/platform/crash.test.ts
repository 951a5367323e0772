// No answered request is lost to a crash: the real process is killed with SIGKILL under load, started
// again on the same DATA_DIR and database, and every request the client got a whole 2xx answer for has its
// usage row and its charge; the books balance (balance + leases = Σ ledger), and the usage rollups equal the rows.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, startTestApp } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { unbalancedUsers } from '../helpers/gateway';
import { spawnServer } from '../helpers/process';

setDefaultTimeout(120_000);

let fake: FakeUpstream;
let database: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeUpstream();
  database = await createTestDatabase();
  env = {
    DATA_DIR: database.dataDir,
    UPSTREAM_BASE_URL: fake.url,
    JWT_SECRET: 'crash-test-secret-that-is-long-enough-for-hs256',
    ENCRYPTION_KEY: 'cd'.repeat(32),
    LOG_REQUESTS: 'false',
    MAX_CONNECTIONS_PER_ADDRESS: '0',
  };
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
});
afterAll(async () => {
  await fake?.close();
  await database?.drop();
});

describe('kill -9 under load', () => {
  test('every request answered 2xx before the kill has its usage row and charge after the restart', async () => {
    const server = await spawnServer(env);
    const user = await registerUser(server.url);
    const { key } = await createApiKey(server.url, user.token);
    const body = JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }], max_tokens: 5 });

    const answered: string[] = [];
    let killed = false;
    const loop = async () => {
      while (!killed) {
        try {
          const res = await fetch(`${server.url}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body,
          });
          const text = await res.text();
          if (res.ok && text.includes('"usage"')) answered.push(res.headers.get('x-request-id')!);
        } catch {
          // The process is gone: this request got no answer.
        }
      }
    };
    const loops = Array.from({ length: 16 }, loop);
    // Long enough that rows are queued and batches are being written when the kill lands.
    while (answered.length < 1_500) await Bun.sleep(10);
    server.proc.kill('SIGKILL');
    killed = true;
    await server.proc.exited;
    await Promise.all(loops);
    expect(answered.length).toBeGreaterThanOrEqual(1_500);

    // The next instance on the same DATA_DIR writes what the journal holds before it listens.
    const again = await spawnServer(env);
    expect(again.lines.some((l) => l.msg === 'wrote settlements an earlier instance had journaled but not written')).toBe(true);
    expect(await again.stop('SIGTERM')).toBe(0);

    const app = await startTestApp({ database });
    try {
      const rows = await app.sql<{ request_id: string; cost_nano: unknown }>(
        'select request_id, cost_nano::text as cost_nano from usage_records where user_id = $1',
        [user.userId],
      );
      const recorded = new Set(rows.map((r) => r.request_id));
      const missing = answered.filter((id) => !recorded.has(id));
      expect(missing).toEqual([]);
      // Each request once, each charged.
      expect(recorded.size).toBe(rows.length);
      expect(rows.every((r) => BigInt(String(r.cost_nano)) > 0n)).toBe(true);
      expect(await unbalancedUsers(app)).toEqual([]);
      // The rollups are written by the rows' own statement: a kill between batches leaves them equal to the rows.
      const [sums] = await app.sql<{ rows: string; rollups: string; cost: string; rolled_cost: string; days: string }>(
        `select (select count(*) from usage_records where user_id = $1)::text as rows,
                (select coalesce(sum(requests), 0) from usage_rollups where user_id = $1)::text as rollups,
                (select coalesce(sum(cost_nano), 0) from usage_records where user_id = $1)::text as cost,
                (select coalesce(sum(cost_nano), 0) from usage_rollups where user_id = $1)::text as rolled_cost,
                (select coalesce(sum(requests), 0) || '/' || coalesce(sum(cost_nano), 0) from usage_rollups_daily where user_id = $1) as days`,
        [user.userId],
      );
      expect({ rows: sums!.rollups, cost: sums!.rolled_cost, days: sums!.days }).toEqual({ rows: sums!.rows, cost: sums!.cost, days: `${sums!.rows}/${sums!.cost}` });
    } finally {
      await app.stop();
    }
  });
});
