// E-commerce shops with their own YooKassa account, over HTTP against fake VK and fake YooKassa: the
// account in the shop settings (secret key sealed, never read back), check-out creating the order's
// payment on YooKassa (the template link as the fallback when that fails), and the shop's notifications
// verified by re-reading the payment with the shop's credentials.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { CLIENT, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const SHOP_ID = '665544';
const SHOP_SECRET = 'live_Qw3rTy-shop-secret-key_0123456789';
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}&cur={currency}';

let vk: FakeVk;
let yk: FakeYookassa;
let app: TestApp;
const { messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

beforeAll(async () => {
  [vk, yk] = await Promise.all([startFakeVk(), startFakeYookassa()]);
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, YOOKASSA_API_BASE_URL: yk.url, OUTBOX_POLL_INTERVAL_MS: '50' } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), yk?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Магазин «Лён»', token: TOKEN, confirmationCode: 'abc123' });
  yk.reset();
  yk.addShop(SHOP_ID, SHOP_SECRET);
});

async function shop(yookassa: Record<string, unknown> = { yookassaShopId: SHOP_ID, yookassaSecretKey: SHOP_SECRET }) {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Магазин «Лён»', type: 'ecommerce', model: 'acme/chat' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const base = `/api/v1/commerce/${agentId}`;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: GROUP, accessToken: TOKEN, secretKey: SECRET },
  });
  expect(social.status).toBe(200);
  const saved = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE, ...yookassa } });
  expect(saved.status).toBe(200);
  const hook = new URL(saved.body.webhookUrlWithSecret as string);
  return { owner, agentId, base, webhook: `${app.url}${hook.pathname}${hook.search}`, settings: saved };
}

/** The client orders one plaid for 1 500 ₽ in the VK dialogue; returns the order as the owner sees it and the bot's message. */
async function order(s: Awaited<ReturnType<typeof shop>>) {
  const product = await call(app.url, 'POST', `${s.base}/products`, { token: s.owner.token, body: { title: 'Плед', priceMinor: 150000 } });
  expect(product.status).toBe(201);
  const [page] = await sendAndWait(s.agentId, messageEvent({ action: 'catalog' }));
  await sendAndWait(s.agentId, messageEvent(payloadOf(page!, 'Плед')));
  await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
  await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
  const [message] = await sendAndWait(s.agentId, messageEvent({ action: 'confirm' }));
  const number = message!.message.match(/ORD-\d{8}-\d{4}/)![0];
  const listed = await call(app.url, 'GET', `${s.base}/orders`, { token: s.owner.token });
  const found = listed.body.orders.find((o: { number: string }) => o.number === number);
  return { order: found as { id: string; number: string; status: string; paymentLink: string; paymentId: string | null }, message: message!.message };
}

const deliver = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const orderById = async (s: { base: string; owner: { token: string } }, id: string) =>
  (await call(app.url, 'GET', `${s.base}/orders/${id}`, { token: s.owner.token })).body;

describe('shop settings with a YooKassa account', () => {
  test('the secret key is sealed and never read back; absent fields keep the account, a new shop id needs its key, null removes it', async () => {
    const s = await shop();
    expect(s.settings.body).toMatchObject({ yookassaShopId: SHOP_ID, yookassaSecretKeySet: true });
    expect(s.settings.text).not.toContain(SHOP_SECRET);
    const stored = await app.sql<{ yookassa_secret_key_sealed: string }>('select yookassa_secret_key_sealed from commerce_settings where agent_id = $1', [s.agentId]);
    expect(stored[0]!.yookassa_secret_key_sealed).not.toContain(SHOP_SECRET);

    const read = await call(app.url, 'GET', `${s.base}/settings`, { token: s.owner.token });
    expect(read.body).toMatchObject({ yookassaShopId: SHOP_ID, yookassaSecretKeySet: true, paymentLinkTemplate: TEMPLATE });
    expect(read.text).not.toContain(SHOP_SECRET);

    const kept = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(kept.body).toMatchObject({ yookassaShopId: SHOP_ID, yookassaSecretKeySet: true });
    const sameShop = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, yookassaShopId: SHOP_ID } });
    expect(sameShop.status).toBe(200);

    for (const body of [
      { yookassaShopId: '777888' },
      { yookassaShopId: 'shop-1', yookassaSecretKey: SHOP_SECRET },
      { yookassaShopId: SHOP_ID, yookassaSecretKey: 'with spaces inside' },
      { yookassaShopId: null, yookassaSecretKey: SHOP_SECRET },
    ]) {
      const res = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, ...body } });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[а-яё]/i);
    }

    const removed = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, yookassaShopId: null } });
    expect(removed.body).toMatchObject({ yookassaShopId: null, yookassaSecretKeySet: false });
    const keyOnly = await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, yookassaSecretKey: SHOP_SECRET },
    });
    expect(keyOnly.status).toBe(400);
  });
});

