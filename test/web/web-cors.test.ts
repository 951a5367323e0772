// CORS in a real browser: a page served from another origin (another port on 127.0.0.1) calls /v1 with a
// key, as a browser client of the SDK does. Chromium sends a real preflight (the Authorization and
// x-stainless-* headers make the request non-simple); with the default CORS_ORIGINS the calls succeed
// and the page can read the exposed headers, while the dashboard API from that origin is blocked.
import { expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { createApiKey, registerUser, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, openPage, useBrowserApp } from '../helpers/browser';

const browserSuite = browserDescribe('web-cors.test.ts');

let fake: FakeUpstream;
let app: TestApp;
let pageServer: ReturnType<typeof Bun.serve>;
let browser: Browser;

/** What the page's script reports back: each call's status and the headers it could read, or its failure. */
interface CallResult {
  ok: boolean;
  status?: number;
  error?: string;
  body?: any;
  remaining?: string | null;
  requestId?: string | null;
  processingMs?: string | null;
}

browserSuite('a page on another origin calls /v1 from chromium', () => {
  useBrowserApp({
    // The page is the test's own, served from the other origin.
    build: false,
    page: false,
    before: async () => {
      fake = await startFakeUpstream();
      // The other origin: same host, another port. It serves one empty page; the test drives its script.
      pageServer = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: () =>
          new Response('<!doctype html><html><head><title>client</title></head><body>client</body></html>', {
            headers: { 'content-type': 'text/html; charset=utf-8' },
          }),
      });
    },
    app: () => ({ env: { UPSTREAM_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: '50' } }),
    ready: (s) => ({ app, browser } = s),
    after: async () => {
      pageServer?.stop(true);
      await fake?.close();
    },
  });

  test(
    'models and a chat completion succeed with a key; the dashboard API is blocked',
    async () => {
      const user = await registerUser(app.url);
      const { key } = await createApiKey(app.url, user.token);
      const { context, page, pageErrors } = await openPage(browser);
      const pageOrigin = `http://127.0.0.1:${pageServer.port}`;
      expect(pageOrigin).not.toBe(new URL(app.url).origin);
      await page.goto(`${pageOrigin}/`);

      const results = await page.evaluate(
        async ({ base, key, jwt }) => {
          const run = async (path: string, init: RequestInit): Promise<CallResult> => {
            try {
              const res = await fetch(base + path, init);
              return {
                ok: true,
                status: res.status,
                body: await res.json(),
                remaining: res.headers.get('x-ratelimit-remaining-requests'),
                requestId: res.headers.get('x-request-id'),
                processingMs: res.headers.get('openai-processing-ms'),
              };
            } catch (error) {
              return { ok: false, error: String(error) };
            }
          };
          // The headers the openai SDK adds in a browser, which only a preflight can allow.
          const sdkHeaders = { authorization: `Bearer ${key}`, 'x-stainless-lang': 'js', 'x-stainless-retry-count': '0' };
          return {
            models: await run('/v1/models', { headers: sdkHeaders }),
            chat: await run('/v1/chat/completions', {
              method: 'POST',
              headers: { ...sdkHeaders, 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет из браузера' }] }),
            }),
            badKey: await run('/v1/chat/completions', {
              method: 'POST',
              headers: { authorization: 'Bearer cdt-wrong', 'content-type': 'application/json' },
              body: JSON.stringify({ model: 'acme/chat', messages: [] }),
            }),
            dashboard: await run('/api/keys', { headers: { authorization: `Bearer ${jwt}` } }),
          };
        },
        { base: app.url, key, jwt: user.token },
      );

      expect(results.models).toMatchObject({ ok: true, status: 200 });
      expect(results.models.body.object).toBe('list');

      expect(results.chat).toMatchObject({ ok: true, status: 200 });
      expect(results.chat.body.choices[0].message.content).toBe('Echo: Привет из браузера');
      // Exposed headers are readable from the page's script.
      expect(results.chat.remaining).toMatch(/^\d+$/);
      expect(results.chat.requestId).toBeTruthy();
      expect(results.chat.processingMs).toMatch(/^\d+$/);

      // An error is readable too: the page sees OpenAI's error object, not an opaque CORS failure.
      expect(results.badKey).toMatchObject({ ok: true, status: 401 });
      expect(results.badKey.body.error).toMatchObject({ type: 'unauthorized', code: 'invalid_api_key', param: null });

      // The dashboard API answers no other origin: chromium refuses the call.
      expect(results.dashboard.ok).toBe(false);
      expect(results.dashboard.error).toContain('Failed to fetch');

      // Chromium really asked first: the app counted a 204 preflight for each /v1 route the page called
      // with a key (playwright does not report preflights as requests; the app's own counter does).
      const metrics = await (await fetch(`${app.url}/metrics`)).text();
      const preflights = (route: string) =>
        Number(metrics.match(new RegExp(`conduit_http_requests_total\\{route="${route}",method="OPTIONS",status="204"\\} (\\d+)`))?.[1] ?? 0);
      expect(preflights('/v1/chat/completions')).toBeGreaterThanOrEqual(1);
      expect(preflights('/v1/models')).toBeGreaterThanOrEqual(1);
      expect(pageErrors).toEqual([]);
      await context.close();
    },
    FLOW_TIMEOUT_MS,
  );
});
