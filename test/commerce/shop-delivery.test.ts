// The shop's check-out with delivery (issue 42 point 6), over HTTP against fake VK, a fake YooKassa and a
// scripted model: the owner's delivery settings (pickup with its address, courier, post, each with a price),
// then in the VK dialogue the method by its button, the address and the recipient's name checked, the summary
// with the delivery line and the total including it, and the YooKassa payment for that total. The detours: a
// question in the address step answered and the step asked again, «отмена» keeping the cart. The model's
// checkout tool asks the same delivery (refused with what to ask until it is complete).
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { lastUserText, startScriptedModelHost, toolResults, type ScriptedModelHost, type ScriptedRequest } from '../fakes/scripted-model';
import type { FakeSentMessage } from '../fakes/vk';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { moscowDate } from '../helpers/salon';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const SHOP_ID = '665544';
const SHOP_SECRET = 'live_Qw3rTy-shop-secret-key_0123456789';
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}';
const PICKUP = 'Москва, ул. Покровка, д. 12, магазин «Лён»';
const DELIVERY = {
  pickup: { enabled: true, priceMinor: 0, address: PICKUP },
  courier: { enabled: true, priceMinor: 30000 },
  post: { enabled: true, priceMinor: 25000 },
};
const WHEN_ANSWER = 'Курьер привозит на следующий день с 10 до 18.';

let vk: FakeVk;
let yk: FakeYookassa;
let host: ScriptedModelHost;
let app: TestApp;
const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);
let counter = 0;

beforeAll(async () => {
  [vk, yk, host] = await Promise.all([startFakeVk(), startFakeYookassa(), startScriptedModelHost()]);
  app = await startTestApp({
    env: { VK_API_BASE_URL: vk.url, YOOKASSA_API_BASE_URL: yk.url, UPSTREAM_BASE_URL: host.url, ASSISTANT_DEBOUNCE_MS: '0', OUTBOX_POLL_INTERVAL_MS: '50' },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), yk?.close(), host?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Магазин «Лён»', token: TOKEN, confirmationCode: CODE });
  yk.reset();
  yk.addShop(SHOP_ID, SHOP_SECRET);
});

/** Amounts as VK shows them, with plain spaces for Intl's no-break ones. */
const plain = (text: string) => text.replace(/[^\S\n]/g, ' ');
const labels = (m: FakeSentMessage) => buttonsOf(m).map((b) => b.action.label);

/** A shop on its own YooKassa account with delivery set up and a 1 500 ₽ plaid in the client's cart. */
async function shopWithCart(delivery: unknown = DELIVERY) {
  const model = `shop-delivery/m${++counter}`;
  host.script(model, (body) => ({ text: lastUserText(body).includes('когда') ? WHEN_ANSWER : `Echo: ${lastUserText(body)}` }));
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Магазин «Лён»', type: 'ecommerce', model } });
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
    body: { paymentLinkTemplate: TEMPLATE, yookassaShopId: SHOP_ID, yookassaSecretKey: SHOP_SECRET, delivery },
  });
  expect(saved.status).toBe(200);
  const product = await call(app.url, 'POST', `${base}/products`, { token: owner.token, body: { title: 'Плед', priceMinor: 150000 } });
  expect(product.status).toBe(201);
  await sendAndWait(agentId, messageEvent({ action: 'cart_add', id: product.body.id }));
  const hook = new URL(saved.body.webhookUrlWithSecret as string);
  const orders = async () =>
    (await call(app.url, 'GET', `${base}/orders`, { token: owner.token })).body.orders as {
      id: string;
      number: string;
      status: string;
      totalMinor: number;
      paymentId: string | null;
      paymentLink: string;
      delivery: unknown;
    }[];
  return { owner, agentId, base, orders, webhook: `${app.url}${hook.pathname}${hook.search}`, model };
}

