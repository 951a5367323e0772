// The shop's and the broadcasts' scripted day (issue 42, done when): one client orders through the VK buttons
// (catalog → cart → check-out → delivery method → address → recipient → phone → summary → payment link), is
// reminded once of the unpaid order after the shop's hours (the reminder pass's clock injected), pays through
// the fake YooKassa's webhook, and hears «оплачено», «отправлен» with the tracking number the owner entered and
// «доставлен». Then the owner's broadcast to three clients, one of whom denied messages (message_deny): two
// get it with «Отписаться», the count says 2 delivered; one of them unsubscribes and the next reaches one.
// Everything each client receives is asserted in order, with its buttons. Fake VK, fake YooKassa, and a
// scripted model that must not be needed (the whole day runs on buttons and the flow's questions).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startScriptedModelHost, type ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import { startFakeVk } from '../fakes/vk';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { buttonsOf, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const ANNA = 52000001;
const BORIS = 52000002;
const VERA = 52000003;
const SHOP_ID = '771122';
const SHOP_SECRET = 'live_Sh0pDay-secret-key_0123456789abcd';
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}';
const MODEL = 'shop-day/model';
const PICKUP = 'Москва, ул. Покровка, д. 12, магазин «Лён»';
const ADDRESS = 'Москва, ул. Ленина, д. 5, кв. 12';
const REMIND_AFTER_HOURS = 3;
const HOUR = 3_600_000;
const UNSUBSCRIBED = 'Вы отписались от рассылок: больше их не пришлём. Если напишете нам, ответим как обычно.';

let vk: FakeVk;
let yk: FakeYookassa;
let host: ScriptedModelHost;
let app: TestApp;
const driver = createSocialDriver(
  () => app,
  () => vk,
);

beforeAll(async () => {
  [vk, yk, host] = await Promise.all([startFakeVk(), startFakeYookassa(), startScriptedModelHost()]);
  app = await startTestApp({
    env: { VK_API_BASE_URL: vk.url, YOOKASSA_API_BASE_URL: yk.url, UPSTREAM_BASE_URL: host.url, ASSISTANT_DEBOUNCE_MS: '0', OUTBOX_POLL_INTERVAL_MS: '50' },
  });
  vk.addGroup({ id: GROUP, name: 'Магазин «Лён»', token: TOKEN, confirmationCode: CODE });
  yk.addShop(SHOP_ID, SHOP_SECRET);
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), yk?.close(), host?.close()]);
});

/** Amounts as VK shows them, with plain spaces for Intl's no-break ones. */
const plain = (text: string) => text.replace(/[^\S\n]/g, ' ');
/** A message as the client sees it: its text and its buttons' labels, row by row. */
const seen = (m: FakeSentMessage) => ({
  text: plain(m.message),
  buttons: ((m.keyboard as { buttons: { action: { label: string } }[][] } | null)?.buttons ?? []).map((row) => row.map((b) => plain(b.action.label))),
});
const to = (peerId: number) => vk.sentMessages.filter((m) => m.peerId === peerId);
/** Waits for the client's next `count` messages after the `before` they had (those the outbox delivers). */
const next = (peerId: number, before: number, count = 1) =>
  waitFor(() => (to(peerId).length >= before + count ? to(peerId).slice(before) : undefined), 5000, 'the client’s message');
/** The next 12:00 in Moscow at or after `from`: a reminder pass at midday, whatever hours the shop keeps. */
function middayAfter(from: number): Date {
  const MSK = 3 * HOUR;
  const day = Math.floor((from + MSK) / (24 * HOUR)) * 24 * HOUR;
  const noon = day + 12 * HOUR - MSK;
  return new Date(noon >= from ? noon : noon + 24 * HOUR);
}

/** The owner's shop: the VK community, its YooKassa account, delivery with prices, the reminder hours, two products. */
async function openShop() {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Магазин «Лён»', type: 'ecommerce', model: MODEL } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const base = `/api/v1/commerce/${agentId}`;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  const saved = await call(app.url, 'PUT', `${base}/settings`, {
    token: owner.token,
    body: {
      paymentLinkTemplate: TEMPLATE,
      yookassaShopId: SHOP_ID,
      yookassaSecretKey: SHOP_SECRET,
      unpaidReminderHours: REMIND_AFTER_HOURS,
      delivery: {
        pickup: { enabled: true, priceMinor: 0, address: PICKUP },
        courier: { enabled: true, priceMinor: 30000 },
        post: { enabled: true, priceMinor: 25000 },
      },
    },
  });
  expect(saved.status).toBe(200);
  for (const body of [
    { title: 'Плед', description: 'Шерсть, 140 × 200', priceMinor: 150000 },
    { title: 'Скатерть', description: 'Лён', priceMinor: 350000 },
  ]) {
    expect((await call(app.url, 'POST', `${base}/products`, { token: owner.token, body })).status).toBe(201);
  }
  const hook = new URL(saved.body.webhookUrlWithSecret as string);
  return { token: owner.token, agentId, base, webhook: `${app.url}${hook.pathname}${hook.search}` };
}

