// What a call cost, in the answer itself: usage.cost and x-conduit-cost equal to what the ledger charged,
// for chat (plain and the final chunk of a stream that asked for usage), embeddings and the Responses API,
// driven by the official SDK.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { expectedEmbeddingTokens, expectedResponseUsage, expectedUsage } from '../fakes/upstream';
import { call, type TestApp } from '../helpers/app';
import { newGatewayCustomer, PRICE_NANO, settleAll, unbalancedUsers, usageRows, useGatewayApp } from '../helpers/gateway';

setDefaultTimeout(30_000);

const PRICE = PRICE_NANO;

let app: TestApp;
useGatewayApp({
  ready: (s) => {
    app = s.app;
  },
});
const newCustomer = () => newGatewayCustomer(app);

/** The ledger's debits of a user for usage, in nano-units. */
async function ledgerCharged(userId: string): Promise<bigint> {
  await settleAll(app);
  const [row] = await app.sql<{ total: unknown }>(`select coalesce(-sum(amount_nano), 0)::text as total from ledger_entries where user_id = $1 and kind = 'usage'`, [
    userId,
  ]);
  return BigInt(row!.total as string);
}

const asNano = (cost: number | string) => BigInt(Math.round(Number(cost) * 1e9));

describe('the cost of a call in its answer', () => {
  test('chat: usage.cost and the x-conduit-cost header equal the usage row and the ledger debit', async () => {
    const c = await newCustomer();
    const body = { model: 'acme/chat', messages: [{ role: 'user' as const, content: 'Привет' }] };
    const { data, response } = await c.client.chat.completions.create(body).withResponse();
    const usage = expectedUsage(body);
    const expected = BigInt(usage.prompt_tokens + usage.completion_tokens) * PRICE;
    const header = response.headers.get('x-conduit-cost');
    expect(header).toBe((Number(expected) / 1e9).toFixed(9).replace(/0+$/, ''));
    const withCost = data.usage as unknown as { cost: number; prompt_tokens: number };
    expect(asNano(withCost.cost)).toBe(expected);
    expect(withCost.prompt_tokens).toBe(usage.prompt_tokens);
    const rows = await usageRows(app, c.userId);
    expect(BigInt(rows[0]!.cost_nano as string)).toBe(expected);
    expect(await ledgerCharged(c.userId)).toBe(expected);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('chat without upstream usage: the answer gets a usage object with the counted tokens and their cost', async () => {
    const c = await newCustomer();
    const { data, response } = await c.client.chat.completions.create({ model: 'fake/no-usage', messages: [{ role: 'user', content: 'Привет' }] }).withResponse();
    const rows = await usageRows(app, c.userId);
    const charged = BigInt(rows[0]!.cost_nano as string);
    expect(charged).toBeGreaterThan(0n);
    expect(asNano(response.headers.get('x-conduit-cost')!)).toBe(charged);
    const usage = data.usage as unknown as { cost: number; prompt_tokens: number; completion_tokens: number };
    expect(asNano(usage.cost)).toBe(charged);
    expect(usage.prompt_tokens).toBe(rows[0]!.prompt_tokens);
    expect(usage.completion_tokens).toBe(rows[0]!.completion_tokens);
  });

  test('a stream that asks for usage gets the cost in its final usage chunk; one that does not sees no usage', async () => {
    const c = await newCustomer();
    const body = { model: 'acme/chat', messages: [{ role: 'user' as const, content: 'Поток' }] };
    const stream = await c.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } });
    let final: { cost?: number; prompt_tokens?: number } | null = null;
    let content = '';
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) final = chunk.usage as unknown as { cost: number };
    }
    expect(content.length).toBeGreaterThan(0);
    const usage = expectedUsage(body);
    const expected = BigInt(usage.prompt_tokens + usage.completion_tokens) * PRICE;
    expect(final).not.toBeNull();
    expect(asNano(final!.cost!)).toBe(expected);
    expect(final!.prompt_tokens).toBe(usage.prompt_tokens);

    const plain = await c.client.chat.completions.create({ ...body, stream: true });
    for await (const chunk of plain) expect(chunk.usage ?? null).toBeNull();
    expect(await ledgerCharged(c.userId)).toBe(expected * 2n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('embeddings: usage.cost and the header at the prompt price', async () => {
    const c = await newCustomer();
    const { data, response } = await c.client.embeddings.create({ model: 'acme/embed', input: 'стоимость' }).withResponse();
    const tokens = expectedEmbeddingTokens({ input: 'стоимость' });
    const expected = BigInt(tokens) * PRICE;
    expect(asNano((data.usage as unknown as { cost: number }).cost)).toBe(expected);
    expect(asNano(response.headers.get('x-conduit-cost')!)).toBe(expected);
    expect(await ledgerCharged(c.userId)).toBe(expected);
  });

  test('responses: usage.cost and the header', async () => {
    const c = await newCustomer();
    const body = { model: 'acme/chat', input: 'Сколько стоит?' };
    const { data, response } = await c.client.responses.create(body).withResponse();
    const usage = expectedResponseUsage(body);
    const expected = BigInt(usage.input_tokens + usage.output_tokens) * PRICE;
    expect(asNano((data.usage as unknown as { cost: number }).cost)).toBe(expected);
    expect(asNano(response.headers.get('x-conduit-cost')!)).toBe(expected);
    expect(await ledgerCharged(c.userId)).toBe(expected);
  });

  test('a Responses stream carries the cost in the usage of its response.completed event', async () => {
    const c = await newCustomer();
    const body = { model: 'acme/chat', input: 'Поток ответа' };
    const stream = await c.client.responses.create({ ...body, stream: true });
    let usage: { cost?: number; input_tokens?: number } | null = null;
    let text = '';
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') usage = event.response.usage as unknown as { cost: number; input_tokens: number };
    }
    expect(text.length).toBeGreaterThan(0);
    const expectedUsage = expectedResponseUsage(body);
    const expected = BigInt(expectedUsage.input_tokens + expectedUsage.output_tokens) * PRICE;
    expect(usage).not.toBeNull();
    expect(asNano(usage!.cost!)).toBe(expected);
    expect(usage!.input_tokens).toBe(expectedUsage.input_tokens);
    expect(await ledgerCharged(c.userId)).toBe(expected);
  });

  test('an error answer carries no cost header', async () => {
    const c = await newCustomer();
    const res = await call(app.url, 'POST', '/v1/chat/completions', { body: { model: 'acme/chat', messages: [] }, token: c.key });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-conduit-cost')).toBeNull();
  });
});
