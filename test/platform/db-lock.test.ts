// withLock: one holder at a time across everything sharing the database, and free again afterwards.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let database: TestDatabase;
const handles: DatabaseHandle[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const h of handles) await h.close();
  await database?.drop();
});

async function open(): Promise<DatabaseHandle> {
  const h = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  handles.push(h);
  return h;
}

test('a second holder is turned away while the first runs, and gets the lock once it is released', async () => {
  const first = await open();
  // Two instances on PostgreSQL; PGlite has one process, so the contender is the same handle.
  const second = database.databaseUrl ? await open() : first;
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const running = first.withLock('test-job', async () => {
    await held;
    return 'done';
  });
  await Bun.sleep(50);
  expect(await second.withLock('test-job', async () => 'other')).toEqual({ acquired: false });
  expect(await second.withLock('another-job', async () => 'other')).toEqual({ acquired: true, value: 'other' });
  release();
  expect(await running).toEqual({ acquired: true, value: 'done' });
  expect(await second.withLock('test-job', async () => 'again')).toEqual({ acquired: true, value: 'again' });
});

test('the lock is released when the work throws', async () => {
  const h = handles[0] ?? (await open());
  expect(await h.withLock('failing-job', async () => Promise.reject(new Error('boom'))).catch((e: Error) => e.message)).toBe('boom');
  expect(await h.withLock('failing-job', async () => 1)).toEqual({ acquired: true, value: 1 });
});
