// E-commerce agents over HTTP: the catalog API and its import, the shop in the VK dialogue from catalog
// to check-out, order numbering under concurrency, and payment notifications (valid, forged, repeated,
// out of order) with the payment notice delivered once to the owner and the channel.
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { BOT, BOT_TOKEN, CHANNEL, freePort, messengerEnv, OPERATOR, seedTelegram, waitFor } from '../helpers/messenger';
import { actionsOf, buttonsOf, CLIENT, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';
import { dayIn, formatOrderNumber } from '../../src/integrations/messenger/notify';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let vk: FakeVk;
let telegram: FakeTelegram;
let app: TestApp;
const { post, messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);
/** Intl puts no-break spaces between digit groups. */
const plain = (text: string) => text.replace(/\s/g, ' ');
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}&cur={currency}';

beforeAll(async () => {
  [vk, telegram] = await Promise.all([startFakeVk(), startFakeTelegram()]);
  app = await startTestApp({ env: { ...messengerEnv(telegram, freePort()), VK_API_BASE_URL: vk.url } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), telegram?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Магазин «Лён»', token: TOKEN, confirmationCode: 'abc123' });
  telegram.reset();
  seedTelegram(telegram);
  telegram.setChatMember(CHANNEL.id, BOT.id, { status: 'administrator', can_post_messages: true });
});

async function shop(options: { social?: boolean; messenger?: boolean; settings?: boolean; type?: string } = {}) {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Магазин «Лён»', type: options.type ?? 'ecommerce', model: 'acme/chat' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const base = `/api/v1/commerce/${agentId}`;
  if (options.social !== false) {
    const res = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
      token: owner.token,
      body: { groupId: GROUP, accessToken: TOKEN, secretKey: SECRET },
    });
    expect(res.status).toBe(200);
  }
  if (options.messenger) {
    const res = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, {
      token: owner.token,
      body: { botToken: BOT_TOKEN, userId: OPERATOR.id, channelId: `@${CHANNEL.username}` },
    });
    expect(res.status).toBe(200);
  }
  let webhook = '';
  if (options.settings !== false && (options.type ?? 'ecommerce') === 'ecommerce') {
    const res = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(res.status).toBe(200);
    webhook = res.body.webhookUrlWithSecret;
  }
  return { owner, agentId, base, webhook };
}