describe('check-out and payment', () => {
  test('the order’s payment is created on the shop’s YooKassa (order id as Idempotence-Key, our metadata) and the client gets its page', async () => {
    const s = await shop();
    const { order: o, message } = await order(s);
    const posts = yk.calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.shopId).toBe(SHOP_ID);
    expect(post.headers['idempotence-key']).toBe(o.id);
    const templateLink = `https://pay.example.ru/checkout?order=${o.number}&sum=1500.00&cur=RUB`;
    expect(post.body).toEqual({
      amount: { value: '1500.00', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: templateLink },
      description: `Оплата заказа ${o.number}`,
      metadata: { orderNumber: o.number, orderId: o.id, agentId: s.agentId },
    });
    const payment = yk.payments[0]!;
    expect(o.paymentLink).toEqual(payment.confirmationUrl);
    expect(o.paymentId).toEqual(payment.id);
    expect(message).toContain(payment.confirmationUrl);
    expect(message).not.toContain('pay.example.ru');
  });

  test('notifications are verified by re-reading: a forged success changes nothing, the real one pays the order once', async () => {
    const s = await shop();
    const { order: o } = await order(s);
    const forged = await yk.notify(s.webhook, o.paymentId!, 'payment.succeeded', { status: 'succeeded', paid: true });
    expect(forged.status).toBe(200);
    expect((await orderById(s, o.id)).status).toBe('pending');
    const reads = yk.calls.filter((c) => c.method === 'GET');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.shopId).toBe(SHOP_ID);

    yk.succeed(o.paymentId!);
    expect((await yk.notify(s.webhook, o.paymentId!, 'payment.succeeded')).status).toBe(200);
    expect(await orderById(s, o.id)).toMatchObject({ status: 'paid', paymentId: o.paymentId });
    const thanks = await waitFor(() => vk.sentMessages.find((m) => m.message.includes('Оплата заказа')), 5000, 'the client message');
    expect(thanks.peerId).toBe(CLIENT);
    expect((await yk.notify(s.webhook, o.paymentId!, 'payment.succeeded')).status).toBe(200);
    const outcomes = await app.sql<{ event: string; outcome: string }>('select event, outcome from payment_events where agent_id = $1 order by received_at', [
      s.agentId,
    ]);
    expect(outcomes).toEqual([
      { event: 'payment.pending', outcome: 'recorded' },
      { event: 'payment.succeeded', outcome: 'paid' },
    ]);
  });

  test('YooKassa down on the re-read → 502 (YooKassa redelivers); a success of another amount does not pay the order; an unknown payment is acknowledged', async () => {
    const s = await shop();
    const { order: o } = await order(s);
    const unknown = await deliver(s.webhook, {
      type: 'notification',
      event: 'payment.succeeded',
      object: { ...yk.paymentObject(o.paymentId!), id: '2f3b588d-000f-5000-8000-000000000001', status: 'succeeded', paid: true },
    });
    expect(unknown.status).toBe(200);

    yk.succeed(o.paymentId!);
    yk.failNext({ method: 'GET', status: 500, times: 3 });
    const down = await yk.notify(s.webhook, o.paymentId!);
    expect(down.status).toBe(502);
    expect((await down.json()).error.type).toBe('upstream_error');
    expect((await orderById(s, o.id)).status).toBe('pending');

    yk.payment(o.paymentId!)!.amount = { value: '15.00', currency: 'RUB' };
    expect((await yk.notify(s.webhook, o.paymentId!)).status).toBe(200);
    expect((await orderById(s, o.id)).status).toBe('pending');

    // The URL secret is still checked first.
    const noToken = new URL(s.webhook);
    noToken.search = '';
    expect((await yk.notify(noToken.toString(), o.paymentId!)).status).toBe(403);
  });

  test('YooKassa refusing the payment (the shop’s key was rotated) falls back to the template link', async () => {
    const s = await shop();
    yk.addShop(SHOP_ID, 'live_the-new-key-the-owner-did-not-save');
    const { order: o, message } = await order(s);
    const templateLink = `https://pay.example.ru/checkout?order=${o.number}&sum=1500.00&cur=RUB`;
    expect(o.paymentLink).toBe(templateLink);
    expect(o.paymentId).toBeNull();
    expect(message).toContain(templateLink);
    expect(yk.calls.filter((c) => c.method === 'POST').map((c) => c.status)).toEqual([401]);
  });
});
