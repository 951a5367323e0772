// The E-commerce agent's model tools run against the real database through the app's services (until the
// tool loop drives them from the VK webhook: test/assistant/assistant-shop.test.ts), plus what an owner sees over
// HTTP: product attributes and stock in the catalog API and its CSV import, the order marked as the
// model's, the stock a payment takes off, and the agent's results counting the model's orders apart.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { AssistantTool, ToolContext } from '../../src/assistant/tools/types';
import { dialogues } from '../../src/dialogues/tables';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

let app: TestApp;
const TEMPLATE = 'https://pay.example.ru/checkout?order={orderNumber}&sum={amount}';

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function shop(options: { payments?: boolean } = {}) {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Магазин «Лён»', type: 'ecommerce', model: 'acme/chat' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const base = `/api/v1/commerce/${agentId}`;
  let webhook = '';
  if (options.payments !== false) {
    const res = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE } });
    expect(res.status).toBe(200);
    webhook = (res.body.webhookUrlWithSecret as string).replace(/^http:\/\/[^/]+/, app.url);
  }
  return { owner, agentId, base, webhook };
}

async function addProduct(s: { owner: { token: string }; base: string }, body: Record<string, unknown>) {
  const res = await call(app.url, 'POST', `${s.base}/products`, { token: s.owner.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; title: string; stock: number | null; attributes: Record<string, string> };
}

/** The agent's shop tools by name, and a context for one client's dialogue (peer). */
async function toolsOf(agentId: string, peer: string) {
  const services = app.instance.services;
  const agent = (await services.agents.find(agentId))!;
  const lists = await Promise.all(services.toolProviders.map((p) => p.toolsFor(agent)));
  const tools = new Map<string, AssistantTool>(lists.flatMap((l) => l.tools).map((t) => [t.name, t]));
  const [dialogue] = await services.db.insert(dialogues).values({ agentId, channel: 'vk', peerId: peer }).returning();
  const ctx: ToolContext = { agent, dialogue: dialogue!, requestId: `req-${peer}`, clientText: '' };
  const run = async (name: string, args: Record<string, unknown>) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`tool ${name} not offered`);
    return tool.run(args, ctx);
  };
  return { tools, ctx, run };
}

describe('catalog: attributes and stock', () => {
  test('the API takes and returns attributes and stock; old clients that send neither keep working', async () => {
    const s = await shop({ payments: false });
    const plain = await addProduct(s, { title: 'Скатерть', priceMinor: 350000 });
    expect(plain).toMatchObject({ attributes: {}, stock: null });
    const dress = await addProduct(s, { title: 'Платье', priceMinor: 499000, attributes: { цвет: 'красный', размер: 'M' }, stock: 3 });
    expect(dress).toMatchObject({ attributes: { цвет: 'красный', размер: 'M' }, stock: 3 });
    const patched = await call(app.url, 'PATCH', `${s.base}/products/${dress.id}`, { token: s.owner.token, body: { stock: 0 } });
    expect(patched.body).toMatchObject({ stock: 0, attributes: { цвет: 'красный', размер: 'M' } });
    const untracked = await call(app.url, 'PATCH', `${s.base}/products/${dress.id}`, { token: s.owner.token, body: { stock: null } });
    expect(untracked.body.stock).toBeNull();

    for (const [body, message] of [
      [{ title: 'x', priceMinor: 1, stock: -1 }, 'Остаток: остаток не может быть отрицательным'],
      [{ title: 'x', priceMinor: 1, stock: 1.5 }, 'Остаток'],
      [{ title: 'x', priceMinor: 1, attributes: { цвет: 5 } }, 'Характеристики'],
      [{ title: 'x', priceMinor: 1, attributes: ['M'] }, 'Характеристики'],
      [{ title: 'x', priceMinor: 1, attributes: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'не больше 20 характеристик'],
    ] as const) {
      const res = await call(app.url, 'POST', `${s.base}/products`, { token: s.owner.token, body });
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.error.message).toContain(message);
    }
  });

  test('CSV import: a stock column, and any other column is an attribute named by its header', async () => {
    const s = await shop({ payments: false });
    const csv = 'title;price;stock;размер;цвет\nПлатье «Лето»;4990;2;M;красный\nПлатье «Осень»;5990;;L;синий\nШарф;990;0;;серый\n';
    const res = await call(app.url, 'POST', `${s.base}/products/import`, { token: s.owner.token, body: { csv } });
    expect(res.body).toEqual({ ok: true, imported: 3, errors: [] });
    const listed = (await call(app.url, 'GET', `${s.base}/products?limit=10`, { token: s.owner.token })).body.products as {
      title: string;
      stock: number | null;
      attributes: Record<string, string>;
      priceMinor: number;
    }[];
    const by = Object.fromEntries(listed.map((p) => [p.title, p]));
    expect(by['Платье «Лето»']).toMatchObject({ priceMinor: 499000, stock: 2, attributes: { размер: 'M', цвет: 'красный' } });
    expect(by['Платье «Осень»']).toMatchObject({ stock: null, attributes: { размер: 'L', цвет: 'синий' } });
    expect(by.Шарф).toMatchObject({ stock: 0, attributes: { цвет: 'серый' } });
    const bad = await call(app.url, 'POST', `${s.base}/products/import`, { token: s.owner.token, body: { csv: 'title;price;stock\nА;10;-3\nБ;10;много\n' } });
    expect(bad.body.ok).toBe(false);
    expect(bad.body.errors.map((e: { row: number }) => e.row)).toEqual([1, 2]);
  });
});

