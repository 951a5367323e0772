// POST /v1/embeddings driven by the official OpenAI SDK against the fake upstream: forwarding, billing at
// the prompt price, reservation before the call, validation and upstream failures.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { countTextTokens } from '../../src/gateway/tokens';
import { EMBEDDING_DIMENSIONS, expectedEmbeddingTokens, fakeEmbedding, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import {
  balanceNanoInDb,
  newGatewayCustomer,
  openaiClient,
  PRICE_NANO,
  setBalanceNano,
  settleAll,
  START_NANO,
  unbalancedUsers,
  usageRows,
  useGatewayApp,
} from '../helpers/gateway';

setDefaultTimeout(30_000);

const PRICE = PRICE_NANO;
const START = START_NANO;

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ env: { BODY_LIMIT_BYTES: '65536' }, ready: (s) => ({ app, fake } = s) });
const newCustomer = () => newGatewayCustomer(app);

const embeddingRequests = () => fake.requests.filter((r) => r.path === '/v1/embeddings');

async function endpointOf(userId: string): Promise<string[]> {
  await app.instance.services.billing.flush();
  const rows = await app.sql<{ endpoint: string }>('select endpoint from usage_records where user_id = $1 order by id', [userId]);
  return rows.map((r) => r.endpoint);
}

describe('embeddings through the SDK', () => {
  test('a string input: the SDK gets the fake vectors; the body reaches the upstream unchanged; billed at prompt_tokens', async () => {
    const c = await newCustomer();
    // The SDK asks for base64 unless told otherwise, and decodes it back into floats.
    const result = await c.client.embeddings.create({ model: 'acme/embed', input: 'Привет, мир', user: 'end-user-7' });
    expect(result.object).toBe('list');
    expect(result.data).toHaveLength(1);
    expect(result.data[0]!.embedding).toEqual(fakeEmbedding('Привет, мир', EMBEDDING_DIMENSIONS));
    const tokens = expectedEmbeddingTokens({ input: 'Привет, мир' });
    expect(result.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens, cost: Number(BigInt(tokens) * PRICE) / 1e9 } as typeof result.usage);

    const [sent] = embeddingRequests();
    expect(sent!.body).toEqual({ model: 'acme/embed', input: 'Привет, мир', user: 'end-user-7', encoding_format: 'base64' });
    expect(sent!.headers.authorization).toBe('Bearer upstream-secret');

    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(
      expect.objectContaining({ status: 'ok', usage_source: 'upstream', prompt_tokens: tokens, completion_tokens: 0, total_tokens: tokens, stream: false }),
    );
    expect(BigInt(rows[0]!.cost_nano as string)).toBe(BigInt(tokens) * PRICE);
    expect(await endpointOf(c.userId)).toEqual(['embeddings']);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START - BigInt(tokens) * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('arrays of strings, token arrays and arrays of token arrays; dimensions and encoding_format pass through', async () => {
    const c = await newCustomer();
    const inputs = [
      ['один', 'два', 'три'],
      [1, 2, 3, 4, 5],
      [
        [1, 2],
        [3, 4, 5, 6],
      ],
    ] as const;
    let expected = 0n;
    for (const input of inputs) {
      const result = await c.client.embeddings.create({
        model: 'acme/embed',
        input: input as unknown as string[],
        dimensions: 4,
        encoding_format: 'float',
      });
      const parts = typeof input[0] === 'number' ? [input as unknown as number[]] : (input as unknown as (string | number[])[]);
      expect(result.data.map((d) => d.embedding)).toEqual(parts.map((p) => fakeEmbedding(p, 4)));
      expect(result.data.map((d) => d.index)).toEqual(parts.map((_, i) => i));
      expected += BigInt(expectedEmbeddingTokens({ input }));
    }
    const sent = embeddingRequests();
    expect(sent.map((r) => r.body.input)).toEqual(inputs.map((i) => [...i]));
    expect(sent.every((r) => r.body.dimensions === 4 && r.body.encoding_format === 'float')).toBe(true);
    const rows = await usageRows(app, c.userId);
    expect(rows.reduce((sum, r) => sum + BigInt(r.cost_nano as string), 0n)).toBe(expected * PRICE);
  });

  test('base64 asked for explicitly reaches the client as the upstream sent it', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/embed', input: 'abc', encoding_format: 'base64', dimensions: 3 }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    const decoded = Array.from(new Float32Array(Buffer.from(body.data[0].embedding, 'base64').buffer.slice(0)));
    expect(decoded).toEqual(fakeEmbedding('abc', 3));
  });

  test('billed at the model’s prompt price; its completion price plays no part', async () => {
    const c = await newCustomer();
    await app.instance.services.prices.upsert([{ pattern: 'acme/priced-embed', promptNanoPerMillion: 20_000_000_000n, completionNanoPerMillion: 900_000_000_000n }]);
    try {
      const result = await c.client.embeddings.create({ model: 'acme/priced-embed', input: 'x'.repeat(40) });
      const [row] = await usageRows(app, c.userId);
      // 20 000 nano per token at 20e9 per 1M tokens.
      expect(BigInt(row!.cost_nano as string)).toBe(BigInt(result.usage.prompt_tokens) * 20_000n);
    } finally {
      await app.instance.services.prices.remove('acme/priced-embed');
    }
  });

  test('an upstream that reports no usage: the input is counted with the tokenizer', async () => {
    const c = await newCustomer();
    const input = ['Съешь же ещё этих мягких французских булок', 'да выпей чаю'];
    await c.client.embeddings.create({ model: 'fake/no-usage', input });
    const [row] = await usageRows(app, c.userId);
    const counted = countTextTokens(input[0]!) + countTextTokens(input[1]!);
    expect(row).toEqual(expect.objectContaining({ usage_source: 'tokenizer', prompt_tokens: counted, completion_tokens: 0 }));
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(counted) * PRICE);
  });

  test('an input the balance can never cover → 402 before the upstream is asked', async () => {
    const c = await newCustomer();
    await setBalanceNano(app, c.userId, 1000n); // 8 tokens' worth
    fake.reset();
    const e = await c.client.embeddings.create({ model: 'acme/embed', input: Array.from({ length: 50 }, (_, i) => i) }).catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.APIError);
    expect(e.status).toBe(402);
    expect(e.error.type).toBe('insufficient_balance');
    expect(embeddingRequests()).toHaveLength(0);
    expect(await balanceNanoInDb(app, c.userId)).toBe(1000n);
  });
});

