// The entry point as `npm start` runs it: start-up checks, the embedded or real database, restarts, SIGTERM.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { call, uniqueEmail } from '../helpers/app';
import { runToFailure, spawnServer } from '../helpers/process';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe('start-up', () => {
  test('the process restarts itself with the fetch limit and the memory target it was configured with', async () => {
    // A data folder of its own: the restart test below expects to be the first start on the database's.
    const env: Record<string, string> = { DATA_DIR: mkdtempSync(join(tmpdir(), 'conduit-relaunch-')), MEMORY_TARGET_MB: '192' };
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
    const server = await spawnServer(env);
    try {
      // The same pid, now running with what Bun reads only at start (Linux shows a process's environment).
      const environ = readFileSync(`/proc/${server.proc.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain('BUN_CONFIG_MAX_HTTP_REQUESTS=4096');
      expect(environ).toContain(`BUN_JSC_forceRAMSize=${192 * 1024 * 1024}`);
      expect((await call(server.url, 'GET', '/health')).status).toBe(200);
    } finally {
      await server.stop();
    }
    // An operator's own BUN_JSC_forceRAMSize is kept.
    const own = await spawnServer({ ...env, BUN_JSC_forceRAMSize: String(512 * 1024 * 1024) });
    try {
      const environ = readFileSync(`/proc/${own.proc.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`BUN_JSC_forceRAMSize=${512 * 1024 * 1024}`);
    } finally {
      await own.stop();
    }
  });

  test('a bad PORT stops start-up naming the variable', async () => {
    const { code, stderr } = await runToFailure({ PORT: 'abc', DATA_DIR: database.dataDir });
    expect(code).toBe(1);
    expect(stderr).toContain('PORT');
  });

  test('a wrong-length ENCRYPTION_KEY stops start-up naming the variable', async () => {
    const { code, stderr } = await runToFailure({ ENCRYPTION_KEY: 'abc123', DATA_DIR: database.dataDir });
    expect(code).toBe(1);
    expect(stderr).toContain('ENCRYPTION_KEY');
  });

  test('production without JWT_SECRET and ENCRYPTION_KEY refuses to start with a clear message', async () => {
    const { code, stderr } = await runToFailure({
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: 'https://conduit.example',
      DATA_DIR: database.dataDir,
    });
    expect(code).toBe(1);
    expect(stderr).toContain('JWT_SECRET');
    expect(stderr).toContain('ENCRYPTION_KEY');
  });

  test('with no configuration it serves, keeps data and secrets across a restart, and exits cleanly on SIGTERM', async () => {
    const env: Record<string, string> = { DATA_DIR: database.dataDir, LOG_LEVEL: 'info' };
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;

    const first = await spawnServer(env);
    expect((await call(first.url, 'GET', '/health')).body).toEqual({ status: 'ok' });
    expect(first.lines.some((l) => l.level === 'warn' && String(l.msg).includes('JWT_SECRET'))).toBe(true);
    expect(statSync(join(database.dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);

    const email = uniqueEmail('restart');
    const registered = await call(first.url, 'POST', '/api/auth/register', { body: { email, password: 'secret1' } });
    expect(registered.status).toBe(201);
    const key = await call(first.url, 'POST', '/api/keys', { token: registered.body.token, body: { name: 'kept' } });
    expect(key.status).toBe(201);

    // One log line per request, with id, status and latency, and no secret in it.
    const requestLines = first.lines.filter((l) => l.msg === 'request');
    expect(requestLines.length).toBeGreaterThanOrEqual(3);
    for (const line of requestLines) {
      expect(line).toEqual(expect.objectContaining({ requestId: expect.any(String), status: expect.any(Number), durationMs: expect.any(Number) }));
    }
    const logText = JSON.stringify(first.lines);
    expect(logText).not.toContain('secret1');
    expect(logText).not.toContain(registered.body.token);
    expect(logText).not.toContain(key.body.key);

    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.lines.some((l) => l.msg === 'stopped')).toBe(true);

    const second = await spawnServer(env);
    try {
      expect(second.lines.some((l) => l.level === 'warn' && String(l.msg).includes('JWT_SECRET'))).toBe(false);
      // The JWT issued before the restart still verifies: the generated secret was reused.
      const keys = await call(second.url, 'GET', '/api/keys', { token: registered.body.token });
      expect(keys.status).toBe(200);
      expect(keys.body.keys).toEqual([expect.objectContaining({ name: 'kept', isActive: true })]);
      const login = await call(second.url, 'POST', '/api/auth/login', { body: { email, password: 'secret1' } });
      expect(login.status).toBe(200);
      expect(login.body.user.balance).toBe(3);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
  }, 120_000);
});