async function addProduct(s: { owner: { token: string }; base: string }, body: Record<string, unknown>) {
  const res = await call(app.url, 'POST', `${s.base}/products`, { token: s.owner.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string; priceMinor: number };
}

describe('catalog API', () => {
  test('create, read, update, list in pages, delete; bad input → 400', async () => {
    const s = await shop({ social: false });
    const created = await call(app.url, 'POST', `${s.base}/products`, {
      token: s.owner.token,
      body: { title: 'Льняная скатерть', description: '150×220 см', priceMinor: 350000, currency: 'rub' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ title: 'Льняная скатерть', priceMinor: 350000, currency: 'RUB', available: true });
    const patched = await call(app.url, 'PATCH', `${s.base}/products/${id}`, { token: s.owner.token, body: { priceMinor: 329900, available: false } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ priceMinor: 329900, available: false, title: 'Льняная скатерть' });
    expect((await call(app.url, 'GET', `${s.base}/products/${id}`, { token: s.owner.token })).body.priceMinor).toBe(329900);

    for (let i = 1; i <= 4; i++) await addProduct(s, { title: `Салфетка ${i}`, priceMinor: 50000 + i });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { products: { id: string }[]; nextCursor: string | null } } = await call(
        app.url,
        'GET',
        `${s.base}/products?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: s.owner.token },
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.products.map((p: { id: string }) => p.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);

    expect((await call(app.url, 'DELETE', `${s.base}/products/${id}`, { token: s.owner.token })).status).toBe(200);
    expect((await call(app.url, 'GET', `${s.base}/products/${id}`, { token: s.owner.token })).status).toBe(404);

    for (const body of [
      { title: '', priceMinor: 100 },
      { title: 'x', priceMinor: -1 },
      { title: 'x', priceMinor: 10.5 },
      { title: 'x', priceMinor: 100, currency: 'рубли' },
    ]) {
      const res = await call(app.url, 'POST', `${s.base}/products`, { token: s.owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });

  test('only the owner, only for E-commerce agents', async () => {
    const s = await shop({ social: false });
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `${s.base}/products`, { token: stranger.token })).status).toBe(403);
    expect((await call(app.url, 'GET', `${s.base}/orders`, { token: stranger.token })).status).toBe(403);
    expect((await call(app.url, 'GET', `${s.base}/products`)).status).toBe(401);
    const service = await shop({ social: false, type: 'service' });
    const res = await call(app.url, 'GET', `${service.base}/products`, { token: service.owner.token });
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  test('import from CSV (quotes, semicolons, BOM) and JSON: all rows or none, every bad row reported', async () => {
    const s = await shop({ social: false });
    const count = async () => (await call(app.url, 'GET', `${s.base}/products?limit=100`, { token: s.owner.token })).body.products.length;

    const csv =
      '\uFEFFtitle;description;priceMinor;currency;available\n"Плед ""Север""";"Шерсть; 140×200";450000;RUB;да\nПодушка;;120000;;\nЧехол;Хлопок;90000;RUB;нет\n';
    const ok = await call(app.url, 'POST', `${s.base}/products/import`, { token: s.owner.token, body: { csv } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, imported: 3, errors: [] });
    const listed = (await call(app.url, 'GET', `${s.base}/products?limit=100`, { token: s.owner.token })).body.products;
    expect(listed.map((p: { title: string }) => p.title).sort()).toEqual(['Плед "Север"', 'Подушка', 'Чехол'].sort());
    expect(listed.find((p: { title: string }) => p.title === 'Чехол').available).toBe(false);
    expect(listed.find((p: { title: string }) => p.title.startsWith('Плед')).description).toBe('Шерсть; 140×200');

    const bad = 'title,priceMinor\nХороший,1000\n,2000\nДорогой,-5\nЕщё,abc\n';
    const refused = await call(app.url, 'POST', `${s.base}/products/import`, { token: s.owner.token, body: { csv: bad } });
    expect(refused.status).toBe(200);
    expect(refused.body.ok).toBe(false);
    expect(refused.body.imported).toBe(0);
    expect(refused.body.errors.map((e: { row: number }) => e.row)).toEqual([2, 3, 4]);
    // Each bad row names its field as the product form does (issue 16, point 4).
    expect(refused.body.errors[0].message).toContain('Название товара');
    expect(refused.body.errors[0].message).not.toContain('title');
    expect(await count()).toBe(3);

    const json = await call(app.url, 'POST', `${s.base}/products/import`, {
      token: s.owner.token,
      body: { products: [{ title: 'Коврик', priceMinor: 70000 }, { title: 'Без цены' }] },
    });
    expect(json.body).toMatchObject({ ok: false, imported: 0 });
    expect(json.body.errors).toEqual([{ row: 2, message: expect.stringContaining('Цена') }]);
    expect(await count()).toBe(3);

    for (const body of [{ csv: 'a,b\n"unclosed,1\n' }, { csv: 'title\n', products: [] }, {}]) {
      const res = await call(app.url, 'POST', `${s.base}/products/import`, { token: s.owner.token, body });
      expect(res.status).toBe(400);
    }
  });

  test('shop settings: the notification URL with its secret is shown once; reads mask it; the template must be https', async () => {
    const s = await shop({ social: false, settings: false });
    const saved = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(saved.status).toBe(200);
    const secret = new URL(saved.body.webhookUrlWithSecret).searchParams.get('token')!;
    expect(secret.length).toBeGreaterThanOrEqual(24);
    const read = await call(app.url, 'GET', `${s.base}/settings`, { token: s.owner.token });
    expect(read.body).toMatchObject({ configured: true, paymentLinkTemplate: TEMPLATE });
    expect(read.text).not.toContain(secret);
    expect(read.body.webhookUrlWithSecret).toBeUndefined();
    const again = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(again.body.webhookUrlWithSecret).toBeUndefined();
    for (const paymentLinkTemplate of ['http://pay.example.ru/?o={orderNumber}', 'https://pay.example.ru/fixed', 'not a url']) {
      const res = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate } });
      expect(res.status).toBe(400);
    }
  });
});

describe('the shop in the dialogue', () => {
  test('catalog pages → add to cart → change quantity → check out with a phone → order with a payment link', async () => {
    const s = await shop();
    const items = [];
    for (let i = 1; i <= 7; i++) items.push(await addProduct(s, { title: `Товар ${i}`, priceMinor: 10000 * i }));

    const [page1] = await sendAndWait(s.agentId, messageEvent({ action: 'catalog' }));
    expect(page1!.message).toContain('Товар 1');
    expect(plain(page1!.message)).toContain('100,00');
    expect(page1!.message).not.toContain('Товар 6');
    expect(actionsOf(page1!).filter((a) => a === 'cart_add')).toHaveLength(5);
    const [page2] = await sendAndWait(s.agentId, messageEvent(payloadOf(page1!, 'Дальше')));
    expect(page2!.message).toContain('Товар 6');
    expect(page2!.message).toContain('Товар 7');

    const [added] = await sendAndWait(s.agentId, messageEvent(payloadOf(page2!, 'Товар 7')));
    expect(added!.message).toContain('Товар 7');
    await sendAndWait(s.agentId, messageEvent(payloadOf(page1!, 'Товар 2')));
    const [cart] = await sendAndWait(s.agentId, messageEvent({ action: 'cart' }));
    expect(cart!.message).toContain('Итого');
    const [more] = await sendAndWait(s.agentId, messageEvent(payloadOf(cart!, '➕')));
    expect(more!.message).toMatch(/Товар 7 × 2/);
    expect(plain(more!.message)).toContain('1 600,00'); // 2 × 700 + 200
    const [less] = await sendAndWait(s.agentId, messageEvent(payloadOf(more!, '➖ Товар 2')));
    expect(less!.message).not.toContain('Товар 2');

    const [askPhone] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    expect(askPhone!.message).toContain('телефон');
    // The order is placed once the client confirms its summary (issue 39, point 1).
    const [summary] = await sendAndWait(s.agentId, messageNew('+7 916 123-45-67'));
    expect(summary!.message).toContain('Проверьте');
    const [order] = await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    const day = dayIn(new Date(), 'Europe/Moscow').replace(/-/g, '');
    expect(order!.message).toContain(`ORD-${day}-0001`);
    expect(order!.message).toContain(`https://pay.example.ru/checkout?order=ORD-${day}-0001&sum=1400.00&cur=RUB`);

    const listed = await call(app.url, 'GET', `${s.base}/orders`, { token: s.owner.token });
    expect(listed.body.orders).toHaveLength(1);
    expect(listed.body.orders[0]).toMatchObject({
      number: `ORD-${day}-0001`,
      status: 'pending',
      totalMinor: 140000,
      currency: 'RUB',
      clientPhone: '79161234567',
      items: [{ productId: items[6]!.id, title: 'Товар 7', priceMinor: 70000, quantity: 2 }],
    });
    const [empty] = await sendAndWait(s.agentId, messageEvent({ action: 'cart' }));
    expect(empty!.message).toContain('Корзина пуста');
  });

  test('stock: a product at 0 is listed «нет в наличии» without an add button, cannot be added, and the cart stops at what is left', async () => {
    const s = await shop();
    const gone = await addProduct(s, { title: 'Плед распроданный', priceMinor: 10000, stock: 0 });
    const last = await addProduct(s, { title: 'Плед последний', priceMinor: 20000, stock: 1 });
    const [page] = await sendAndWait(s.agentId, messageEvent({ action: 'catalog' }));
    expect(page!.message).toContain('Плед распроданный — ');
    expect(page!.message).toMatch(/Плед распроданный — [^\n]*\(нет в наличии\)/);
    expect(page!.message).not.toMatch(/Плед последний — [^\n]*нет в наличии/);
    expect(buttonsOf(page!).map((b) => b.action.label)).not.toContain('➕ Плед распроданный');
    // A press of an old button (made before it sold out) adds nothing.
    await sendAndWait(s.agentId, messageEvent({ action: 'cart_add', id: gone.id }));
    await sendAndWait(s.agentId, messageEvent(payloadOf(page!, 'Плед последний')));
    const [cart] = await sendAndWait(s.agentId, messageEvent({ action: 'cart' }));
    expect(cart!.message).not.toContain('Плед распроданный');
    const [more] = await sendAndWait(s.agentId, messageEvent(payloadOf(cart!, '➕')));
    expect(more!.message).toContain('Плед последний × 1');
    expect(last.id).toBeString();
  });

  test('order numbers carry the shop’s day: 22:30 UTC is already tomorrow in Moscow', () => {
    const late = new Date('2026-11-20T22:30:00Z');
    expect(formatOrderNumber(late, 7, 'Europe/Moscow')).toBe('ORD-20261121-0007');
    expect(formatOrderNumber(late, 7)).toBe('ORD-20261120-0007');
  });

  test('50 concurrent check-outs: numbers 1…50 of the day, each once, no gaps', async () => {
    const s = await shop();
    const product = await addProduct(s, { title: 'Свеча', priceMinor: 50000 });
    const peers = Array.from({ length: 50 }, (_, i) => 70_000_000 + i);
    for (const peer of peers) {
      const [dialogue] = await app.sql<{ id: string }>(
        `insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79160000000') returning id`,
        [s.agentId, String(peer)],
      );
      await app.sql('insert into cart_items (dialogue_id, product_id, quantity) values ($1, $2, 1)', [dialogue!.id, product.id]);
    }
    const summaries = await Promise.all(peers.map((peer) => post(s.agentId, messageEvent({ action: 'checkout' }, peer))));
    expect(summaries.every((r) => r.status === 200)).toBe(true);
    await waitFor(
      async () => {
        const [row] = await app.sql<{ n: unknown }>(`select count(*) as n from dialogues where agent_id = $1 and flow->>'step' = 'checkout_confirm'`, [s.agentId]);
        return Number(row!.n) === 50;
      },
      15_000,
      'fifty summaries',
    );
    const results = await Promise.all(peers.map((peer) => post(s.agentId, messageEvent({ action: 'confirm' }, peer))));
    expect(results.every((r) => r.status === 200)).toBe(true);
    await waitFor(
      async () => {
        const [row] = await app.sql<{ n: unknown }>('select count(*) as n from orders where agent_id = $1', [s.agentId]);
        return Number(row!.n) === 50;
      },
      15_000,
      'fifty orders',
    );
    const numbers = (await app.sql<{ number: string }>('select number from orders where agent_id = $1', [s.agentId])).map((r) => r.number);
    const day = dayIn(new Date(), 'Europe/Moscow').replace(/-/g, '');
    expect(numbers.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `ORD-${day}-${String(i + 1).padStart(4, '0')}`));
  });
});

describe('payments', () => {
  /** A client (one per call) orders the one product, 1 500 ₽; the catalog holds only it. */
  async function orderFor(s: Awaited<ReturnType<typeof shop>>, peer = CLIENT) {
    if (peer === CLIENT) await addProduct(s, { title: 'Плед', priceMinor: 150000 });
    const [page] = await sendAndWait(s.agentId, messageEvent({ action: 'catalog' }, peer), 1, peer);
    await sendAndWait(s.agentId, messageEvent(payloadOf(page!, 'Плед'), peer), 1, peer);
    await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
    await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }, peer), 1, peer);
    const [created] = await sendAndWait(s.agentId, messageEvent({ action: 'confirm' }, peer), 1, peer);
    const number = created!.message.match(/ORD-\d{8}-\d{4}/)![0];
    return number;
  }

  const notification = (number: string, event = 'payment.succeeded', paymentId = `pay-${Math.random().toString(36).slice(2)}`, amount = '1500.00') => ({
    type: 'notification',
    event,
    object: {
      id: paymentId,
      status: event === 'payment.succeeded' ? 'succeeded' : event === 'payment.canceled' ? 'canceled' : 'pending',
      paid: event === 'payment.succeeded',
      amount: { value: amount, currency: 'RUB' },
      metadata: { orderNumber: number },
      description: `Оплата заказа ${number}`,
      created_at: new Date().toISOString(),
      test: true,
    },
  });

  const deliver = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const webhookAt = (s: { webhook: string }) => s.webhook.replace(/^http:\/\/127\.0\.0\.1:\d+/, app.url);
  const orderOf = async (s: { owner: { token: string }; base: string }, number: string) =>
    (await call(app.url, 'GET', `${s.base}/orders`, { token: s.owner.token })).body.orders.find((o: { number: string }) => o.number === number);

  test('a valid notification marks the order paid, tells owner and channel once, and thanks the client; a repeat changes nothing', async () => {
    const s = await shop({ messenger: true });
    const number = await orderFor(s);
    const body = notification(number);
    const res = await deliver(webhookAt(s), body);
    expect(res.status).toBe(200);
    const order = await orderOf(s, number);
    expect(order).toMatchObject({ status: 'paid', paymentId: body.object.id });
    const thanks = await waitFor(() => vk.sentMessages.find((m) => m.message.includes('Оплата заказа')), 5000, 'the client message');
    expect(thanks.peerId).toBe(CLIENT);

    await waitFor(() => telegram.sent.length === 2, 5000, 'the payment notices');
    for (const chatId of [OPERATOR.id, CHANNEL.id]) {
      const notice = telegram.sent.find((m) => m.chatId === chatId)!;
      expect(notice.text).toContain(number);
      expect(plain(notice.text)).toContain('1 500,00');
      expect(notice.text).toContain('₽');
    }

    const repeat = await deliver(webhookAt(s), body);
    expect(repeat.status).toBe(200);
    await Bun.sleep(300);
    expect(telegram.sent).toHaveLength(2);
    expect(vk.sentMessages.filter((m) => m.message.includes('Оплата заказа'))).toHaveLength(1);
    const events = await app.sql<{ outcome: string }>('select outcome from payment_events where agent_id = $1', [s.agentId]);
    expect(events.map((e) => e.outcome)).toEqual(['paid']);
  });

  test('a forged notification (wrong or missing secret) → 403 and nothing changes; unknown agent → 404', async () => {
    const s = await shop();
    const number = await orderFor(s);
    const url = new URL(webhookAt(s));
    const forged = new URL(url);
    forged.searchParams.set('token', 'guessed-secret-000000000000');
    const noToken = new URL(url);
    noToken.search = '';
    for (const target of [forged.toString(), noToken.toString()]) {
      const res = await deliver(target, notification(number));
      expect(res.status).toBe(403);
      expect((await res.json()).error.type).toBe('forbidden');
    }
    expect((await orderOf(s, number)).status).toBe('pending');
    expect(await app.sql('select * from payment_events where agent_id = $1', [s.agentId])).toEqual([]);
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const unknown = await deliver(`${app.url}/api/v1/commerce/webhook/${id}?token=x`, notification(number));
      expect(unknown.status).toBe(404);
    }
  });

  test('out of order and odd notifications are harmless: cancel before success, cancel after success, a wrong amount', async () => {
    const s = await shop();
    const number = await orderFor(s);
    const paymentId = 'pay-out-of-order';
    expect((await deliver(webhookAt(s), notification(number, 'payment.canceled', paymentId))).status).toBe(200);
    expect((await orderOf(s, number)).status).toBe('pending');
    expect((await deliver(webhookAt(s), notification(number, 'payment.succeeded', 'pay-wrong-sum', '1.00'))).status).toBe(200);
    expect((await orderOf(s, number)).status).toBe('pending');
    expect((await deliver(webhookAt(s), notification(number, 'payment.succeeded', paymentId))).status).toBe(200);
    expect((await orderOf(s, number)).status).toBe('paid');
    expect((await deliver(webhookAt(s), notification(number, 'payment.canceled', 'pay-late-cancel'))).status).toBe(200);
    expect((await orderOf(s, number)).status).toBe('paid');
    const outcomes = (await app.sql<{ outcome: string }>('select outcome from payment_events where agent_id = $1 order by received_at', [s.agentId])).map(
      (r) => r.outcome,
    );
    expect(outcomes).toEqual(['recorded', 'amount_mismatch', 'paid', 'recorded']);
    const bad = await deliver(webhookAt(s), { hello: 'world' });
    expect(bad.status).toBe(400);
  });

  test('the owner lists orders by state and date, and reads one', async () => {
    const s = await shop();
    const number = await orderFor(s);
    await deliver(webhookAt(s), notification(number));
    const second = await orderFor(s, CLIENT + 1);
    const paid = await call(app.url, 'GET', `${s.base}/orders?status=paid`, { token: s.owner.token });
    expect(paid.body.orders.map((o: { number: string }) => o.number)).toEqual([number]);
    const pending = await call(app.url, 'GET', `${s.base}/orders?status=pending`, { token: s.owner.token });
    expect(pending.body.orders.map((o: { number: string }) => o.number)).toEqual([second]);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect((await call(app.url, 'GET', `${s.base}/orders?from=${tomorrow}`, { token: s.owner.token })).body.orders).toEqual([]);
    const all = await call(app.url, 'GET', `${s.base}/orders?limit=1`, { token: s.owner.token });
    expect(all.body.orders).toHaveLength(1);
    expect(all.body.nextCursor).not.toBeNull();
    const one = await call(app.url, 'GET', `${s.base}/orders/${all.body.orders[0].id}`, { token: s.owner.token });
    expect(one.status).toBe(200);
    expect(one.body.number).toBe(all.body.orders[0].number);
    expect((await call(app.url, 'GET', `${s.base}/orders?status=lost`, { token: s.owner.token })).status).toBe(400);
  });
});