describe('shared /v1 machinery', () => {
  test('an Idempotency-Key repeat gets the stored answer and is billed once', async () => {
    const c = await newCustomer();
    const send = () =>
      fetch(`${app.url}/v1/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json', 'idempotency-key': 'emb-1' },
        body: JSON.stringify({ model: 'acme/embed', input: 'повтор' }),
      });
    const first = await send();
    const second = await send();
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(await first.text());
    expect(embeddingRequests()).toHaveLength(1);
    expect(await usageRows(app, c.userId)).toHaveLength(1);
  });

  test('the per-key rate limit counts chat, embeddings and responses together', async () => {
    const limited = await startTestApp({
      env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', RATE_LIMIT_PER_MINUTE: '2' },
    });
    try {
      const user = await registerUser(limited.url);
      const { key } = await createApiKey(limited.url, user.token);
      const client = openaiClient(limited, key);
      await client.embeddings.create({ model: 'acme/embed', input: 'x' });
      await client.responses.create({ model: 'acme/chat', input: 'x' });
      const refused = await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'x' }] }).catch((x) => x);
      expect(refused.status).toBe(429);
      const again = await client.embeddings.create({ model: 'acme/embed', input: 'x' }).catch((x) => x);
      expect(again.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('failures and checks', () => {
  test('an upstream 4xx passes through with its status and message; a 5xx is 502; nothing is charged', async () => {
    const c = await newCustomer();
    const missing = await c.client.embeddings.create({ model: 'fake/not-found', input: 'x' }).catch((x) => x);
    expect(missing.status).toBe(404);
    expect(missing.message).toContain('does not exist');
    const broken = await c.client.embeddings.create({ model: 'fake/error-500', input: 'x' }).catch((x) => x);
    expect(broken.status).toBe(502);
    expect(broken.error.type).toBe('upstream_error');
    const rows = await usageRows(app, c.userId);
    expect(rows.map((r) => [r.status, r.upstream_status, BigInt(r.cost_nano as string)])).toEqual([
      ['upstream_rejected', 404, 0n],
      ['upstream_error', 500, 0n],
    ]);
    expect(await endpointOf(c.userId)).toEqual(['embeddings', 'embeddings']);
    expect((await call(app.url, 'GET', '/api/balance', { token: c.token })).body.balance).toBe(3);
  });

  test('no key → 401; a revoked key → 403', async () => {
    const c = await newCustomer();
    const none = await fetch(`${app.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/embed', input: 'x' }),
    });
    expect(none.status).toBe(401);
    await call(app.url, 'DELETE', `/api/keys/${c.keyId}`, { token: c.token });
    expect((await c.client.embeddings.create({ model: 'acme/embed', input: 'x' }).catch((x) => x)).status).toBe(403);
  });

  test.each([
    ['no model', { input: 'x' }],
    ['no slash in model', { model: 'text-embedding-3-small', input: 'x' }],
    ['no input', { model: 'acme/embed' }],
    ['empty string', { model: 'acme/embed', input: '' }],
    ['empty array', { model: 'acme/embed', input: [] }],
    ['objects in input', { model: 'acme/embed', input: [{ text: 'x' }] }],
    ['strings and numbers mixed', { model: 'acme/embed', input: ['x', 1] }],
    ['negative token', { model: 'acme/embed', input: [1, -2] }],
    ['bad encoding_format', { model: 'acme/embed', input: 'x', encoding_format: 'hex' }],
    ['zero dimensions', { model: 'acme/embed', input: 'x', dimensions: 0 }],
  ])('%s → 400 in Russian, nothing forwarded', async (_name, body) => {
    const c = await newCustomer();
    fake.reset();
    const res = await fetch(`${app.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toMatch(/[А-Яа-я]/);
    expect(embeddingRequests()).toHaveLength(0);
  });

  test('a body over the limit → 413', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/embed', input: 'x'.repeat(70_000) }),
    });
    expect(res.status).toBe(413);
  });
});