describe('delivery settings', () => {
  test('saved and read back; pickup on without an address, a negative price or a multi-line address is refused in Russian; null removes delivery', async () => {
    const s = await shopWithCart();
    const read = await call(app.url, 'GET', `${s.base}/settings`, { token: s.owner.token });
    expect(read.body.delivery).toEqual(DELIVERY);
    // Absent keeps it.
    const kept = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(kept.body.delivery).toEqual(DELIVERY);

    const noAddress = await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, delivery: { ...DELIVERY, pickup: { enabled: true, priceMinor: 0 } } },
    });
    expect(noAddress.status).toBe(400);
    expect(noAddress.text).toContain('адрес самовывоза');
    const negative = await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, delivery: { ...DELIVERY, courier: { enabled: true, priceMinor: -1 } } },
    });
    expect(negative.status).toBe(400);
    expect(negative.text).toContain('цена доставки');
    const twoLines = await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, delivery: { ...DELIVERY, pickup: { enabled: true, priceMinor: 0, address: 'Москва,\nПокровка 12' } } },
    });
    expect(twoLines.status).toBe(400);

    const removed = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, delivery: null } });
    expect(removed.body.delivery).toBeNull();
    // Without delivery the check-out asks no delivery step (the phone first, as before).
    const [ask] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    expect(ask!.message).toContain('номер телефона');
  });

  test('another owner cannot read or change a shop’s delivery', async () => {
    const s = await shopWithCart();
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `${s.base}/settings`, { token: stranger.token })).status).toBe(403);
    const put = await call(app.url, 'PUT', `${s.base}/settings`, { token: stranger.token, body: { paymentLinkTemplate: TEMPLATE, delivery: null } });
    expect(put.status).toBe(403);
    expect((await call(app.url, 'GET', `${s.base}/settings`, { token: s.owner.token })).body.delivery).toEqual(DELIVERY);
  });
});

