// A database outage as /v1 clients see it (PostgreSQL only: PGlite lives in the process). While the
// database refuses connections, requests the instance's lease already covers are still served; anything
// that needs the database (an uncached key, a lease top-up, the dashboard) answers 503 with Retry-After,
// never 500; and once it is back, the usage written meanwhile lands and the books balance.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import postgres from 'postgres';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const messages = [{ role: 'user', content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  if (!onPostgres) return;
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** Refuses new connections to the app's database and cuts the open ones; returns the way back. */
async function takeDatabaseDown(): Promise<() => Promise<void>> {
  const name = new URL(app.database.databaseUrl!).pathname.slice(1);
  const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`alter database "${name}" allow_connections false`);
  await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
  return async () => {
    await admin.unsafe(`alter database "${name}" allow_connections true`);
    await admin.end({ timeout: 5 });
  };
}

const chat = (key: string, body: Record<string, unknown> = {}) =>
  call(app.url, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}` },
    body: { model: 'acme/chat', messages, max_tokens: 5, ...body },
  });

describe('a database outage', () => {
  test.skipIf(!onPostgres)('503 with Retry-After where the database is needed, service from the lease where not, nothing lost', async () => {
    const user = await registerUser(app.url);
    const used = await createApiKey(app.url, user.token, 'used');
    const unused = await createApiKey(app.url, user.token, 'unused');
    expect((await chat(used.key)).status).toBe(200); // the key is cached, a lease of 0.1 is held

    const restore = await takeDatabaseDown();
    let restored = false;
    try {
      // Covered by the lease: served.
      const served = await chat(used.key);
      expect(served.status).toBe(200);
      // A key never seen by this instance needs the database.
      const uncached = await chat(unused.key);
      expect(uncached.status).toBe(503);
      expect(uncached.body.error.type).toBe('service_unavailable');
      expect(Number(uncached.headers.get('retry-after'))).toBeGreaterThan(0);
      // More than the lease holds needs a top-up from the database.
      const big = await chat(used.key, { max_tokens: 2_000_000 });
      expect(big.status).toBe(503);
      expect(big.headers.get('retry-after')).not.toBeNull();
      // The dashboard too.
      const keys = await call(app.url, 'GET', '/api/keys', { token: user.token });
      expect(keys.status).toBe(503);
      expect((await call(app.url, 'GET', '/health')).status).toBe(503);

      await restore();
      restored = true;
      await waitFor(async () => (await chat(unused.key)).status === 200, 15_000, 200);
      await settleAll(app);
      const rows = await usageRows(app, user.userId);
      expect(rows.filter((r) => r.status === 'ok').length).toBeGreaterThanOrEqual(3);
      expect(await unbalancedUsers(app)).toEqual([]);
    } finally {
      if (!restored) await restore();
    }
  });
});