describe('shop tools', () => {
  test('search_products finds by stemmed words in title, description and attributes, marks what is out of stock, hides what is off sale', async () => {
    const s = await shop();
    await addProduct(s, {
      title: 'Платье летнее',
      description: 'Лёгкое хлопковое платье миди',
      priceMinor: 499000,
      attributes: { цвет: 'красный', размер: 'M' },
      stock: 2,
    });
    await addProduct(s, { title: 'Платье вечернее', description: 'Шёлк', priceMinor: 899000, attributes: { цвет: 'синий', размер: 'S' }, stock: 0 });
    await addProduct(s, { title: 'Рубашка', description: 'Красная рубашка из льна', priceMinor: 299000 });
    await addProduct(s, { title: 'Платье снятое с продажи', priceMinor: 100, available: false });
    const { run } = await toolsOf(s.agentId, '101');

    const dresses = (await run('search_products', { query: 'платья' })).result as {
      products: { title: string; inStock: boolean; stock: number | null; price: string }[];
    };
    expect(dresses.products.map((p) => p.title).sort()).toEqual(['Платье вечернее', 'Платье летнее']);
    expect(dresses.products.find((p) => p.title === 'Платье вечернее')).toMatchObject({ inStock: false, stock: 0 });
    expect(dresses.products.find((p) => p.title === 'Платье летнее')!.price.replace(/\s/g, ' ')).toBe('4 990,00 ₽');

    // «красное платье»: the stemmed colour attribute and the title together put the red dress first.
    const red = await run('search_products', { query: 'красное платье' });
    expect((red.result as { products: { title: string; attributes: Record<string, string> }[] }).products[0]).toMatchObject({
      title: 'Платье летнее',
      attributes: { цвет: 'красный', размер: 'M' },
    });
    expect(red.summary).toBe('поиск «красное платье»: найдено 1');
    // No product has every word: those with any of them, best first.
    const loose = (await run('search_products', { query: 'красная юбка' })).result as { products: { title: string }[]; matched: string };
    expect(loose.matched).toBe('any');
    expect(loose.products.map((p) => p.title).sort()).toEqual(['Платье летнее', 'Рубашка']);
    // No words: the catalog's first products on sale.
    const everything = (await run('search_products', { query: '  ' })).result as { products: { title: string }[] };
    expect(everything.products.map((p) => p.title)).toEqual(['Платье летнее', 'Платье вечернее', 'Рубашка']);
    const none = (await run('search_products', { query: 'велосипед' })).result as { products: unknown[]; note: string };
    expect(none.products).toEqual([]);
    expect(none.note).toMatch(/Ничего не найдено/);
  });

  test('add_to_cart, show_cart, checkout: the order is made on the buttons’ path, marked as the model’s, and a payment takes it off the stock', async () => {
    const s = await shop();
    const dress = await addProduct(s, { title: 'Платье летнее', priceMinor: 499000, attributes: { размер: 'M' }, stock: 2 });
    const gone = await addProduct(s, { title: 'Платье вечернее', priceMinor: 899000, stock: 0 });
    const scarf = await addProduct(s, { title: 'Шарф', priceMinor: 99000 });
    const { run, ctx } = await toolsOf(s.agentId, '202');

    expect((await run('add_to_cart', { productId: gone.id, quantity: 1 })).result).toMatchObject({ ok: false, error: expect.stringContaining('нет в наличии') });
    expect((await run('add_to_cart', { productId: dress.id, quantity: 3 })).result).toMatchObject({ ok: false, inStock: 2, inCart: 0 });
    expect((await run('add_to_cart', { productId: '00000000-0000-4000-8000-000000000000', quantity: 1 })).result).toMatchObject({ ok: false });
    expect((await run('add_to_cart', { productId: dress.id, quantity: 'много' })).result).toMatchObject({ ok: false });
    const added = await run('add_to_cart', { productId: dress.id, quantity: 2 });
    expect(added.result).toEqual({ ok: true, title: 'Платье летнее', quantityInCart: 2 });
    expect(added.summary).toBe('в корзине «Платье летнее» × 2');
    await run('add_to_cart', { productId: scarf.id, quantity: 1 });

    const cart = (await run('show_cart', {})).result as { items: { title: string; quantity: number; orderable: boolean }[]; total: string };
    expect(cart.items.map((i) => [i.title, i.quantity, i.orderable])).toEqual([
      ['Платье летнее', 2, true],
      ['Шарф', 1, true],
    ]);
    expect(cart.total.replace(/\s/g, ' ')).toBe('10 970,00 ₽');

    expect((await run('checkout', { clientPhone: 'не скажу' })).result).toMatchObject({ ok: false, error: expect.stringContaining('телефон') });
    const placed = await run('checkout', { clientPhone: '8 (916) 123-45-67' });
    const order = { ...(placed.result as { ok: boolean; orderNumber: string; paymentLink: string; total: string; status: string }) };
    expect(order.orderNumber).toMatch(/^ORD-\d{8}-\d{4}$/);
    expect(order).toMatchObject({ ok: true, status: 'pending' });
    expect(order.paymentLink).toBe(`https://pay.example.ru/checkout?order=${encodeURIComponent(order.orderNumber)}&sum=10970.00`);
    expect(placed.summary.replace(/\s/g, ' ')).toBe(`заказ ${order.orderNumber} на 10 970,00 ₽`);
    expect(((await run('show_cart', {})).result as { empty: boolean }).empty).toBe(true);
    expect((await run('checkout', {})).result).toMatchObject({ ok: false, error: expect.stringContaining('В корзине нет') });

    // The owner sees the order as the model's, with the client's phone.
    const orders = (await call(app.url, 'GET', `${s.base}/orders`, { token: s.owner.token })).body.orders as {
      number: string;
      source: string;
      clientPhone: string;
    }[];
    expect(orders).toHaveLength(1);
    expect(orders[0]).toMatchObject({ number: order.orderNumber, source: 'model', clientPhone: '79161234567' });
    const [row] = await app.sql<{ client_phone: string }>('select client_phone from dialogues where id = $1', [ctx.dialogue.id]);
    expect(row!.client_phone).toBe('79161234567');

    const paid = await fetch(s.webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'notification',
        event: 'payment.succeeded',
        object: { id: 'pay-model-1', status: 'succeeded', paid: true, amount: { value: '10970.00', currency: 'RUB' }, metadata: { orderNumber: order.orderNumber } },
      }),
    });
    expect(paid.status).toBe(200);
    const stock = async (id: string) => (await call(app.url, 'GET', `${s.base}/products/${id}`, { token: s.owner.token })).body.stock as number | null;
    expect(await stock(dress.id)).toBe(0);
    expect(await stock(scarf.id)).toBeNull();
    // Sold out now: search shows it as such and the cart refuses it.
    expect((await run('add_to_cart', { productId: dress.id, quantity: 1 })).result).toMatchObject({ ok: false, error: expect.stringContaining('нет в наличии') });
    expect((await run('order_status', { orderNumber: order.orderNumber.toLowerCase() })).result).toMatchObject({
      found: true,
      status: 'paid',
      statusText: 'оплачен',
      paymentLink: null,
    });

    const results = await call(app.url, 'GET', `/api/v1/agents/${s.agentId}/results`, { token: s.owner.token });
    expect(results.body.orders).toMatchObject({ created: 1, paid: 1 });
    expect(results.body.ordersByModel).toEqual({ created: 1, paid: 1 });
  });

  test('checkout refuses a cart line beyond what is left now (the stock fell after it was added), saying so', async () => {
    const s = await shop();
    const lamp = await addProduct(s, { title: 'Лампа', priceMinor: 150000, stock: 3 });
    const { run } = await toolsOf(s.agentId, '404');
    expect((await run('add_to_cart', { productId: lamp.id, quantity: 3 })).result).toMatchObject({ ok: true, quantityInCart: 3 });
    expect((await call(app.url, 'PATCH', `${s.base}/products/${lamp.id}`, { token: s.owner.token, body: { stock: 2 } })).status).toBe(200);
    const refused = await run('checkout', { clientPhone: '+7 916 000-00-04' });
    expect(refused.result).toEqual({ ok: false, error: 'Товара «Лампа» осталось 2 шт.: уменьшите количество в корзине' });
    expect((await call(app.url, 'GET', `${s.base}/orders`, { token: s.owner.token })).body.orders).toEqual([]);
  });

  test('order_status: the client’s own order by number; another client’s number answers exactly like one that does not exist', async () => {
    const s = await shop();
    const scarf = await addProduct(s, { title: 'Шарф', priceMinor: 99000 });
    const mine = await toolsOf(s.agentId, '303');
    const theirs = await toolsOf(s.agentId, '304');
    await theirs.run('add_to_cart', { productId: scarf.id, quantity: 1 });
    const other = (await theirs.run('checkout', { clientPhone: '+7 916 000-00-01' })).result as { orderNumber: string };
    await mine.run('add_to_cart', { productId: scarf.id, quantity: 1 });
    const own = (await mine.run('checkout', { clientPhone: '+7 916 000-00-02' })).result as { orderNumber: string };

    const found = await mine.run('order_status', { orderNumber: own.orderNumber });
    expect(found.result).toMatchObject({
      found: true,
      orderNumber: own.orderNumber,
      status: 'pending',
      statusText: 'ожидает оплаты',
      paymentLink: expect.stringContaining('pay.example.ru'),
    });
    expect(found.result).not.toHaveProperty('clientPhone');

    const foreign = await mine.run('order_status', { orderNumber: other.orderNumber });
    const missing = await mine.run('order_status', { orderNumber: 'ORD-20200101-9999' });
    expect(foreign.result).toEqual({ found: false, error: expect.any(String) });
    expect(foreign.result).toEqual(missing.result);
    expect(JSON.stringify(foreign.result)).not.toContain('000-00-01');
    expect((await mine.run('order_status', { orderNumber: 'DROP TABLE' })).result).toEqual(missing.result);
  });
});