describe('check-out with delivery in the VK dialogue', () => {
  test('courier: method → a question in the address step → a bad address → address → a bad name → name → phone → summary with delivery → paid for the total with delivery', async () => {
    const s = await shopWithCart();
    const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    expect(methods!.message).toBe('Как вам удобнее получить заказ?');
    expect(labels(methods!).map(plain)).toEqual(['Самовывоз — бесплатно', 'Курьер — 300,00 ₽', 'Почта — 250,00 ₽', 'Отмена']);

    const [askAddress] = await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Курьер')));
    expect(askAddress!.message).toContain('адрес доставки');
    const [answer, again] = await sendAndWait(s.agentId, messageNew('А когда привезут?'), 2);
    expect(answer!.message).toBe(WHEN_ANSWER);
    expect(again!.message).toContain('адрес доставки');
    const [bad] = await sendAndWait(s.agentId, messageNew('дом'));
    expect(bad!.message).toContain('Не получилось разобрать адрес');

    const [askName] = await sendAndWait(s.agentId, messageNew('Москва, ул. Ленина, д. 5, кв. 12'));
    expect(askName!.message).toContain('имя и фамилию получателя');
    const [badName] = await sendAndWait(s.agentId, messageNew('12345'));
    expect(badName!.message).toContain('только имя и фамилию');
    const [askPhone] = await sendAndWait(s.agentId, messageNew('Анна Иванова'));
    expect(askPhone!.message).toContain('номер телефона');

    const [summary] = await sendAndWait(s.agentId, messageNew('+7 916 123-45-67'));
    const shown = plain(summary!.message).split('\n');
    expect(shown[0]).toBe('Проверьте, пожалуйста, заказ:');
    expect(shown[1]).toContain('Плед × 1');
    expect(shown.slice(2)).toEqual([
      'Доставка: Курьер, 300,00 ₽',
      'Адрес: Москва, ул. Ленина, д. 5, кв. 12',
      'Получатель: Анна Иванова',
      'Итого: 1 800,00 ₽',
      'Телефон: +7 916 123-45-67',
      'Оформляем?',
    ]);
    expect(await s.orders()).toHaveLength(0);

    const [placed] = await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    const [order] = await s.orders();
    expect(order).toMatchObject({
      status: 'pending',
      totalMinor: 180000,
      delivery: { method: 'courier', priceMinor: 30000, address: 'Москва, ул. Ленина, д. 5, кв. 12', recipientName: 'Анна Иванова' },
    });
    expect(plain(placed!.message)).toContain(`Заказ ${order!.number} оформлен. Сумма: 1 800,00 ₽.`);
    // YooKassa is asked for the total with delivery.
    expect(yk.payments).toHaveLength(1);
    expect(yk.payments[0]!.amount).toEqual({ value: '1800.00', currency: 'RUB' });
    expect(placed!.message).toContain(yk.payments[0]!.confirmationUrl);

    yk.succeed(order!.paymentId!);
    expect((await yk.notify(s.webhook, order!.paymentId!, 'payment.succeeded')).status).toBe(200);
    await waitFor(() => vk.sentMessages.find((m) => m.message.includes('Оплата заказа')), 5000, 'the payment message');
    expect((await s.orders())[0]).toMatchObject({ status: 'paid', totalMinor: 180000 });

    // The owner ships it with a tracking number, then marks it delivered: the client hears each once.
    const status = (body: Record<string, unknown>) => call(app.url, 'POST', `${s.base}/orders/${order!.id}/status`, { token: s.owner.token, body });
    const shipped = await status({ status: 'shipped', trackingNumber: ' RA123456789RU ' });
    expect(shipped.status).toBe(200);
    expect(shipped.body).toMatchObject({ status: 'shipped', trackingNumber: 'RA123456789RU' });
    await waitFor(() => vk.sentMessages.find((m) => m.message.includes('отправлен')), 5000, 'the shipped message');
    expect((await status({ status: 'delivered' })).body).toMatchObject({ status: 'delivered' });
    await waitFor(() => vk.sentMessages.find((m) => m.message.includes('доставлен')), 5000, 'the delivered message');
    // Pressed again (a second tab): refused, and no second message.
    const repeat = await status({ status: 'delivered' });
    expect(repeat.status).toBe(409);
    expect(repeat.text).toContain('Заказ в статусе «доставлен» нельзя перевести в «доставлен»');

    // Everything the client received, in order, from «Оформить заказ» on.
    const n = order!.number;
    const received = vk.sentMessages.map((m) => plain(m.message));
    const fromCheckout = received.slice(received.indexOf('Как вам удобнее получить заказ?'));
    expect(fromCheckout.map((m) => m.split('\n')[0])).toEqual([
      'Как вам удобнее получить заказ?',
      'Напишите, пожалуйста, адрес доставки: город, улица, дом, квартира.',
      WHEN_ANSWER,
      'Напишите, пожалуйста, адрес доставки: город, улица, дом, квартира.',
      expect.stringContaining('Не получилось разобрать адрес'),
      'На чьё имя оформить доставку? Напишите, пожалуйста, имя и фамилию получателя.',
      'Напишите, пожалуйста, только имя и фамилию получателя, например: Анна Иванова.',
      'Напишите, пожалуйста, номер телефона для заказа — по нему магазин свяжется с вами о доставке.',
      'Проверьте, пожалуйста, заказ:',
      `Заказ ${n} оформлен. Сумма: 1 800,00 ₽.`,
      `Оплата заказа ${n} получена. Спасибо! Мы свяжемся с вами, когда заказ будет готов.`,
      `Заказ ${n} отправлен. Трек-номер для отслеживания: RA123456789RU.`,
      `Заказ ${n} доставлен. Спасибо за покупку! Будем рады видеть вас снова.`,
    ]);
  });

  test('status changes: only the allowed ones, a tracking number and a reason checked, another owner refused; a cancellation is told with its reason', async () => {
    const s = await shopWithCart();
    await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
    const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    const [summary] = await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Самовывоз')));
    await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    const [order] = await s.orders();
    const path = `${s.base}/orders/${order!.id}/status`;
    const status = (body: Record<string, unknown>, token = s.owner.token) => call(app.url, 'POST', path, { token, body });

    // Not paid yet: cannot be shipped.
    const early = await status({ status: 'shipped', trackingNumber: 'RA123456789RU' });
    expect(early.status).toBe(409);
    expect(early.text).toContain('«ожидает оплаты» нельзя перевести в «отправлен»');
    const noTracking = await status({ status: 'shipped' });
    expect(noTracking.status).toBe(400);
    expect(noTracking.text).toContain('трек-номер');
    const noReason = await status({ status: 'cancelled', reason: '\u0007' });
    expect(noReason.status).toBe(400);
    expect(noReason.text).toContain('причина отмены');
    const stranger = await registerUser(app.url);
    expect((await status({ status: 'cancelled', reason: 'Нет в наличии' }, stranger.token)).status).toBe(403);
    expect(
      (await call(app.url, 'POST', `${s.base}/orders/00000000-0000-4000-8000-000000000000/status`, { token: s.owner.token, body: { status: 'delivered' } })).status,
    ).toBe(404);

    const cancelled = await status({ status: 'cancelled', reason: 'Товар закончился на складе' });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelReason: 'Товар закончился на складе' });
    const told = await waitFor(() => vk.sentMessages.find((m) => m.message.includes('отменён')), 5000, 'the cancellation message');
    expect(told.message).toBe(`Заказ ${order!.number} отменён. Причина: Товар закончился на складе. Если остались вопросы — напишите нам.`);
    expect((await status({ status: 'shipped', trackingNumber: 'RA123456789RU' })).status).toBe(409);
    expect(vk.sentMessages.filter((m) => m.message.includes(order!.number) && m.message.includes('отмен'))).toHaveLength(1);
  });

  test('pickup: no address or name is asked; the summary shows the shop’s address and the total without a delivery price', async () => {
    const s = await shopWithCart();
    await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
    const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    const [summary] = await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Самовывоз')));
    expect(plain(summary!.message)).toContain(`Доставка: Самовывоз, бесплатно\nАдрес самовывоза: ${PICKUP}\nИтого: 1 500,00 ₽`);
    await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    expect((await s.orders())[0]).toMatchObject({ totalMinor: 150000, delivery: { method: 'pickup', priceMinor: 0, address: PICKUP, recipientName: null } });
    expect(yk.payments[0]!.amount.value).toBe('1500.00');
  });

  test('«отмена» in the name step orders nothing and keeps the cart; a method switched off meanwhile is offered again without it', async () => {
    const s = await shopWithCart();
    const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Почта')));
    const [askName] = await sendAndWait(s.agentId, messageNew('101000, Москва, Мясницкая ул., д. 26'));
    expect(askName!.message).toContain('получателя');
    const [canceled] = await sendAndWait(s.agentId, messageNew('отмена'));
    expect(canceled!.message).toContain('заказ не оформляю');
    expect(await s.orders()).toHaveLength(0);
    const [cart] = await sendAndWait(s.agentId, messageEvent({ action: 'cart' }));
    expect(cart!.message).toContain('Плед');

    const [offered] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, delivery: { ...DELIVERY, courier: { enabled: false, priceMinor: 30000 } } },
    });
    const [again] = await sendAndWait(s.agentId, messageEvent(payloadOf(offered!, 'Курьер')));
    expect(again!.message).toContain('Этот способ доставки сейчас недоступен');
    expect(labels(again!)).not.toContain('Курьер — 300,00 ₽');
    expect(labels(again!).map(plain)).toEqual(['Самовывоз — бесплатно', 'Почта — 250,00 ₽', 'Отмена']);
  });
});

