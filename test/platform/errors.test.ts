import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { BODY_LIMIT_BYTES: '4096' } });
});
afterAll(() => app?.close());

function expectErrorShape(body: any, type: string) {
  expect(body.error.type).toBe(type);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message).toMatch(/[А-Яа-яЁё]/);
  const text = JSON.stringify(body);
  expect(text).not.toMatch(/\bat .+:\d+:\d+|stack|node_modules|\/src\//);
  expect(text).not.toMatch(/select |insert into|relation "|syntax error/i);
}

describe('one error model on every route', () => {
  test('unknown routes → 404 not_found', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['POST', '/v2/chat'],
      ['GET', '/api/nothing-here'],
      ['DELETE', '/api/keys'],
      ['GET', '/api/v1/unknown/thing'],
    ] as const) {
      const res = await call(app.url, method, path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expectErrorShape(res.body, 'not_found');
    }
  });

  test('malformed JSON → 400 invalid_request_error', async () => {
    const res = await call(app.url, 'POST', '/api/auth/register', { rawBody: '{"email": "a@b.c", ' });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 'invalid_request_error');
  });

  test('a body that is not JSON at all → 400', async () => {
    const res = await call(app.url, 'POST', '/api/auth/login', {
      rawBody: 'email=a@b.c',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expectErrorShape(res.body, 'invalid_request_error');
  });

  test('a body over the limit → 413 payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ email: 'a@b.cd', password: 'x'.repeat(10_000) });
    const declared = await call(app.url, 'POST', '/api/auth/register', { rawBody: big });
    expect(declared.status).toBe(413);
    expectErrorShape(declared.body, 'payload_too_large');

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
        controller.close();
      },
    });
    const res = await fetch(`${app.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
    });
    expect(res.status).toBe(413);
    expectErrorShape(await res.json(), 'payload_too_large');
  });

  test('/trpc speaks the same types and Russian messages, without stack traces', async () => {
    const bad = await call(app.url, 'POST', '/trpc/auth.register', { body: { email: 'nope', password: '1' } });
    expect(bad.status).toBe(400);
    expectErrorShape(bad.body, 'invalid_request_error');

    const anonymous = await call(app.url, 'GET', '/trpc/keys.list');
    expect(anonymous.status).toBe(401);
    expectErrorShape(anonymous.body, 'unauthorized');

    const missing = await call(app.url, 'GET', '/trpc/nothing.here');
    expect(missing.status).toBe(404);
    expectErrorShape(missing.body, 'not_found');

    const { token } = await registerUser(app.url);
    const ok = await call(app.url, 'GET', '/trpc/keys.list', { token });
    expect(ok.status).toBe(200);
    expect(ok.body.result.data).toEqual({ keys: [], count: 0 });
  });

  test('every response carries a request id', async () => {
    const res = await call(app.url, 'GET', '/nope', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    const fresh = await call(app.url, 'GET', '/health');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  // Last: it breaks the database on purpose.
  test('a crash → 500 internal_error with no SQL text or stack trace', async () => {
    await app.sql('alter table users rename to users_gone');
    try {
      const res = await call(app.url, 'POST', '/api/auth/register', {
        body: { email: 'crash@example.com', password: 'secret1' },
      });
      expect(res.status).toBe(500);
      expectErrorShape(res.body, 'internal_error');
      const viaTrpc = await call(app.url, 'POST', '/trpc/auth.login', {
        body: { email: 'crash@example.com', password: 'secret1' },
      });
      expect(viaTrpc.status).toBe(500);
      expectErrorShape(viaTrpc.body, 'internal_error');
    } finally {
      await app.sql('alter table users_gone rename to users');
    }
  });
});
