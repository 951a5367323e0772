// Who may send YooKassa's notifications: shops that take payment by link (no YooKassa account to re-read the
// payment with) accept them only from YooKassa's published addresses — the forwarded address counting only
// behind a trusted proxy (TRUST_PROXY) — with the URL secret still checked. Shops with an account rely on
// re-reading the payment; top-ups re-read too, and by default take notifications only from those addresses,
// with payment ids in YooKassa's format and a bound on the vain re-reads one address can cause.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}&cur={currency}';
const SHOP_ID = '665544';
const SHOP_SECRET = 'live_Qw3rTy-shop-secret-key_0123456789';
const TOPUP_SHOP = '506751';
const TOPUP_SECRET = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const YOOKASSA_V4 = '185.71.76.10';
const YOOKASSA_V6 = '2a02:5180:0:2669::3b';
const STRANGER = '203.0.113.7';
/** Valid in form, unknown to YooKassa. */
const unknownPaymentId = () => `${crypto.randomUUID().slice(0, 8)}-000f-5000-8000-${crypto.randomUUID().slice(-12)}`;

let yk: FakeYookassa;
/** Behind one trusted proxy, YooKassa's published list (the default). */
let proxied: TestApp;
/** No TRUST_PROXY: X-Forwarded-For is anyone's say-so. */
let direct: TestApp;

const topupEnv = () => ({ YOOKASSA_SHOP_ID: TOPUP_SHOP, YOOKASSA_SECRET_KEY: TOPUP_SECRET, YOOKASSA_API_BASE_URL: yk.url });

beforeAll(async () => {
  yk = await startFakeYookassa();
  // YOOKASSA_NOTIFICATION_IPS undefined: the published list, as in production (the test helper's default lets
  // 127.0.0.1 through for every other test).
  [proxied, direct] = await Promise.all([
    startTestApp({ env: { ...topupEnv(), TRUST_PROXY: '1', YOOKASSA_NOTIFICATION_IPS: undefined } }),
    startTestApp({ env: { ...topupEnv(), YOOKASSA_NOTIFICATION_IPS: undefined } }),
  ]);
});
afterAll(async () => {
  await Promise.all([proxied?.close(), direct?.close()]);
  await yk?.close();
});
beforeEach(() => {
  yk.reset();
  yk.addShop(SHOP_ID, SHOP_SECRET);
  yk.addShop(TOPUP_SHOP, TOPUP_SECRET);
});

/** A shop on the link template (or with a YooKassa account), and one pending order of 1 500 ₽. */
async function shopWithOrder(app: TestApp, account: Record<string, unknown> = {}) {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Магазин «Лён»', type: 'ecommerce' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/commerce/${agentId}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE, ...account } });
  expect(saved.status).toBe(200);
  const hook = new URL(saved.body.webhookUrlWithSecret as string);
  const number = `ORD-20261201-${String(Math.floor(Math.random() * 9000) + 1000)}`;
  const [order] = await app.sql<{ id: string }>(
    `insert into orders (agent_id, number, items, total_minor, currency, payment_link)
     values ($1, $2, '[]', 150000, 'RUB', 'https://pay.example.ru/x') returning id`,
    [agentId, number],
  );
  return { agentId, number, orderId: order!.id, webhook: `${app.url}${hook.pathname}${hook.search}` };
}

const notification = (number: string, paymentId = `pay-${Math.random().toString(36).slice(2)}`) => ({
  type: 'notification',
  event: 'payment.succeeded',
  object: {
    id: paymentId,
    status: 'succeeded',
    paid: true,
    amount: { value: '1500.00', currency: 'RUB' },
    metadata: { orderNumber: number },
    description: `Оплата заказа ${number}`,
    created_at: new Date().toISOString(),
    test: false,
  },
});