describe('the model’s checkout with delivery (the same methods, prices and checks as the buttons)', () => {
  const lastCheckout = (body: ScriptedRequest['body']) =>
    toolResults(body)
      .filter((r) => r.name === 'checkout')
      .at(-1)?.result as Record<string, any>;
  const checkoutDeclaration = (r: ScriptedRequest) => r.body.tools!.find((t) => t.function.name === 'checkout')!.function.parameters as Record<string, any>;

  test('no delivery → refused with the methods, the model asks; courier with a bad address → refused; a valid one → the order with delivery in its total, the YooKassa amount and the client’s message', async () => {
    const s = await shopWithCart();
    const PHONE = '+7 916 123-45-67';
    const ADDRESS = 'Москва, ул. Ленина, д. 5, кв. 12';
    host.script(s.model, (body, index) => {
      // Each client message: the model calls checkout with what it knows, then says what the result asks.
      if (index === 0) return { toolCalls: [{ name: 'checkout', arguments: { clientPhone: PHONE } }] };
      if (index === 2)
        return {
          toolCalls: [{ name: 'checkout', arguments: { clientPhone: PHONE, deliveryMethod: 'courier', deliveryAddress: 'дом', recipientName: 'Анна Иванова' } }],
        };
      if (index === 4)
        return {
          toolCalls: [
            { name: 'checkout', arguments: { clientPhone: PHONE, deliveryMethod: 'courier', deliveryAddress: ` ${ADDRESS} `, recipientName: 'Анна Иванова' } },
          ],
        };
      const result = lastCheckout(body);
      if (result.ok) return { text: `Готово, заказ ${result.orderNumber} на ${result.total}.` };
      const methods = (result.deliveryMethods as { name: string; price: string | null }[]).map((m) => `${m.name} — ${m.price ?? 'бесплатно'}`);
      return { text: index === 1 ? `Как получить заказ? ${methods.join(', ')}` : 'Напишите, пожалуйста, полный адрес: город, улица, дом, квартира.' };
    });

    const [ask] = await sendAndWait(s.agentId, messageNew(`Оформите плед, мой телефон ${PHONE}`));
    expect(plain(ask!.message)).toBe('Как получить заказ? Самовывоз — бесплатно, Курьер — 300,00 ₽, Почта — 250,00 ₽');
    const sent = host.requestsFor(s.model);
    // The declaration names the shop's methods; the refusal lists them with prices and says to ask.
    expect(checkoutDeclaration(sent[0]!)).toMatchObject({
      required: ['clientPhone', 'deliveryMethod'],
      properties: { deliveryMethod: { enum: ['pickup', 'courier', 'post'] } },
    });
    const noDelivery = lastCheckout(sent[1]!.body);
    expect(noDelivery).toMatchObject({ ok: false, error: expect.stringContaining('спроси клиента, как ему удобнее получить заказ') });
    expect(noDelivery.deliveryMethods.map((m: { id: string; price: string | null }) => [m.id, m.price && plain(m.price)])).toEqual([
      ['pickup', null],
      ['courier', '300,00 ₽'],
      ['post', '250,00 ₽'],
    ]);
    expect(noDelivery.deliveryMethods[0]).toMatchObject({ needsAddress: false, pickupAddress: PICKUP });

    const [again] = await sendAndWait(s.agentId, messageNew('Курьером, адрес: дом'));
    expect(again!.message).toBe('Напишите, пожалуйста, полный адрес: город, улица, дом, квартира.');
    const badAddress = lastCheckout(host.requestsFor(s.model)[3]!.body);
    expect(badAddress).toMatchObject({
      ok: false,
      error: 'Адрес не подходит (адрес доставки: одна строка от 5 до 300 символов): попроси клиента написать полный адрес одной строкой и вызови checkout ещё раз.',
    });
    expect(await s.orders()).toHaveLength(0);

    const [announced, answer] = await sendAndWait(s.agentId, messageNew(ADDRESS), 2);
    const [order] = await s.orders();
    expect(order).toMatchObject({
      status: 'pending',
      totalMinor: 180000,
      delivery: { method: 'courier', priceMinor: 30000, address: ADDRESS, recipientName: 'Анна Иванова' },
    });
    const placed = lastCheckout(host.requestsFor(s.model)[5]!.body);
    expect(placed).toMatchObject({ ok: true, orderNumber: order!.number, delivery: { method: 'courier', address: ADDRESS, recipientName: 'Анна Иванова' } });
    expect(plain(placed.total)).toBe('1 800,00 ₽');
    expect(yk.payments).toHaveLength(1);
    expect(yk.payments[0]!.amount).toEqual({ value: '1800.00', currency: 'RUB' });
    // The system's own message: the number, the delivery, the total with it and the YooKassa link.
    expect(plain(announced!.message)).toBe(
      [
        `Заказ ${order!.number} оформлен. Сумма: 1 800,00 ₽.`,
        'Доставка: Курьер, 300,00 ₽',
        `Адрес: ${ADDRESS}`,
        'Получатель: Анна Иванова',
        `Оплатить: ${yk.payments[0]!.confirmationUrl}`,
        'После оплаты я пришлю подтверждение.',
      ].join('\n'),
    );
    expect(buttonsOf(announced!).map((b) => [b.action.type, b.action.label, (b.action as { link?: string }).link])).toEqual([
      ['open_link', 'Оплатить', yk.payments[0]!.confirmationUrl],
    ]);
    expect(plain(answer!.message)).toBe(`Готово, заказ ${order!.number} на 1 800,00 ₽.`);
  });

  test('pickup needs no address or name (the shop’s address, the total without a price); an unknown method or a bad name is refused; a shop without delivery keeps the phone-only checkout', async () => {
    const s = await shopWithCart();
    const PHONE = '+7 916 123-45-67';
    host.sequence(s.model, [
      { toolCalls: [{ name: 'checkout', arguments: { clientPhone: PHONE, deliveryMethod: 'drone' } }] },
      { text: 'Такого способа нет' },
      { toolCalls: [{ name: 'checkout', arguments: { deliveryMethod: 'post', deliveryAddress: '101000, Москва, Мясницкая ул., д. 26', recipientName: '12345' } }] },
      { text: 'Нужно имя' },
      { toolCalls: [{ name: 'checkout', arguments: { clientPhone: PHONE, deliveryMethod: 'pickup' } }] },
      { text: 'Ждём вас' },
    ]);
    await sendAndWait(s.agentId, messageNew('Доставьте дроном'));
    expect(lastCheckout(host.requestsFor(s.model)[1]!.body).error).toContain('Способа получения «drone» в этом магазине нет');
    await sendAndWait(s.agentId, messageNew('Почтой, получатель 12345'));
    // Both problems at once: the name fails the commerce check, and no phone is known yet.
    const badName = lastCheckout(host.requestsFor(s.model)[3]!.body).error as string;
    expect(badName).toContain('Имя получателя не подходит (имя получателя: от 2 до 100 символов, буквы, без цифр)');
    expect(badName).toContain('нужен телефон клиента');
    expect(await s.orders()).toHaveLength(0);

    const [announced] = await sendAndWait(s.agentId, messageNew('Заберу сам'), 2);
    const [order] = await s.orders();
    expect(order).toMatchObject({ totalMinor: 150000, delivery: { method: 'pickup', priceMinor: 0, address: PICKUP, recipientName: null } });
    expect(yk.payments[0]!.amount.value).toBe('1500.00');
    expect(plain(announced!.message)).toContain(`Сумма: 1 500,00 ₽.\nДоставка: Самовывоз, бесплатно\nАдрес самовывоза: ${PICKUP}\nОплатить: `);

    // No delivery methods: the declaration is the phone-only one, and an order is placed without delivery.
    await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, delivery: null } });
    const product = (await call(app.url, 'GET', `${s.base}/products`, { token: s.owner.token })).body.products[0] as { id: string };
    await sendAndWait(s.agentId, messageEvent({ action: 'cart_add', id: product.id }));
    host.sequence(s.model, [{ toolCalls: [{ name: 'checkout', arguments: { clientPhone: PHONE } }] }, { text: 'Оформлено' }]);
    const [plainOrder] = await sendAndWait(s.agentId, messageNew('Ещё один плед'), 2);
    expect(checkoutDeclaration(host.requestsFor(s.model)[0]!)).toEqual({
      type: 'object',
      properties: { clientPhone: { type: 'string', description: expect.any(String) } },
      required: ['clientPhone'],
      additionalProperties: false,
    });
    const orders = await s.orders();
    expect(orders).toHaveLength(2);
    const second = orders.find((o) => o.id !== order!.id)!;
    expect(second).toMatchObject({ totalMinor: 150000, delivery: null });
    expect(plainOrder!.message).not.toContain('Доставка');
  });
});

