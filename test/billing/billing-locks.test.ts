// Lease top-ups and settlement batches under sustained load on one user: with a lease so small that
// nearly every request tops it up while batches are written every millisecond, no request may fail and
// PostgreSQL must see no deadlock (the two used to take the users and balance_leases rows in opposite
// orders, and a deadlock aborted a top-up into a 500). The books balance at the end.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers } from '../helpers/gateway';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const body = JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 });

let fake: FakeUpstream;
let app: TestApp;
let other: TestApp | null = null;

beforeAll(async () => {
  fake = await startFakeUpstream();
  // A lease of 3000 nano-units covers about one request (17 tokens × 125 = 2125): top-ups all the time.
  const env = { UPSTREAM_BASE_URL: fake.url, LEASE_CHUNK: '0.000003', USAGE_FLUSH_MS: '1' };
  app = await startTestApp({ env });
  if (onPostgres) other = await startTestApp({ database: app.database, env });
});
afterAll(async () => {
  await other?.stop();
  await app?.close();
  await fake?.close();
});

async function deadlocks(): Promise<number> {
  const [row] = await app.sql<{ n: unknown }>('select deadlocks as n from pg_stat_database where datname = current_database()');
  return Number(row?.n ?? 0);
}

describe('top-ups and settlement batches under load', () => {
  test('no 5xx, no deadlock, and the ledger equals balance plus leases', async () => {
    const user = await registerUser(app.url);
    const { key } = await createApiKey(app.url, user.token);
    const urls = [app.url, ...(other ? [other.url] : [])];
    const before = onPostgres ? await deadlocks() : 0;
    const statuses = new Map<number, number>();
    const deadline = Date.now() + 4_000;
    let sent = 0;
    const loop = async (worker: number) => {
      while (Date.now() < deadline && sent < 4_000) {
        sent++;
        const res = await fetch(`${urls[worker % urls.length]}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, i) => loop(i)));
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)!).toBeGreaterThan(100);

    await settleAll(app);
    if (other) await settleAll(other);
    expect(await unbalancedUsers(app)).toEqual([]);
    const [usage] = await app.sql<{ n: unknown }>('select count(*) as n from usage_records where user_id = $1', [user.userId]);
    expect(Number(usage!.n)).toBe(statuses.get(200)!);
    if (onPostgres) {
      // The statistics reach pg_stat_database within a second of the transactions that produced them.
      await Bun.sleep(1_200);
      expect(await deadlocks()).toBe(before);
    }
  });
});
