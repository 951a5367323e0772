// GET /metrics in Prometheus text format: requests by route and status, /v1 latency and time to first
// token, upstream latency and errors, tokens and cost by model, streams in flight, the settlement backlog,
// lease top-ups and the outbox backlog; behind METRICS_TOKEN when it is set.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, settleAll } from '../helpers/gateway';

setDefaultTimeout(30_000);

const TOKEN = 'metrics-token-for-the-scraper';
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, METRICS_TOKEN: TOKEN } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

/** The value of one sample line, e.g. sample(text, 'conduit_tokens_total{model="acme/chat",kind="prompt"}'). */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

/** The distinct route labels of conduit_http_requests_total. */
function routeLabels(text: string): string[] {
  return [...new Set([...text.matchAll(/^conduit_http_requests_total\{route="([^"]*)"/gm)].map((m) => m[1]!))];
}

async function scrape(): Promise<string> {
  const res = await call(app.url, 'GET', '/metrics', { token: TOKEN });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text;
}

describe('/metrics', () => {
  test('needs METRICS_TOKEN when it is set', async () => {
    expect((await call(app.url, 'GET', '/metrics')).status).toBe(401);
    const wrong = await call(app.url, 'GET', '/metrics', { token: 'not-the-metrics-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe('unauthorized');
  });

  test('counts what /v1 did: requests, latency, first token, upstream, tokens, cost, top-ups', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    const client = openaiClient(app, key.key);
    await client.chat.completions.create({ model: 'acme/chat', messages });
    const stream = await client.chat.completions.create({ model: 'acme/chat', messages, stream: true });
    for await (const _ of stream) {
      // drain
    }
    await client.chat.completions.create({ model: 'fake/error-500', messages }).catch(() => null);
    await call(app.url, 'DELETE', `/api/keys/${crypto.randomUUID()}`, { token: user.token });
    await call(app.url, 'GET', `/no/such/route/${crypto.randomUUID()}`);
    // A payment notification this instance cannot take (no YooKassa account configured) is a failed event.
    await call(app.url, 'POST', '/api/billing/yookassa/notifications', { body: { type: 'notification' } });
    await settleAll(app);

    const text = await scrape();
    expect(sample(text, 'conduit_http_requests_total{route="/v1/chat/completions",method="POST",status="200"}')).toBe(2);
    expect(sample(text, 'conduit_http_requests_total{route="/v1/chat/completions",method="POST",status="502"}')).toBe(1);
    // Ids become :id, unknown paths one label: the label set stays small whatever clients send.
    expect(sample(text, 'conduit_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/route="\/no\/such/);
    expect(sample(text, 'conduit_v1_request_duration_seconds_count{endpoint="chat",stream="false",status="ok"}')).toBe(1);
    expect(sample(text, 'conduit_v1_request_duration_seconds_count{endpoint="chat",stream="true",status="ok"}')).toBe(1);
    expect(sample(text, 'conduit_v1_time_to_first_token_seconds_count{endpoint="chat"}')).toBe(1);
    expect(sample(text, 'conduit_upstream_response_seconds_count{status="200"}')).toBe(2);
    expect(sample(text, 'conduit_upstream_errors_total{status="500"}')).toBe(1);
    // The fake reports 12 prompt and 7 completion tokens for each answer.
    expect(sample(text, 'conduit_tokens_total{model="acme/chat",kind="prompt"}')).toBe(24);
    expect(sample(text, 'conduit_tokens_total{model="acme/chat",kind="completion"}')).toBe(14);
    expect(sample(text, 'conduit_cost_total{model="acme/chat"}')).toBeCloseTo(38 * 125e-9, 12);
    expect(sample(text, 'conduit_lease_topups_total{lease="balance",outcome="ok"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'conduit_streams_in_flight')).toBe(0);
    expect(sample(text, 'conduit_settlement_backlog_rows')).toBe(0);
    expect(sample(text, 'conduit_settlement_oldest_unwritten_seconds')).toBe(0);
    expect(text).toContain('# TYPE conduit_outbox_backlog_rows gauge');
    expect(sample(text, 'conduit_webhook_events_total{source="payments",outcome="failed"}')).toBe(1);
  });

  test('requests are counted by route template whatever the status: ids and unknown paths leave the label set bounded', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    const before = routeLabels(await scrape());
    const n = 150;
    for (let i = 0; i < n; i++) {
      const id = `resp_${crypto.randomUUID().replaceAll('-', '')}`;
      // Unauthenticated (401), authenticated but unknown (404), unknown paths (404), a REST id without a token.
      await call(app.url, 'GET', `/v1/responses/${id}`);
      await call(app.url, 'GET', `/v1/responses/${id}`, { token: key.key });
      await call(app.url, 'GET', `/v1/${id}`, { token: key.key });
      await call(app.url, 'GET', `/api/${id}/${i}`);
      await call(app.url, 'DELETE', `/api/keys/${id}`);
      await call(app.url, 'GET', `/${id}`);
    }
    const text = await scrape();
    expect(sample(text, 'conduit_http_requests_total{route="/v1/responses/:id",method="GET",status="401"}')).toBe(n);
    expect(sample(text, 'conduit_http_requests_total{route="/v1/responses/:id",method="GET",status="404"}')).toBe(n);
    expect(sample(text, 'conduit_http_requests_total{route="/api/keys/:id",method="DELETE",status="401"}')).toBe(n);
    expect(sample(text, 'conduit_http_requests_total{route="unmatched",method="GET",status="404"}')).toBeGreaterThanOrEqual(3 * n);
    // None of the ids became a label: the routes counted are the app's templates, as before these requests.
    const after = routeLabels(text);
    expect(after.filter((route) => route.includes('resp_'))).toEqual([]);
    expect(after.length).toBeLessThanOrEqual(before.length + 2);
  });
});
