// The embedded database's DATA_DIR is private to the user running Conduit: created 0700, with nothing
// under it open to group or others (PGlite writes most of a new cluster's files 0666), while the server
// runs and after it stops. The real entry point, on PGlite whatever DATABASE_URL the suite runs with.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser } from '../helpers/app';
import { spawnServer } from '../helpers/process';

const parent = mkdtempSync(join(tmpdir(), 'conduit-data-dir-'));
let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream();
});
afterAll(async () => {
  await fake?.close();
  rmSync(parent, { recursive: true, force: true });
});

/** Every path under `root` (itself included) with a group or other permission bit, with its mode. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    if (stat.mode & 0o077) found.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

function countFiles(root: string): number {
  return readdirSync(root, { recursive: true }).length;
}

test('a fresh DATA_DIR is created 0700 and nothing under it is open to group or others, running or stopped', async () => {
  const dataDir = join(parent, 'conduit', 'data');
  const server = await spawnServer({ DATA_DIR: dataDir, UPSTREAM_BASE_URL: fake.url });
  let exitCode: number | undefined;
  try {
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
    // Some use, so whatever the server writes as it works (tables, settlements) is in the directory too.
    const user = await registerUser(server.url);
    const { key } = await createApiKey(server.url, user.token);
    const completion = await call(server.url, 'POST', '/v1/chat/completions', {
      token: key,
      body: { model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }] },
    });
    expect(completion.status).toBe(200);

    expect(lstatSync(dataDir).mode & 0o777).toBe(0o700);
    expect(countFiles(dataDir)).toBeGreaterThan(100); // the database is really in it
    expect(openToOthers(dataDir)).toEqual([]);
  } finally {
    exitCode = await server.stop('SIGTERM');
  }
  expect(exitCode).toBe(0);
  expect(openToOthers(dataDir)).toEqual([]);
}, 120_000);