describe('the reminder of an unpaid order (periodic, once)', () => {
  const HOUR = 3_600_000;
  // The shops here set no working hours, so their reminders keep to the day (09:00–21:00 Moscow): the orders
  // are dated at the next 10:00 Moscow and the passes run from there, whatever the hour the test runs at.
  const BASE = (() => {
    const tenToday = Date.parse(`${moscowDate(0)}T10:00:00+03:00`);
    return tenToday > Date.now() ? tenToday : tenToday + 24 * HOUR;
  })();
  const runAt = (ms: number) => app.instance.services.commerce.reminders.runOnce(new Date(BASE + ms));
  // Order numbers repeat across shops (each counts its own day); the payment link is the order's own.
  const remindersOf = (order: { number: string; paymentLink: string }) =>
    vk.sentMessages.filter((m) => m.message.startsWith(`Напоминаем: заказ ${order.number}`) && m.message.includes(order.paymentLink));

  /** A pickup order placed by the client with a known phone; pending until paid. */
  async function placed(delivery: unknown = DELIVERY) {
    const s = await shopWithCart(delivery);
    await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
    const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
    const [summary] = await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Самовывоз')));
    await sendAndWait(s.agentId, messageEvent(payloadOf(summary!, 'Подтвердить')));
    const [order] = await s.orders();
    await app.sql(`update orders set created_at = $1 where id = $2`, [new Date(BASE).toISOString(), order!.id]);
    return { ...s, order: order! };
  }

  test('after the shop’s 2 hours (default) once, with the payment link, even when two passes run at once; not before', async () => {
    const s = await placed();
    await runAt(HOUR);
    expect(remindersOf(s.order)).toHaveLength(0);
    await Promise.all([runAt(2 * HOUR + 60_000), runAt(2 * HOUR + 60_000)]);
    const [reminder] = await waitFor(() => (remindersOf(s.order).length > 0 ? remindersOf(s.order) : undefined), 5000, 'the reminder');
    expect(plain(reminder!.message)).toBe(
      `Напоминаем: заказ ${s.order.number} на 1 500,00 ₽ ещё не оплачен.\nОплатить: ${s.order.paymentLink}\nЕсли передумали — просто не оплачивайте, заказ не будет отправлен.`,
    );
    await runAt(5 * HOUR);
    await new Promise((r) => setTimeout(r, 300));
    expect(remindersOf(s.order)).toHaveLength(1);
  });

  test('a shop without working hours keeps to the day: due at 22:00 it waits for 09:00, then goes once', async () => {
    const s = await placed();
    // Placed at 20:00 Moscow: its 2 hours end at 22:00.
    await app.sql(`update orders set created_at = $1 where id = $2`, [new Date(BASE + 10 * HOUR).toISOString(), s.order.id]);
    await runAt(12 * HOUR + 60_000);
    await runAt(22 * HOUR + 59 * 60_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(remindersOf(s.order)).toHaveLength(0);
    expect((await app.sql(`select unpaid_reminder_at from orders where id = $1`, [s.order.id]))[0]).toMatchObject({ unpaid_reminder_at: null });
    await runAt(23 * HOUR + 60_000);
    await waitFor(() => remindersOf(s.order)[0], 5000, 'the morning reminder');
    await runAt(24 * HOUR);
    await new Promise((r) => setTimeout(r, 300));
    expect(remindersOf(s.order)).toHaveLength(1);
  });

  test('not when paid or cancelled meanwhile, not to a client who denied messages, never with 0 hours; 5 hours waits 5', async () => {
    const paid = await placed();
    yk.succeed(paid.order.paymentId!);
    expect((await yk.notify(paid.webhook, paid.order.paymentId!, 'payment.succeeded')).status).toBe(200);
    const cancelled = await placed();
    expect(
      (
        await call(app.url, 'POST', `${cancelled.base}/orders/${cancelled.order.id}/status`, {
          token: cancelled.owner.token,
          body: { status: 'cancelled', reason: 'Клиент передумал' },
        })
      ).status,
    ).toBe(200);
    const denied = await placed();
    const deny = await fetch(`${app.url}/api/v1/social/webhook/${denied.agentId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'message_deny', event_id: `deny-${Date.now()}`, v: '5.199', group_id: GROUP, secret: SECRET, object: { user_id: CLIENT } }),
    });
    expect(deny.status).toBe(200);
    const off = await placed();
    expect(
      (await call(app.url, 'PUT', `${off.base}/settings`, { token: off.owner.token, body: { paymentLinkTemplate: TEMPLATE, unpaidReminderHours: 0 } })).body
        .unpaidReminderHours,
    ).toBe(0);
    const later = await placed();
    expect(
      (await call(app.url, 'PUT', `${later.base}/settings`, { token: later.owner.token, body: { paymentLinkTemplate: TEMPLATE, unpaidReminderHours: 5 } })).body
        .unpaidReminderHours,
    ).toBe(5);
    const bad = await call(app.url, 'PUT', `${later.base}/settings`, { token: later.owner.token, body: { paymentLinkTemplate: TEMPLATE, unpaidReminderHours: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('напоминание о неоплаченном заказе');

    await runAt(3 * HOUR);
    await new Promise((r) => setTimeout(r, 500));
    for (const s of [paid, cancelled, denied, off, later]) expect(remindersOf(s.order)).toHaveLength(0);
    await runAt(5 * HOUR + 60_000);
    await waitFor(() => remindersOf(later.order)[0], 5000, 'the 5-hour reminder');
    for (const s of [paid, cancelled, denied, off]) expect(remindersOf(s.order)).toHaveLength(0);
  });
});

describe('54-FZ receipts for shop payments (the shop’s YooKassa account has them on)', () => {
  test('the payment carries the order’s lines and the delivery, for the client’s phone, adding up to the total; off, a receipt-requiring account refuses and the template link is the fallback', async () => {
    yk.addShop(SHOP_ID, SHOP_SECRET, { requireReceipt: true });
    const s = await shopWithCart();
    const vat = await call(app.url, 'PUT', `${s.base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: TEMPLATE, receiptVatCode: 13 } });
    expect(vat.status).toBe(400);
    expect(vat.text).toContain('ставка НДС в чеке');

    // Off (the default): YooKassa refuses a payment without a receipt; the order keeps the template link.
    await app.sql(`update dialogues set client_phone = '79161234567' where agent_id = $1`, [s.agentId]);
    const courierOrder = async () => {
      const [methods] = await sendAndWait(s.agentId, messageEvent({ action: 'checkout' }));
      const [summary] = await sendAndWait(s.agentId, messageEvent(payloadOf(methods!, 'Курьер')));
      expect(summary!.message).toContain('адрес');
      await sendAndWait(s.agentId, messageNew('Москва, ул. Ленина, д. 5, кв. 12'));
      await sendAndWait(s.agentId, messageNew('Анна Иванова'));
      const [confirm] = vk.sentMessages.slice(-1);
      const [placed] = await sendAndWait(s.agentId, messageEvent(payloadOf(confirm!, 'Подтвердить')));
      return placed!;
    };
    const withoutReceipt = await courierOrder();
    expect(withoutReceipt.message).toContain('https://pay.example.ru/checkout?order=');
    expect(yk.payments).toHaveLength(0);

    const on = await call(app.url, 'PUT', `${s.base}/settings`, {
      token: s.owner.token,
      body: { paymentLinkTemplate: TEMPLATE, yookassaReceipts: true, receiptVatCode: 1 },
    });
    expect(on.body).toMatchObject({ yookassaReceipts: true, receiptVatCode: 1 });
    const product = (await call(app.url, 'GET', `${s.base}/products`, { token: s.owner.token })).body.products[0] as { id: string };
    await sendAndWait(s.agentId, messageEvent({ action: 'cart_add', id: product.id }));
    await sendAndWait(s.agentId, messageEvent({ action: 'cart_inc', id: product.id }));
    const withReceipt = await courierOrder();
    expect(yk.payments).toHaveLength(1);
    expect(withReceipt.message).toContain(yk.payments[0]!.confirmationUrl);
    expect(yk.payments[0]!.amount.value).toBe('3300.00');
    const created = yk.calls.filter((c) => c.method === 'POST' && c.path === '/payments' && c.status === 200).at(-1)!;
    expect((created.body as { receipt: unknown }).receipt).toEqual({
      customer: { phone: '79161234567' },
      items: [
        {
          description: 'Плед',
          quantity: '2.00',
          amount: { value: '1500.00', currency: 'RUB' },
          vat_code: 1,
          payment_subject: 'commodity',
          payment_mode: 'full_payment',
        },
        {
          description: 'Доставка (курьер)',
          quantity: '1.00',
          amount: { value: '300.00', currency: 'RUB' },
          vat_code: 1,
          payment_subject: 'service',
          payment_mode: 'full_payment',
        },
      ],
    });
  });
});
