// JSON nested deeper than 64 levels, on every route that takes a JSON body: a 400 (or, on the messenger
// webhooks, the sender's acknowledgement) before anything is stored or sent anywhere, never a 500. A body
// 100,000 levels deep used to reach PostgreSQL's jsonb writer and overflow the stack.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { BOT_TOKEN, freePort, messengerEnv, OPERATOR, seedTelegram } from '../helpers/messenger';
import { CODE, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(60_000);

const DEEP = 100_000;
/** The payment webhooks read at most 64 KB: as deep as fits there. */
const DEEP_PAYMENT = 30_000;

/** `{"k":[[[…]]]}` with `levels` levels of arrays and objects in all (the outer object is one). */
const nested = (levels: number, key = 'padding', extra = '') => `{${extra}"${key}":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

let vk: FakeVk;
let telegram: FakeTelegram;
let upstream: FakeUpstream;
let yookassa: FakeYookassa;
let app: TestApp;
let owner: Awaited<ReturnType<typeof registerUser>>;
let apiKey: string;
let creator: string;
let shop: string;
let telegramSecret: string;
let paymentToken: string;

beforeAll(async () => {
  [vk, telegram, upstream, yookassa] = await Promise.all([startFakeVk(), startFakeTelegram(), startFakeUpstream(), startFakeYookassa()]);
  yookassa.addShop('506070', 'test_depth-secret-key');
  seedTelegram(telegram);
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  app = await startTestApp({
    env: {
      ...messengerEnv(telegram, freePort()),
      VK_API_BASE_URL: vk.url,
      UPSTREAM_BASE_URL: upstream.url,
      YOOKASSA_SHOP_ID: '506070',
      YOOKASSA_SECRET_KEY: 'test_depth-secret-key',
      YOOKASSA_API_BASE_URL: yookassa.url,
    },
  });
  owner = await registerUser(app.url);
  apiKey = (await createApiKey(app.url, owner.token)).key;
  const json = async (method: string, path: string, body: unknown) => {
    const res = await fetch(app.url + path, {
      method,
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  creator = (await json('POST', '/api/agents', { name: 'Креатор', type: 'creator', model: 'acme/chat' })).id;
  shop = (await json('POST', '/api/agents', { name: 'Магазин', type: 'ecommerce', model: 'acme/chat' })).id;
  await json('PUT', `/api/v1/messenger/${creator}/settings`, { botToken: BOT_TOKEN, userId: OPERATOR.id });
  telegramSecret = telegram.webhook(BOT_TOKEN)!.secret_token!;
  await json('PUT', `/api/v1/social/${creator}/settings`, { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE });
  const settings = await json('PUT', `/api/v1/commerce/${shop}/settings`, { paymentLinkTemplate: 'https://pay.example.ru/checkout?order={orderNumber}' });
  paymentToken = new URL(settings.webhookUrlWithSecret).searchParams.get('token')!;
});

afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), telegram?.close(), upstream?.close(), yookassa?.close()]);
});

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, text, body: parsed };
}

const count = async (sql: string, params: unknown[] = []) => Number((await app.sql<{ n: string }>(`select count(*)::text as n from ${sql}`, params))[0]!.n);

function expectTooDeep(res: { status: number; body: any; text: string }, where: string) {
  expect({ where, status: res.status, type: res.body?.error?.type }).toEqual({ where, status: 400, type: 'invalid_request_error' });
  expect(res.body.error.message).toBe('Слишком глубокая вложенность JSON: допускается не больше 64 уровней массивов и объектов');
}

describe('JSON nested 100,000 levels deep', () => {
  test('REST and /trpc: a 400 in the one error shape, nothing created', async () => {
    const auth = { authorization: `Bearer ${owner.token}` };
    const agentsBefore = await count('agents where user_id = $1', [owner.userId]);
    expectTooDeep(await post('/api/agents', nested(DEEP, 'name'), auth), 'REST');
    expectTooDeep(await post('/api/keys', nested(DEEP, 'name'), auth), 'REST keys');
    expectTooDeep(await post('/trpc/agents.create', nested(DEEP, 'name'), auth), '/trpc');
    // A query's input rides in the URL: held to the same depth.
    const input = encodeURIComponent(nested(200, 'cursor'));
    const query = await fetch(`${app.url}/trpc/account.usage?input=${input}`, { headers: auth });
    expectTooDeep({ status: query.status, text: '', body: await query.json() }, '/trpc query');
    expect(await count('agents where user_id = $1', [owner.userId])).toBe(agentsBefore);
    expect(await count('api_keys where user_id = $1', [owner.userId])).toBe(1);
  });

  test('/v1: OpenAI’s error shape with code invalid_json; nothing sent upstream, nothing billed', async () => {
    upstream.reset();
    const auth = { authorization: `Bearer ${apiKey}` };
    for (const path of ['/v1/chat/completions', '/v1/embeddings', '/v1/responses']) {
      const res = await post(path, nested(DEEP, 'messages', '"model":"acme/chat",'), auth);
      expectTooDeep(res, path);
      expect(res.body.error.code).toBe('invalid_json');
    }
    expect(upstream.requests).toHaveLength(0);
    expect(await count('usage_records where user_id = $1', [owner.userId])).toBe(0);
  });

  test('VK and Telegram: acknowledged as each wants, nothing stored or handled', async () => {
    const vkAnswer = await post(`/api/v1/social/webhook/${creator}`, nested(DEEP, 'object', `"type":"message_new","event_id":"evt-deep","secret":"${SECRET}",`));
    expect({ status: vkAnswer.status, text: vkAnswer.text }).toEqual({ status: 200, text: 'ok' });
    const tgAnswer = await post(`/api/v1/messenger/${creator}/webhook`, nested(DEEP, 'message', '"update_id":900000001,'), {
      'x-telegram-bot-api-secret-token': telegramSecret,
    });
    expect(tgAnswer.status).toBe(200);
    expect(await count('social_events where agent_id = $1', [creator])).toBe(0);
    expect(await count('messenger_updates where agent_id = $1', [creator])).toBe(0);
    expect(await count('dialogues where agent_id = $1', [creator])).toBe(0);
    // The secret header is still checked first: a stranger's deep body is refused as before.
    const stranger = await post(`/api/v1/messenger/${creator}/webhook`, nested(DEEP, 'message'), { 'x-telegram-bot-api-secret-token': 'wrong-secret' });
    expect(stranger.status).toBe(403);
  });

  test('payment notifications (the shop’s and top-ups’): a 400, no call to YooKassa, nothing stored', async () => {
    yookassa.reset();
    const body = nested(DEEP_PAYMENT, 'object', '"type":"notification","event":"payment.succeeded",');
    expectTooDeep(await post(`/api/v1/commerce/webhook/${shop}?token=${encodeURIComponent(paymentToken)}`, body), 'shop payments');
    expectTooDeep(await post('/api/billing/yookassa/notifications', body), 'top-ups');
    expect(yookassa.calls).toHaveLength(0);
    expect(await count('payment_events where agent_id = $1', [shop])).toBe(0);
  });
});

describe('the limit is 64 levels', () => {
  test('64 levels pass the check (and meet the usual rules), 65 are refused', async () => {
    const auth = { authorization: `Bearer ${owner.token}` };
    const at64 = await post('/api/agents', nested(64, 'name'), auth);
    expect(at64.status).toBe(400);
    expect(at64.body.error.message).not.toContain('вложенность');
    expectTooDeep(await post('/api/agents', nested(65, 'name'), auth), 'REST 65');

    // Brackets inside strings are text, not nesting, whatever their escapes.
    const prompt = `${'['.repeat(500)}\\"{${'{'.repeat(500)}\\\\`;
    const created = await post('/api/agents', `{"name":"Скобки","type":"creator","systemPrompt":"${prompt}"}`, auth);
    expect(created.status).toBe(201);
    expect(created.body.systemPrompt).toBe(JSON.parse(`"${prompt}"`));
  });
});
