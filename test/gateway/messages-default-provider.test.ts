// UPSTREAM_PROTOCOL=anthropic: the built-in provider `default` speaks Anthropic's Messages API. Anthropic
// clients pass through to it, chat clients are translated, its key goes as x-api-key, and /v1/embeddings,
// which has no Messages form, skips it rather than send it a body it cannot read.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient } from '../helpers/gateway';

setDefaultTimeout(30_000);

const KEY = 'sk-ant-default-0001';
const ADMIN = uniqueEmail('anthropic-default-admin');
let fake: FakeAnthropic;
let app: TestApp;
let key = '';

beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: KEY });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: KEY, UPSTREAM_PROTOCOL: 'anthropic', ADMIN_EMAILS: ADMIN } });
  const user = await registerUser(app.url);
  key = (await createApiKey(app.url, user.token)).key;
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

test('an Anthropic client and a chat client are both answered by the anthropic default provider, with its key as x-api-key; the admin list shows its protocol', async () => {
  const claude = new Anthropic({ baseURL: app.url, apiKey: key, maxRetries: 0 });
  const message = await claude.messages.create({ model: 'acme/chat', max_tokens: 32, messages: [{ role: 'user', content: 'Привет' }] });
  expect(message.content[0]).toMatchObject({ type: 'text', text: 'Echo: Привет' });
  const chat = await openaiClient(app, key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
  expect(chat.choices[0]!.message.content).toBe('Echo: Привет');
  const sent = fake.requests.filter((r) => r.path === '/v1/messages');
  expect(sent).toHaveLength(2);
  for (const r of sent) {
    expect(r.headers['x-api-key']).toBe(KEY);
    expect(r.headers.authorization).toBeUndefined();
  }
  const admin = await registerAdmin(app, ADMIN);
  const list = await call(app.url, 'GET', '/api/admin/providers', { token: admin.token });
  expect(list.body.data[0]).toMatchObject({ id: 'default', protocol: 'anthropic' });
});

test('/v1/embeddings skips a provider that speaks only Messages: no request reaches it', async () => {
  const before = fake.requests.length;
  const res = await call(app.url, 'POST', '/v1/embeddings', { token: key, body: { model: 'acme/embed', input: 'Привет' } });
  expect(res.status).toBe(502);
  expect(res.body.error.type).toBe('upstream_error');
  expect(fake.requests.length).toBe(before);
});

test('the model list is asked of the anthropic provider with x-api-key and anthropic-version', async () => {
  const res = await call(app.url, 'GET', '/v1/models', { token: key });
  expect(res.status).toBe(200);
  const asked = fake.requests.filter((r) => r.method === 'GET' && r.path === '/v1/models');
  expect(asked.length).toBeGreaterThan(0);
  expect(asked[0]!.headers).toMatchObject({ 'x-api-key': KEY, 'anthropic-version': '2023-06-01' });
  expect(asked[0]!.headers.authorization).toBeUndefined();
  expect(res.body.data.map((m: { id: string }) => m.id)).toContain('claude-sonnet-4');
});