function deliver(url: string, body: unknown, forwardedFor?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

const statusOf = async (app: TestApp, orderId: string) => (await app.sql<{ status: string }>('select status from orders where id = $1', [orderId]))[0]!.status;

describe('shops on the link template', () => {
  test("YooKassa's addresses (IPv4 and IPv6) as the trusted proxy reports them are accepted; any other address is 403 and changes nothing", async () => {
    const stranger = await shopWithOrder(proxied);
    const res = await deliver(stranger.webhook, notification(stranger.number), STRANGER);
    expect(res.status).toBe(403);
    expect((await res.json()).error.type).toBe('forbidden');
    // The proxy itself (no header): not YooKassa either.
    expect((await deliver(stranger.webhook, notification(stranger.number))).status).toBe(403);
    // A client's own entry to the left of what the proxy appended counts for nothing.
    expect((await deliver(stranger.webhook, notification(stranger.number), `${YOOKASSA_V4}, ${STRANGER}`)).status).toBe(403);
    expect(await statusOf(proxied, stranger.orderId)).toBe('pending');
    expect(await proxied.sql('select 1 from payment_events where agent_id = $1', [stranger.agentId])).toEqual([]);

    for (const address of [YOOKASSA_V4, YOOKASSA_V6, '77.75.156.35', `${STRANGER}, 77.75.154.200`]) {
      const s = await shopWithOrder(proxied);
      const ok = await deliver(s.webhook, notification(s.number), address);
      expect(ok.status).toBe(200);
      expect(await statusOf(proxied, s.orderId)).toBe('paid');
    }
  });

  test('the URL secret is still checked: from YooKassa’s address with a wrong secret → 403', async () => {
    const s = await shopWithOrder(proxied);
    const forged = new URL(s.webhook);
    forged.searchParams.set('token', 'guessed-secret-000000000000');
    expect((await deliver(forged.toString(), notification(s.number), YOOKASSA_V4)).status).toBe(403);
    expect(await statusOf(proxied, s.orderId)).toBe('pending');
  });

  test('without TRUST_PROXY the forwarded address is ignored: the socket (127.0.0.1) is no YooKassa address', async () => {
    const s = await shopWithOrder(direct);
    expect((await deliver(s.webhook, notification(s.number), YOOKASSA_V4)).status).toBe(403);
    expect(await statusOf(direct, s.orderId)).toBe('pending');
  });
});

describe('notifications verified by re-reading', () => {
  test('a shop with its own YooKassa account re-reads the payment whoever sends the notification', async () => {
    const s = await shopWithOrder(proxied, { yookassaShopId: SHOP_ID, yookassaSecretKey: SHOP_SECRET });
    const id = unknownPaymentId();
    const res = await deliver(s.webhook, notification(s.number, id), STRANGER);
    expect(res.status).toBe(200);
    expect(yk.count('GET', `/payments/${id}`)).toBe(1);
    expect(await statusOf(proxied, s.orderId)).toBe('pending');
    // An id that is no YooKassa payment id is not asked about: `..` would have read GET /v3/.
    for (const bad of ['..', '../refunds', 'pay-1']) expect((await deliver(s.webhook, notification(s.number, bad), STRANGER)).status).toBe(200);
    expect(yk.calls.filter((c) => c.method === 'GET')).toHaveLength(1);
    expect(await statusOf(proxied, s.orderId)).toBe('pending');
  });

  test("top-ups: by default only from YooKassa's addresses; YOOKASSA_NOTIFICATION_IPS= (empty) switches the check off", async () => {
    const id = unknownPaymentId();
    const body = { type: 'notification', event: 'payment.succeeded', object: { id, status: 'succeeded' } };
    const url = `${proxied.url}/api/billing/yookassa/notifications`;
    const refused = await deliver(url, body, STRANGER);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error.type).toBe('forbidden');
    expect(yk.count('GET', `/payments/${id}`)).toBe(0);
    expect((await deliver(url, body, YOOKASSA_V6)).status).toBe(200);
    expect(yk.count('GET', `/payments/${id}`)).toBe(1);

    const open = await startTestApp({ env: { ...topupEnv(), TRUST_PROXY: '1', YOOKASSA_NOTIFICATION_IPS: '' } });
    try {
      expect((await deliver(`${open.url}/api/billing/yookassa/notifications`, body, STRANGER)).status).toBe(200);
      expect(yk.count('GET', `/payments/${id}`)).toBe(2);
    } finally {
      await open.close();
    }
  });

  test('top-ups: a payment id not in YooKassa’s format is a 400 and YooKassa is not asked', async () => {
    const url = `${proxied.url}/api/billing/yookassa/notifications`;
    for (const id of [
      '..',
      '.',
      '../me',
      'pay-1',
      '2f3b588d-000f-5000-8000-1d6e87c7fbd',
      '2f3b588d-000f-5000-8000-1d6e87c7fbdg',
      ' 2f3b588d-000f-5000-8000-1d6e87c7fbde',
      '2f3b588d%2F000f-5000-8000-1d6e87c7fbd',
    ]) {
      const res = await deliver(url, { type: 'notification', event: 'payment.succeeded', object: { id, status: 'succeeded' } }, YOOKASSA_V4);
      expect({ id, status: res.status }).toEqual({ id, status: 400 });
      expect((await res.json()).error).toEqual({
        type: 'invalid_request_error',
        message: 'В уведомлении не идентификатор платежа ЮKassa: ожидается 36 символов из шестнадцатеричных цифр и дефисов',
      });
    }
    expect(yk.calls).toHaveLength(0);
  });

  test('top-ups: one address gets at most 20 re-reads a minute that find no top-up of ours; the rest 429 with Retry-After; real ones cost nothing', async () => {
    const url = `${proxied.url}/api/billing/yookassa/notifications`;
    const forger = '185.71.77.20';
    const forged = () => ({ type: 'notification', event: 'payment.succeeded', object: { id: unknownPaymentId(), status: 'succeeded' } });
    const answers = await Promise.all(Array.from({ length: 50 }, () => deliver(url, forged(), forger)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    expect(yk.count('GET')).toBe(20);
    const throttled = answers.find((a) => a.status === 429)!;
    const retryAfter = Number(throttled.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await throttled.json()).error).toEqual({ type: 'rate_limit_exceeded', message: 'Слишком много уведомлений ЮKassa с вашего адреса, повторите позже' });

    // Another of YooKassa's addresses is not held up; a notification of a real top-up uses none of its allowance.
    const user = await registerUser(proxied.url);
    const created = await call(proxied.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 500 } });
    expect(created.status).toBe(201);
    const [row] = await proxied.sql<{ payment_id: string }>('select payment_id from topups where id = $1', [created.body.id]);
    const other = '185.71.77.21';
    for (let i = 0; i < 25; i++) expect((await deliver(url, yk.notificationBody(row!.payment_id), other)).status).toBe(200);
    yk.succeed(row!.payment_id);
    expect((await deliver(url, yk.notificationBody(row!.payment_id), other)).status).toBe(200);
    expect((await call(proxied.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(3 + 500);
    expect(yk.count('GET')).toBe(20 + 26);
  });
});

describe('the address list', () => {
  test("YooKassa's published ranges, CIDR edges, IPv4-mapped IPv6; a list naming nothing switches the check off, one with a non-address is refused at start-up", async () => {
    const { addressInRanges, parseAddressRanges } = await import('../../src/http/address-ranges');
    const { loadConfig, ConfigError, YOOKASSA_NOTIFICATION_RANGES } = await import('../../src/config');
    const ranges = parseAddressRanges([...YOOKASSA_NOTIFICATION_RANGES]);
    for (const inside of [
      '185.71.76.0',
      '185.71.76.31',
      '185.71.77.17',
      '77.75.153.127',
      '77.75.154.128',
      '77.75.154.255',
      '77.75.156.11',
      '77.75.156.35',
      '::ffff:185.71.76.5',
      '2a02:5180::1',
      '2A02:5180:FFFF::',
    ]) {
      expect(addressInRanges(inside, ranges)).toBe(true);
    }
    for (const outside of ['185.71.76.32', '77.75.153.128', '77.75.154.127', '77.75.156.12', '2a02:5181::1', '127.0.0.1', 'unknown', '']) {
      expect(addressInRanges(outside, ranges)).toBe(false);
    }
    const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: '0'.repeat(64) };
    expect(loadConfig(base).config).toMatchObject({ yookassaNotificationIps: [...YOOKASSA_NOTIFICATION_RANGES] });
    expect(loadConfig({ ...base, YOOKASSA_NOTIFICATION_IPS: ' 10.0.0.0/8 , ::1 ' }).config).toMatchObject({ yookassaNotificationIps: ['10.0.0.0/8', '::1'] });
    // Set empty, the list names nothing: no sender check (unlike other settings, where empty means unset).
    expect(loadConfig({ ...base, YOOKASSA_NOTIFICATION_IPS: '' }).config.yookassaNotificationIps).toEqual([]);
    expect(loadConfig({ ...base, YOOKASSA_NOTIFICATION_IPS: ' , ' }).config.yookassaNotificationIps).toEqual([]);
    for (const bad of ['yookassa.ru', '185.71.76.0/33', '1.2.3', '10.0.0.1,nope']) {
      expect(() => loadConfig({ ...base, YOOKASSA_NOTIFICATION_IPS: bad })).toThrow(ConfigError);
    }
  });
});
