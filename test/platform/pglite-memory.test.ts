// The embedded database runs with the memory settings chosen for a 1 GB machine (issue 30, point 6; the
// measurements are in src/db/client.ts and bench/pglite-memory.ts): shared_buffers 32MB instead of PGlite's
// 128MB, and a cluster made at first start has 1MB WAL segments. Also a DATA_DIR made before the change,
// whose postgresql.conf says 128MB, gets 32MB. The real app on PGlite whatever DATABASE_URL the suite runs
// with: these settings are the embedded default's alone.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteDataPath } from '../../src/db/client';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import type { TestDatabase } from '../helpers/database';

setDefaultTimeout(120_000);

const dataDir = mkdtempSync(join(tmpdir(), 'conduit-pglite-memory-'));
/** A new DATA_DIR: the app makes the cluster itself (initdb), as a first `npm start` does. */
const database: TestDatabase = {
  databaseUrl: undefined,
  dataDir,
  async drop() {
    rmSync(dataDir, { recursive: true, force: true });
  },
};
let fake: FakeUpstream;
let app: TestApp | undefined;

beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await app?.stop();
  await fake?.close();
  await database.drop();
});

const start = () => startTestApp({ database, env: { UPSTREAM_BASE_URL: fake.url } });

async function settings(a: TestApp) {
  const [row] = await a.sql<{ shared_buffers: string; wal_segment_size: string }>(
    `select current_setting('shared_buffers') as shared_buffers, current_setting('wal_segment_size') as wal_segment_size`,
  );
  return row;
}

let token = '';

test('a new DATA_DIR: PGlite starts with 32MB of shared buffers and 1MB WAL segments, and serves and bills', async () => {
  app = await start();
  expect(app.database.databaseUrl).toBeUndefined();
  expect(await settings(app)).toEqual({ shared_buffers: '32MB', wal_segment_size: '1MB' });

  const user = await registerUser(app.url);
  token = user.token;
  const { key } = await createApiKey(app.url, user.token);
  const completion = await call(app.url, 'POST', '/v1/chat/completions', {
    token: key,
    body: { model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }] },
  });
  expect(completion.status).toBe(200);
  const usage = await call(app.url, 'GET', '/api/usage?limit=1', { token });
  expect(usage.status).toBe(200);
  expect(usage.body.totals.requests).toBe(1);
  // initdb wrote the setting into the cluster's own configuration too.
  expect(readFileSync(join(pgliteDataPath(dataDir), 'postgresql.conf'), 'utf8')).toMatch(/^shared_buffers = 32MB/m);
  await app.stop();
  app = undefined;
});

test('a DATA_DIR made before (postgresql.conf says 128MB) still starts with 32MB, its data intact', async () => {
  expect(token).not.toBe('');
  const conf = join(pgliteDataPath(dataDir), 'postgresql.conf');
  writeFileSync(conf, readFileSync(conf, 'utf8').replace(/^shared_buffers = .*$/m, 'shared_buffers = 128MB\t\t\t# min 128kB'));
  expect(readFileSync(conf, 'utf8')).toMatch(/^shared_buffers = 128MB/m);

  app = await start();
  expect((await settings(app))?.shared_buffers).toBe('32MB');
  const usage = await call(app.url, 'GET', '/api/usage?limit=1', { token });
  expect(usage.status).toBe(200);
  expect(usage.body.totals.requests).toBe(1);
});