/** A client allows or denies the community's messages, as VK posts it; the fake VK then follows the choice. */
async function consent(agentId: string, peerId: number, allowed: boolean) {
  const event = driver.consent(allowed, peerId);
  expect(await (await driver.post(agentId, event)).text()).toBe('ok');
  expect(await driver.processed(agentId, event.event_id)).toBe(allowed ? 'allowed' : 'denied');
  if (allowed) vk.allowMessages(GROUP, peerId);
  else vk.denyMessages(GROUP, peerId);
}

describe('the shop’s scripted day', () => {
  test('an order through the buttons to delivered, the unpaid reminder once; a broadcast to three clients of whom one denied messages, and an unsubscribe', async () => {
    const shop = await openShop();
    const tap = async (m: FakeSentMessage, label: string) => (await driver.sendAndWait(shop.agentId, driver.messageEvent(payloadOf(m, label), ANNA), 1, ANNA))[0]!;
    const type = async (text: string) => (await driver.sendAndWait(shop.agentId, driver.messageNew(text, { peerId: ANNA }), 1, ANNA))[0]!;
    const orders = async () =>
      (await call(app.url, 'GET', `${shop.base}/orders`, { token: shop.token })).body.orders as {
        id: string;
        number: string;
        status: string;
        totalMinor: number;
        paymentId: string;
        paymentLink: string;
      }[];
    await consent(shop.agentId, ANNA, true);

    // Morning: Anna opens the catalog, adds the plaid, looks at the cart and checks out by courier.
    const [catalog] = await driver.sendAndWait(shop.agentId, driver.messageEvent({ action: 'catalog' }, ANNA), 1, ANNA);
    const added = await tap(catalog!, 'Плед');
    const cart = await tap(added, 'Корзина');
    const methods = await tap(cart, 'Оформить заказ');
    const askAddress = await tap(methods, 'Курьер');
    const askRecipient = await type(ADDRESS);
    const askPhone = await type('Анна Иванова');
    const summary = await type('+7 916 123-45-67');
    expect(await orders()).toEqual([]);
    const placed = await tap(summary, 'Подтвердить');
    const [order] = await orders();
    expect(order).toMatchObject({ status: 'pending', totalMinor: 180000 });
    expect(yk.payments.map((p) => p.amount)).toEqual([{ value: '1800.00', currency: 'RUB' }]);
    const link = yk.payments[0]!.confirmationUrl;
    expect(order!.paymentLink).toBe(link);
    const n = order!.number;

    expect([catalog!, added, cart, methods, askAddress, askRecipient, askPhone, summary, placed].map(seen)).toEqual([
      {
        text: 'Каталог:\n1. Плед — 1 500,00 ₽\n   Шерсть, 140 × 200\n2. Скатерть — 3 500,00 ₽\n   Лён',
        buttons: [['➕ Плед'], ['➕ Скатерть'], ['Корзина', 'Главное меню']],
      },
      { text: 'Добавлено: Плед. Товаров в корзине: 1.', buttons: [['Корзина', 'Каталог']] },
      {
        text: 'Ваша корзина:\n• Плед × 1 — 1 500,00 ₽\nИтого: 1 500,00 ₽',
        buttons: [
          ['➖ Плед', '➕'],
          ['Очистить', 'Оформить заказ'],
        ],
      },
      { text: 'Как вам удобнее получить заказ?', buttons: [['Самовывоз — бесплатно'], ['Курьер — 300,00 ₽'], ['Почта — 250,00 ₽'], ['Отмена']] },
      { text: 'Напишите, пожалуйста, адрес доставки: город, улица, дом, квартира.', buttons: [['Отмена']] },
      { text: 'На чьё имя оформить доставку? Напишите, пожалуйста, имя и фамилию получателя.', buttons: [['Отмена']] },
      { text: 'Напишите, пожалуйста, номер телефона для заказа — по нему магазин свяжется с вами о доставке.', buttons: [['Отмена']] },
      {
        text: [
          'Проверьте, пожалуйста, заказ:',
          '• Плед × 1 — 1 500,00 ₽',
          'Доставка: Курьер, 300,00 ₽',
          `Адрес: ${ADDRESS}`,
          'Получатель: Анна Иванова',
          'Итого: 1 800,00 ₽',
          'Телефон: +7 916 123-45-67',
          'Оформляем?',
        ].join('\n'),
        buttons: [['Подтвердить', 'Изменить'], ['Отмена']],
      },
      {
        text: `Заказ ${n} оформлен. Сумма: 1 800,00 ₽.\nОплатить: ${link}\nПосле оплаты я пришлю подтверждение.`,
        buttons: [
          ['Каталог', 'Корзина'],
          ['Главное меню', 'Помощь'],
        ],
      },
    ]);

    // She does not pay. Before the shop's hours have passed nothing is sent; after them one reminder, once.
    const reminders = app.instance.services.commerce.reminders;
    const createdAt = Date.now();
    const beforeReminder = to(ANNA).length;
    expect((await reminders.runOnce(new Date(createdAt + REMIND_AFTER_HOURS * HOUR - 5 * 60_000))).reminded).toBe(0);
    const remindAt = middayAfter(createdAt + REMIND_AFTER_HOURS * HOUR + 60_000);
    expect((await reminders.runOnce(remindAt)).reminded).toBe(1);
    const [reminder] = await next(ANNA, beforeReminder);
    expect((await reminders.runOnce(new Date(remindAt.getTime() + 5 * HOUR))).reminded).toBe(0);

    // She pays on YooKassa's page: the webhook marks the order paid and she is told.
    yk.succeed(order!.paymentId);
    expect((await yk.notify(shop.webhook, order!.paymentId, 'payment.succeeded')).status).toBe(200);
    const [paid] = await next(ANNA, beforeReminder + 1);
    expect((await orders())[0]!.status).toBe('paid');

    // The owner ships it with the post's tracking number, then marks it delivered.
    const status = (body: Record<string, unknown>) => call(app.url, 'POST', `${shop.base}/orders/${order!.id}/status`, { token: shop.token, body });
    expect((await status({ status: 'shipped', trackingNumber: 'RA123456789RU' })).body).toMatchObject({ status: 'shipped', trackingNumber: 'RA123456789RU' });
    const [shipped] = await next(ANNA, beforeReminder + 2);
    expect((await status({ status: 'delivered' })).body).toMatchObject({ status: 'delivered' });
    const [delivered] = await next(ANNA, beforeReminder + 3);

    expect([reminder!, paid!, shipped!, delivered!].map(seen)).toEqual([
      {
        text: `Напоминаем: заказ ${n} на 1 800,00 ₽ ещё не оплачен.\nОплатить: ${link}\nЕсли передумали — просто не оплачивайте, заказ не будет отправлен.`,
        buttons: [],
      },
      { text: `Оплата заказа ${n} получена. Спасибо! Мы свяжемся с вами, когда заказ будет готов.`, buttons: [] },
      { text: `Заказ ${n} отправлен. Трек-номер для отслеживания: RA123456789RU.`, buttons: [] },
      { text: `Заказ ${n} доставлен. Спасибо за покупку! Будем рады видеть вас снова.`, buttons: [] },
    ]);

    // Evening: a broadcast. Boris allowed messages; Vera allowed, then denied them.
    await consent(shop.agentId, BORIS, true);
    await consent(shop.agentId, VERA, true);
    await consent(shop.agentId, VERA, false);
    const annaBefore = to(ANNA).length;
    const send = (text: string) =>
      call(app.url, 'POST', `/api/v1/agents/${shop.agentId}/broadcasts`, { token: shop.token, body: { text, requestId: crypto.randomUUID() } });
    const settled = (id: string) =>
      waitFor(
        async () => {
          const res = await call(app.url, 'GET', `/api/v1/agents/${shop.agentId}/broadcasts/${id}`, { token: shop.token });
          return res.body.pending === 0 ? res.body : null;
        },
        8000,
        'the broadcast to be delivered',
      );
    const SALE = 'Скидка 15% на пледы до воскресенья!';
    const first = await send(SALE);
    expect(first.body.recipients).toBe(2);
    expect(await settled(first.body.id)).toMatchObject({ recipients: 2, delivered: 2, failed: 0, skipped: 0, pending: 0 });

    // Boris taps «Отписаться»: told so, and the next broadcast reaches Anna alone.
    const [borisSale] = to(BORIS);
    const [unsubscribed] = await driver.sendAndWait(shop.agentId, driver.messageEvent(payloadOf(borisSale!, 'Отписаться'), BORIS), 1, BORIS);
    const NEWS = 'Новая коллекция скатертей уже в каталоге.';
    const second = await send(NEWS);
    expect(second.body.recipients).toBe(1);
    expect(await settled(second.body.id)).toMatchObject({ recipients: 1, delivered: 1, failed: 0 });

    const withUnsubscribe = (text: string) => ({ text, buttons: [['Отписаться']] });
    expect(to(ANNA).slice(annaBefore).map(seen)).toEqual([withUnsubscribe(SALE), withUnsubscribe(NEWS)]);
    expect(to(BORIS).map(seen)).toEqual([withUnsubscribe(SALE), { text: UNSUBSCRIBED, buttons: [] }]);
    expect(unsubscribed!.message).toBe(UNSUBSCRIBED);
    expect(to(VERA)).toEqual([]);
    // Anna's whole day, counted: nine replies to her taps and words, four messages about her order, two broadcasts.
    expect(to(ANNA)).toHaveLength(15);
    expect(buttonsOf(to(ANNA).at(-1)!).map((b) => JSON.parse(b.action.payload))).toEqual([{ action: 'unsubscribe' }]);
    // Buttons and the flow's questions carried the whole day: the model was never asked.
    expect(host.requestsFor(MODEL)).toEqual([]);
  });
});
