// CORS at the HTTP level: /v1 answers preflights and tags its answers for any origin by default
// (CORS_ORIGINS=*); the dashboard API answers only origins listed by name. The same in a real browser:
// test/web/web-cors.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const PAGE_ORIGIN = 'http://page.example:8080';
const PANEL_ORIGIN = 'https://panel.example';
/** What the openai SDK sends from a browser, besides authorization and content-type. */
const SDK_HEADERS =
  'authorization, content-type, x-stainless-os, x-stainless-lang, x-stainless-package-version, x-stainless-retry-count, x-stainless-timeout, openai-project';

let fake: FakeUpstream;
/** CORS_ORIGINS unset: `*` for /v1, nothing for the dashboard API. */
let open: TestApp;
/** CORS_ORIGINS lists one origin: it alone, on /v1 and on the dashboard API. */
let listed: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  [open, listed] = await Promise.all([
    startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: '100' } }),
    startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, CORS_ORIGINS: `${PANEL_ORIGIN}, http://other.example/` } }),
  ]);
});
afterAll(async () => {
  await Promise.all([open?.close(), listed?.close()]);
  await fake?.close();
});

const preflight = (app: TestApp, path: string, origin: string, method = 'POST', headers = SDK_HEADERS) =>
  fetch(`${app.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });

describe('/v1 with the default CORS_ORIGINS (*)', () => {
  test('a preflight gets 204 with the origin, methods, every header the SDK sends and a max-age', async () => {
    for (const path of ['/v1/chat/completions', '/v1/models', '/v1/embeddings', '/v1/responses/resp_1']) {
      const res = await preflight(open, path, PAGE_ORIGIN, path === '/v1/models' ? 'GET' : 'POST');
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
      const allowed = res.headers.get('access-control-allow-headers')!.split(', ');
      for (const header of SDK_HEADERS.split(', ')) expect(allowed).toContain(header);
      expect(allowed).toContain('idempotency-key');
      expect(allowed).toContain('x-conduit-cache');
      expect(allowed).toContain('x-stainless-arch');
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    }
  });

  test('a header outside the SDK family is not allowed', async () => {
    const res = await preflight(open, '/v1/chat/completions', PAGE_ORIGIN, 'POST', 'authorization, x-evil-header');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).not.toContain('x-evil-header');
  });

  test('answers carry Allow-Origin and expose the headers a client reads, on success and on error', async () => {
    const user = await registerUser(open.url);
    const { key } = await createApiKey(open.url, user.token);
    const ok = await fetch(`${open.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: PAGE_ORIGIN, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = ok.headers.get('access-control-expose-headers')!;
    for (const header of ['x-request-id', 'openai-processing-ms', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests', 'retry-after', 'x-conduit-cache']) {
      expect(exposed).toContain(header);
    }
    expect(ok.headers.get('x-ratelimit-remaining-requests')).toBe('99');

    const refused = await fetch(`${open.url}/v1/chat/completions`, { method: 'POST', headers: { origin: PAGE_ORIGIN }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    const models = await fetch(`${open.url}/v1/models`, { headers: { origin: PAGE_ORIGIN } });
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
    // Without an Origin (curl, the SDK on a server) nothing is added.
    expect((await fetch(`${open.url}/v1/models`)).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an OPTIONS that is no preflight is an ordinary unknown route', async () => {
    const res = await fetch(`${open.url}/v1/models`, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('unknown_url');
  });

  test('the dashboard API answers no other origin: no preflight answer, no CORS headers', async () => {
    for (const path of ['/api/keys', '/api/auth/login', '/trpc/keys.list']) {
      const res = await preflight(open, path, PAGE_ORIGIN);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(res.status).not.toBe(204);
    }
    const login = await fetch(`${open.url}/api/auth/login`, {
      method: 'POST',
      headers: { origin: PAGE_ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'whatever1' }),
    });
    expect(login.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS_ORIGINS listing origins', () => {
  test('/v1 answers the listed origins by name (with Vary: Origin) and no others', async () => {
    const ok = await preflight(listed, '/v1/chat/completions', PANEL_ORIGIN);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PANEL_ORIGIN);
    expect(ok.headers.get('vary')).toContain('Origin');
    // A trailing slash in the setting is not part of an origin.
    expect((await preflight(listed, '/v1/models', 'http://other.example', 'GET')).headers.get('access-control-allow-origin')).toBe('http://other.example');

    const stranger = await preflight(listed, '/v1/chat/completions', PAGE_ORIGIN);
    expect(stranger.status).toBe(204);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const models = await fetch(`${listed.url}/v1/models`, { headers: { origin: PAGE_ORIGIN } });
    expect(models.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('the dashboard API answers a listed origin, preflight and request, with its methods', async () => {
    const pre = await preflight(listed, '/api/keys', PANEL_ORIGIN, 'PATCH', 'authorization, content-type');
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(PANEL_ORIGIN);
    expect(pre.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');

    const user = await registerUser(listed.url);
    const keys = await fetch(`${listed.url}/api/keys`, { headers: { origin: PANEL_ORIGIN, authorization: `Bearer ${user.token}` } });
    expect(keys.status).toBe(200);
    expect(keys.headers.get('access-control-allow-origin')).toBe(PANEL_ORIGIN);
    // Errors keep the dashboard's own shape, CORS or not.
    const refused = await fetch(`${listed.url}/api/keys`, { headers: { origin: PANEL_ORIGIN } });
    expect(refused.status).toBe(401);
    expect(Object.keys((await refused.json()).error).sort()).toEqual(['message', 'type']);

    const stranger = await fetch(`${listed.url}/api/keys`, { headers: { origin: PAGE_ORIGIN, authorization: `Bearer ${user.token}` } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a CORS_ORIGINS entry that is not an origin stops the start', async () => {
    const { loadConfig } = await import('../../src/config');
    expect(() => loadConfig({ NODE_ENV: 'test', CORS_ORIGINS: 'panel.example/path' })).toThrow(/CORS_ORIGINS/);
  });
});
