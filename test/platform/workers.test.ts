// WORKERS: the entry point as `npm start` runs it, starting several server processes on one port and one
// PostgreSQL (src/supervisor.ts). Which worker answered a request is read from its log line (each carries the
// worker's pid), never from the answer: the kernel picks a worker for each new connection.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { usageRows, waitFor } from '../helpers/gateway';
import { runToFailure, spawnServer, type ServerProcess } from '../helpers/process';

setDefaultTimeout(180_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const messages = [{ role: 'user' as const, content: 'hi' }];
/** Far more new connections than it takes the kernel to hand both workers some (each one is a coin toss). */
const TRIES = 400;

let database: TestDatabase;
let fake: FakeUpstream;
beforeAll(async () => {
  database = await createTestDatabase();
  fake = await startFakeUpstream({ apiKey: 'upstream-secret', slowStreamDelayMs: 40 });
});
afterAll(async () => {
  await fake?.close();
  await database?.drop();
});

function workersEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    DATA_DIR: database.dataDir,
    UPSTREAM_BASE_URL: fake.url,
    UPSTREAM_API_KEY: 'upstream-secret',
    LOG_LEVEL: 'info',
    WORKERS: '2',
    ...extra,
  };
  if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
  return env;
}

const listeningLine = (server: ServerProcess) => server.lines.find((l) => l.msg === 'listening')!;

/** A request on a connection of its own, and the pid of the worker whose log line carries its request id. */
async function served(server: ServerProcess, method: string, path: string, options: { key?: string; token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { connection: 'close' };
  if (options.key ?? options.token) headers.authorization = `Bearer ${options.key ?? options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  await res.text();
  const requestId = res.headers.get('x-request-id');
  let line: Record<string, unknown> | undefined;
  await waitFor(() => (line = server.lines.find((l) => l.msg === 'request' && l.requestId === requestId)) !== undefined, 30_000);
  return { status: res.status, pid: line!.pid as number };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('WORKERS on PostgreSQL', () => {
  test.skipIf(!onPostgres)('two workers answer on one port, and a key revoked through one is refused by the other', async () => {
    const server = await spawnServer(workersEnv());
    try {
      const listening = listeningLine(server);
      expect(listening).toEqual(expect.objectContaining({ workers: 2, database: 'postgres', role: 'supervisor' }));
      const pids = listening.workerPids as number[];
      expect(pids).toHaveLength(2);
      expect(server.lines.filter((l) => l.msg === 'worker listening').map((l) => l.pid)).toEqual(expect.arrayContaining(pids));

      const user = await registerUser(server.url);
      const { key, id: keyId } = await createApiKey(server.url, user.token);
      const chat = { model: 'acme/chat', messages };
      // Both workers have served (and so cached) the key.
      const seen = new Set<number>();
      for (let i = 0; i < TRIES && seen.size < 2; i++) {
        const answer = await served(server, 'POST', '/v1/chat/completions', { key, body: chat });
        expect(answer.status).toBe(200);
        seen.add(answer.pid);
      }
      expect([...seen].sort()).toEqual([...pids].sort());

      const revoked = await served(server, 'DELETE', `/api/keys/${keyId}`, { token: user.token });
      expect(revoked.status).toBe(200);
      // The worker that did not revoke it learns of it through PostgreSQL's NOTIFY and refuses it too.
      let refusedByOther = false;
      for (let i = 0; i < TRIES && !refusedByOther; i++) {
        const answer = await served(server, 'POST', '/v1/chat/completions', { key, body: chat });
        if (answer.pid === revoked.pid) expect(answer.status).toBe(403);
        else refusedByOther = answer.status === 403;
      }
      expect(refusedByOther).toBe(true);
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  });

  test.skipIf(!onPostgres)('SIGTERM stops every worker gracefully: a stream in flight completes and is billed, the exit is 0', async () => {
    const server = await spawnServer(workersEnv({ SHUTDOWN_GRACE_MS: '60000' }));
    const user = await registerUser(server.url);
    const { key } = await createApiKey(server.url, user.token);
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/slow-stream', messages, stream: true }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value); // the stream is under way: 100 pieces, 40 ms apart
    const exited = server.stop('SIGTERM');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toContain('p99 ');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await exited).toBe(0);
    const pids = listeningLine(server).workerPids as number[];
    expect(server.lines.filter((l) => l.msg === 'stopped' && pids.includes(l.pid as number))).toHaveLength(2);
    expect(server.lines.some((l) => l.msg === 'stopped' && l.role === 'supervisor' && l.failed === false)).toBe(true);

    const after = await startTestApp({ database });
    try {
      const rows = await usageRows(after, user.userId);
      expect(rows.map((r) => [r.status, r.stream, r.completion_tokens])).toEqual([['ok', true, 100]]);
    } finally {
      await after.stop();
    }
  });

  test.skipIf(!onPostgres)('a worker that dies is started again while the other serves; without its supervisor no worker stays', async () => {
    const server = await spawnServer(workersEnv());
    try {
      const [first, second] = listeningLine(server).workerPids as number[];
      process.kill(first!, 'SIGKILL');
      let again: Record<string, unknown> | undefined;
      await waitFor(() => (again = server.lines.find((l) => l.msg === 'worker started again')) !== undefined, 60_000, 50);
      expect(server.lines.find((l) => l.msg === 'worker exited; starting it again')).toEqual(
        expect.objectContaining({ worker: 1, workerPid: first, signal: 'SIGKILL' }),
      );
      expect(again).toEqual(expect.objectContaining({ worker: 1 }));
      const restarted = again!.workerPid as number;
      expect([first, second]).not.toContain(restarted);
      expect((await call(server.url, 'GET', '/health')).status).toBe(200);

      // The supervisor killed outright: its workers see the channel to it close and stop gracefully.
      server.proc.kill('SIGKILL');
      await waitFor(() => !isAlive(second!) && !isAlive(restarted), 60_000, 50);
      const stopped = server.lines.filter((l) => l.msg === 'stopped').map((l) => l.pid);
      expect(stopped).toEqual(expect.arrayContaining([second, restarted]));
      expect(server.lines.filter((l) => l.msg === 'shutting down' && l.signal === 'supervisor gone')).toHaveLength(2);
    } finally {
      server.proc.kill('SIGKILL');
    }
  });
});

describe('WORKERS without PostgreSQL', () => {
  test.skipIf(onPostgres)('the embedded database runs one process and says why', async () => {
    const server = await spawnServer(workersEnv());
    try {
      expect(listeningLine(server)).toEqual(expect.objectContaining({ workers: 1, database: 'pglite' }));
      expect(listeningLine(server).role).toBeUndefined();
      const warnings = server.lines.filter((l) => l.level === 'warn' && String(l.msg).startsWith('WORKERS=2'));
      expect(warnings).toHaveLength(1);
      expect(String(warnings[0]!.msg)).toContain('DATABASE_URL');
      expect(server.lines.some((l) => l.msg === 'worker listening')).toBe(false);
      expect((await call(server.url, 'GET', '/health')).status).toBe(200);
    } finally {
      expect(await server.stop('SIGTERM')).toBe(0);
    }
  });
});

describe('bad WORKERS values', () => {
  test.each(['0', 'many'])('WORKERS=%s refuses to start, naming the variable', async (value) => {
    const env: Record<string, string> = { WORKERS: value, DATA_DIR: database.dataDir };
    if (database.databaseUrl) env.DATABASE_URL = database.databaseUrl;
    const { code, stderr } = await runToFailure(env);
    expect(code).toBe(1);
    expect(stderr).toContain('WORKERS');
    expect(stderr).toContain('auto');
  });
});
