// The agent page's two new facts over HTTP: a new agent's prompt starts from its type's Russian template
// (editable; a prompt sent, even an empty one, is kept; existing agents unchanged), and
// GET /api/v1/agents/:agentId/tools lists what the model gets and what is missing and why.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { PROMPT_TEMPLATES } from '../../src/agents/templates';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

async function agent(token: string, body: Record<string, unknown>) {
  const res = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Агент', model: 'acme/chat', ...body } });
  expect(res.status).toBe(201);
  return res.body as { id: string; systemPrompt: string; type: string };
}

describe('prompt templates', () => {
  test('an agent created without a prompt gets its type’s template; a prompt sent is kept; the owner edits it', async () => {
    const { token } = await registerUser(app.url);
    const salon = await agent(token, { type: 'service' });
    const shop = await agent(token, { type: 'ecommerce' });
    const creator = await agent(token, { type: 'creator' });
    expect(salon.systemPrompt).toBe(PROMPT_TEMPLATES.service);
    expect(shop.systemPrompt).toBe(PROMPT_TEMPLATES.ecommerce);
    expect(creator.systemPrompt).toBe(PROMPT_TEMPLATES.creator);
    // Each names its type's tools, in Russian.
    expect(salon.systemPrompt).toContain('book_appointment');
    expect(salon.systemPrompt).toContain('салон');
    expect(shop.systemPrompt).toContain('checkout');
    expect(creator.systemPrompt).toContain('search_knowledge');
    // A creator's assistant collects collaboration requests into the inbox through escalation.
    expect(creator.systemPrompt).toMatch(/сотрудничеств[\s\S]*escalate_to_human/);
    // The three are different texts.
    expect(new Set([salon.systemPrompt, shop.systemPrompt, creator.systemPrompt]).size).toBe(3);

    expect((await agent(token, { type: 'service', systemPrompt: 'Мой промпт' })).systemPrompt).toBe('Мой промпт');
    expect((await agent(token, { type: 'creator', systemPrompt: '' })).systemPrompt).toBe('');

    const edited = await call(app.url, 'PATCH', `/api/agents/${salon.id}`, { token, body: { systemPrompt: `${salon.systemPrompt}\nАдрес: Тверская, 1.` } });
    expect(edited.status).toBe(200);
    expect(edited.body.systemPrompt.endsWith('Адрес: Тверская, 1.')).toBe(true);
    // Editing something else leaves the prompt as it is.
    const renamed = await call(app.url, 'PATCH', `/api/agents/${creator.id}`, { token, body: { name: 'Автор' } });
    expect(renamed.body.systemPrompt).toBe(PROMPT_TEMPLATES.creator);
  });
});

describe('GET /api/v1/agents/:agentId/tools', () => {
  test('a shop without products lacks its shop tools («Добавьте товары в каталог»); with products but no payments, checkout; then all', async () => {
    const { token } = await registerUser(app.url);
    const shop = await agent(token, { type: 'ecommerce' });
    const tools = async () => {
      const res = await call(app.url, 'GET', `/api/v1/agents/${shop.id}/tools`, { token });
      expect(res.status).toBe(200);
      return res.body as { tools: { name: string; description: string }[]; missing: { name: string; reason: string }[] };
    };
    const empty = await tools();
    expect(empty.tools.map((t) => t.name)).toContain('order_status');
    expect(empty.tools.map((t) => t.name)).not.toContain('search_products');
    expect(empty.missing).toEqual(
      expect.arrayContaining([
        { name: 'search_products', reason: 'Добавьте товары в каталог' },
        { name: 'add_to_cart', reason: 'Добавьте товары в каталог' },
        { name: 'show_cart', reason: 'Добавьте товары в каталог' },
        { name: 'checkout', reason: 'Добавьте товары в каталог' },
        { name: 'search_knowledge', reason: 'Добавьте записи в базу знаний' },
      ]),
    );
    for (const t of empty.tools) expect(t.description).toMatch(/[а-я]/);

    const base = `/api/v1/commerce/${shop.id}`;
    expect((await call(app.url, 'POST', `${base}/products`, { token, body: { title: 'Шарф', priceMinor: 99000 } })).status).toBe(201);
    const noPayments = await tools();
    expect(noPayments.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['search_products', 'add_to_cart', 'show_cart', 'order_status']));
    expect(noPayments.missing).toContainEqual({ name: 'checkout', reason: 'Настройте оплату заказов в разделе «Магазин»' });

    expect((await call(app.url, 'PUT', `${base}/settings`, { token, body: { paymentLinkTemplate: 'https://pay.example.ru/{orderNumber}' } })).status).toBe(200);
    expect((await call(app.url, 'POST', `/api/v1/agents/${shop.id}/knowledge`, { token, body: { title: 'Доставка', content: 'Курьером за 300 ₽.' } })).status).toBe(
      201,
    );
    const full = await tools();
    expect(full.tools.map((t) => t.name).sort()).toEqual([
      'add_to_cart',
      'checkout',
      'escalate_to_human',
      'offer_choices',
      'order_status',
      'search_knowledge',
      'search_products',
      'show_cart',
    ]);
    expect(full.missing).toEqual([]);
  });

  test('a salon or a creator gets no shop tools; the knowledge tool once it has entries', async () => {
    const { token } = await registerUser(app.url);
    const creator = await agent(token, { type: 'creator' });
    const before = (await call(app.url, 'GET', `/api/v1/agents/${creator.id}/tools`, { token })).body;
    expect(before.tools.map((t: { name: string }) => t.name)).not.toContain('search_products');
    expect(before.missing.map((m: { name: string }) => m.name)).not.toContain('search_products');
    await call(app.url, 'POST', `/api/v1/agents/${creator.id}/knowledge`, { token, body: { title: 'Курс', content: 'Старт 1 декабря.' } });
    const after = (await call(app.url, 'GET', `/api/v1/agents/${creator.id}/tools`, { token })).body;
    expect(after.tools.map((t: { name: string }) => t.name)).toContain('search_knowledge');
    const other = await registerUser(app.url);
    expect((await call(app.url, 'GET', `/api/v1/agents/${creator.id}/tools`, { token: other.token })).status).toBe(403);
  });
});
