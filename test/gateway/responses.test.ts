// The Responses API (POST /v1/responses, plain and streamed; GET and DELETE /v1/responses/{id}) driven by
// the official OpenAI SDK against the fake upstream: forwarding, exact billing, client-close billing,
// ownership of response ids, and an upstream without the endpoint.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { expectedResponseText, expectedResponseUsage, FAKE_REPLY, type FakeUpstream } from '../fakes/upstream';
import { createResponsesMeter } from '../../src/gateway/responses';
import { call, type TestApp } from '../helpers/app';
import {
  balanceNanoInDb,
  newGatewayCustomer,
  PRICE_NANO,
  setBalanceNano,
  settleAll,
  START_NANO,
  unbalancedUsers,
  usageRows,
  useGatewayApp,
  waitFor,
} from '../helpers/gateway';

setDefaultTimeout(30_000);

const PRICE = PRICE_NANO;
const START = START_NANO;

let fake: FakeUpstream;
let app: TestApp;
useGatewayApp({ env: { BODY_LIMIT_BYTES: '65536' }, ready: (s) => ({ app, fake } = s) });
const newCustomer = () => newGatewayCustomer(app);

const responseRequests = () => fake.requests.filter((r) => r.path.startsWith('/v1/responses'));

async function endpoints(userId: string): Promise<string[]> {
  await app.instance.services.billing.flush();
  const rows = await app.sql<{ endpoint: string }>('select endpoint from usage_records where user_id = $1 order by id', [userId]);
  return rows.map((r) => r.endpoint);
}

async function ownerOf(responseId: string) {
  const rows = await app.sql<{ user_id: string; api_key_id: string | null }>('select user_id, api_key_id from upstream_responses where response_id = $1', [
    responseId,
  ]);
  return rows[0] ?? null;
}

describe('POST /v1/responses', () => {
  test('plain: the SDK gets the response; the body reaches the upstream unchanged; billed at input + output tokens', async () => {
    const c = await newCustomer();
    const params = { model: 'acme/chat', input: 'Привет!', instructions: 'Be brief.', temperature: 0.2, max_output_tokens: 50 };
    const response = await c.client.responses.create(params);
    expect(response.object).toBe('response');
    expect(response.output_text).toBe(expectedResponseText(params));
    const usage = expectedResponseUsage(params);
    expect(response.usage).toEqual({ ...usage, cost: Number(BigInt(usage.total_tokens) * PRICE) / 1e9 } as typeof usage);

    const [sent] = responseRequests();
    expect(sent!.body).toEqual(params);
    expect(sent!.headers.authorization).toBe('Bearer upstream-secret');

    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual(
      expect.objectContaining({
        status: 'ok',
        usage_source: 'upstream',
        prompt_tokens: usage.input_tokens,
        completion_tokens: usage.output_tokens,
        total_tokens: usage.total_tokens,
        stream: false,
        api_key_id: c.keyId,
      }),
    );
    expect(BigInt(rows[0]!.cost_nano as string)).toBe(BigInt(usage.total_tokens) * PRICE);
    expect(await endpoints(c.userId)).toEqual(['responses']);
    expect(await ownerOf(response.id)).toEqual({ user_id: c.userId, api_key_id: c.keyId });
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START - BigInt(usage.total_tokens) * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('an item array input is accepted and forwarded; prompt and completion are billed at their own prices', async () => {
    const c = await newCustomer();
    await app.instance.services.prices.upsert([
      { pattern: 'acme/priced-responses', promptNanoPerMillion: 100_000_000_000n, completionNanoPerMillion: 300_000_000_000n },
    ]);
    try {
      const input = [
        { role: 'system' as const, content: 'Be brief.' },
        { role: 'user' as const, content: [{ type: 'input_text' as const, text: 'Что здесь?' }] },
      ];
      const response = await c.client.responses.create({ model: 'acme/priced-responses', input, max_output_tokens: 5 });
      expect(response.output_text).toBe('Echo: Что здесь?');
      const usage = expectedResponseUsage({ input, max_output_tokens: 5 });
      expect(usage.output_tokens).toBe(5);
      expect(responseRequests()[0]!.body.input).toEqual(input);
      const [row] = await usageRows(app, c.userId);
      expect(BigInt(row!.cost_nano as string)).toBe(BigInt(usage.input_tokens) * 100_000n + BigInt(usage.output_tokens) * 300_000n);
    } finally {
      await app.instance.services.prices.remove('acme/priced-responses');
    }
  });

  test('streamed: the SDK reads the real event sequence; billed from response.completed; the id is recorded', async () => {
    const c = await newCustomer();
    fake.pieceDelayMs = 40;
    const stream = await c.client.responses.create({ model: 'acme/chat', input: 'Привет!', stream: true });
    const types: string[] = [];
    const arrivals: number[] = [];
    let text = '';
    let completed: OpenAI.Responses.Response | null = null;
    let createdId: string | null = null;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.created') createdId = event.response.id;
      if (event.type === 'response.output_text.delta') {
        text += event.delta;
        arrivals.push(performance.now());
      }
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).toBe(FAKE_REPLY);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    // Seven deltas 40 ms apart: had the gateway buffered the stream, they would arrive together.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(150);
    const usage = expectedResponseUsage({ input: 'Привет!' });
    // Conduit adds what the call cost (see test/gateway/answer-cost.test.ts).
    expect(completed!.usage).toEqual({ ...usage, cost: Number(BigInt(usage.total_tokens) * PRICE) / 1e9 } as typeof usage);
    // What the client read is exactly what the upstream sent.
    await waitFor(() => fake.streams.length === 1);

    const [row] = await usageRows(app, c.userId);
    expect(row).toEqual(expect.objectContaining({ status: 'ok', usage_source: 'upstream', stream: true, total_tokens: usage.total_tokens }));
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(usage.total_tokens) * PRICE);
    expect(await endpoints(c.userId)).toEqual(['responses']);
    expect(createdId).toBe(completed!.id);
    expect(await ownerOf(createdId!)).toEqual({ user_id: c.userId, api_key_id: c.keyId });
  });

  test('the stream’s bytes reach the client unchanged', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', input: 'x', stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    await waitFor(() => fake.streams.length === 1);
    // Byte for byte, but for the cost Conduit adds to the final event's usage.
    const usage = expectedResponseUsage({ input: 'x' });
    const cost = Number(BigInt(usage.total_tokens) * PRICE) / 1e9;
    expect(text).toBe(fake.streams[0]!.replace('"usage":{', `"usage":{"cost":${cost},`));
    expect(text).toContain('event: response.output_text.delta\ndata: {"type":"response.output_text.delta"');
    expect(text).toContain('"sequence_number":0');
  });

  test('without usage, plain and streamed answers are billed by counting with the tokenizer', async () => {
    const c = await newCustomer();
    await c.client.responses.create({ model: 'fake/no-usage', input: 'Привет!' });
    const stream = await c.client.responses.create({ model: 'fake/no-usage', input: 'Привет!', stream: true });
    for await (const _ of stream) void _;
    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.usage_source).toBe('tokenizer');
      expect(row.prompt_tokens).toBeGreaterThan(0);
      expect(row.completion_tokens).toBeGreaterThanOrEqual(3);
      expect(BigInt(row.cost_nano as string)).toBe(BigInt(row.total_tokens) * PRICE);
    }
  });

  test('a stream the client closes stops the upstream at once and is billed for what was streamed', async () => {
    const c = await newCustomer();
    const stream = await c.client.responses.create({ model: 'fake/slow-stream', input: 'Привет!', stream: true });
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') deltas += 1;
      if (deltas === 3) break; // the SDK aborts the request on break
    }
    const closedAt = performance.now();
    await waitFor(() => fake.aborted.includes('fake/slow-stream'), 2000);
    expect(performance.now() - closedAt).toBeLessThan(1000);
    await waitFor(async () => (await usageRows(app, c.userId)).length === 1);
    const [row] = await usageRows(app, c.userId);
    expect(row!.status).toBe('client_closed');
    expect(row!.usage_source).toBe('tokenizer');
    expect(row!.completion_tokens).toBeGreaterThan(0);
    expect(row!.completion_tokens).toBeLessThan(20); // 100 deltas were on offer
    expect(BigInt(row!.cost_nano as string)).toBe(BigInt(row!.total_tokens) * PRICE);
    await settleAll(app);
    expect(await balanceNanoInDb(app, c.userId)).toBe(START - BigInt(row!.total_tokens) * PRICE);
  });

  test('an upstream that breaks mid-stream: the client gets what came and an error; that much is billed', async () => {
    const c = await newCustomer();
    const stream = await c.client.responses.create({ model: 'fake/drop', input: 'x', stream: true });
    let text = '';
    let failure: unknown;
    try {
      for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    } catch (error) {
      failure = error;
    }
    expect(text).toBe('Hello');
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const [row] = await usageRows(app, c.userId);
    expect(row).toEqual(expect.objectContaining({ status: 'upstream_dropped', usage_source: 'tokenizer' }));
    expect(row!.completion_tokens).toBeGreaterThan(0);
  });

  test('a stream still running when the shutdown grace period ends gets an error event and is billed', async () => {
    const c = await newCustomer();
    const before = app.instance.services.chat.openStreams;
    const stream = await c.client.responses.create({ model: 'fake/slow-stream', input: 'x', stream: true });
    let deltas = 0;
    let failure: unknown;
    try {
      for await (const event of stream) {
        if (event.type !== 'response.output_text.delta') continue;
        deltas += 1;
        if (deltas === 2) {
          // Counted with chat's streams, and ended with them by the server's shutdown.
          expect(app.instance.services.chat.openStreams).toBe(before + 1);
          app.instance.services.chat.endStreams();
        }
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(app.instance.services.chat.openStreams).toBe(before);
    const [row] = await usageRows(app, c.userId);
    expect(row).toEqual(expect.objectContaining({ status: 'server_shutdown' }));
    expect(row!.completion_tokens).toBeGreaterThan(0);
    await waitFor(() => fake.aborted.includes('fake/slow-stream'), 2000);
  });

  test('a reservation the balance can never cover → 402 before the upstream is asked', async () => {
    const c = await newCustomer();
    await setBalanceNano(app, c.userId, 1000n);
    fake.reset();
    const e = await c.client.responses.create({ model: 'acme/chat', input: 'x', max_output_tokens: 100 }).catch((x) => x);
    expect(e.status).toBe(402);
    expect(e.error.type).toBe('insufficient_balance');
    expect(responseRequests()).toHaveLength(0);
  });

  test('an upstream without the Responses API: its 404 passes through, nothing is charged', async () => {
    const c = await newCustomer();
    fake.responsesMissing = true;
    const e = await c.client.responses.create({ model: 'acme/chat', input: 'x' }).catch((x) => x);
    expect(e).toBeInstanceOf(OpenAI.APIError);
    expect(e.status).toBe(404);
    expect(e.message).toContain('Invalid URL');
    const [row] = await usageRows(app, c.userId);
    expect(row).toEqual(expect.objectContaining({ status: 'upstream_rejected', upstream_status: 404 }));
    expect(BigInt(row!.cost_nano as string)).toBe(0n);
    expect((await call(app.url, 'GET', '/api/balance', { token: c.token })).body.balance).toBe(3);
  });

  test('an upstream 5xx → 502 upstream_error', async () => {
    const c = await newCustomer();
    const e = await c.client.responses.create({ model: 'fake/error-500', input: 'x' }).catch((x) => x);
    expect(e.status).toBe(502);
    expect(e.error.type).toBe('upstream_error');
  });

  test.each([
    ['no model', { input: 'x' }],
    ['no slash in model', { model: 'gpt-4o', input: 'x' }],
    ['numeric input', { model: 'acme/chat', input: 5 }],
    ['strings in an item array', { model: 'acme/chat', input: ['x'] }],
    ['zero max_output_tokens', { model: 'acme/chat', input: 'x', max_output_tokens: 0 }],
    ['stream not a boolean', { model: 'acme/chat', input: 'x', stream: 'yes' }],
  ])('%s → 400 in Russian, nothing forwarded', async (_name, body) => {
    const c = await newCustomer();
    fake.reset();
    const res = await fetch(`${app.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    const json = await res.json();
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message).toMatch(/[А-Яа-я]/);
    expect(responseRequests()).toHaveLength(0);
  });
});

describe('GET and DELETE /v1/responses/{id}', () => {
  test('the owner retrieves and deletes its response through the upstream', async () => {
    const c = await newCustomer();
    const created = await c.client.responses.create({ model: 'acme/chat', input: 'Привет!' });
    const again = await c.client.responses.retrieve(created.id);
    expect(again.id).toBe(created.id);
    expect(again.output_text).toBe(created.output_text);
    await c.client.responses.delete(created.id);
    expect(fake.storedResponses.has(created.id)).toBe(false);
    expect(responseRequests().map((r) => r.method)).toEqual(['POST', 'GET', 'DELETE']);
    // Deleted: now unknown to Conduit as well.
    const gone = await c.client.responses.retrieve(created.id).catch((x) => x);
    expect(gone.status).toBe(404);
    // Retrieval is not billed.
    expect(await endpoints(c.userId)).toEqual(['responses']);
  });

  test('another user’s id is 404 not_found in Conduit’s format, and the upstream is not asked', async () => {
    const owner = await newCustomer();
    const other = await newCustomer();
    const created = await owner.client.responses.create({ model: 'acme/chat', input: 'секрет' });
    fake.reset();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${app.url}/v1/responses/${created.id}`, { method, headers: { authorization: `Bearer ${other.key}` } });
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body.error.type).toBe('not_found');
      expect(body.error.message).toMatch(/[А-Яа-я]/);
    }
    const unknown = await other.client.responses.retrieve('resp_unknown').catch((x) => x);
    expect(unknown.status).toBe(404);
    expect(responseRequests()).toHaveLength(0);
  });

  test('a streamed response’s id is the caller’s to retrieve; the upstream’s own status and body come through', async () => {
    const c = await newCustomer();
    const stream = await c.client.responses.create({ model: 'acme/chat', input: 'x', stream: true });
    let id = '';
    for await (const event of stream) if (event.type === 'response.created') id = event.response.id;
    const found = await c.client.responses.retrieve(id);
    expect(found.status).toBe('completed');
    // Gone upstream but still recorded here: the upstream's 404 is passed on as it is.
    fake.storedResponses.delete(id);
    const res = await fetch(`${app.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${c.key}` } });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toContain('not found');
  });

  test('no key → 401', async () => {
    const res = await fetch(`${app.url}/v1/responses/resp_x`);
    expect(res.status).toBe(401);
  });
});

describe('the Responses stream meter', () => {
  test('reads the id, the deltas and the final usage from bytes split anywhere, with any line ends', async () => {
    const c = await newCustomer();
    const res = await fetch(`${app.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/chat', input: 'Привет', stream: true }),
    });
    const text = await res.text();
    for (const ending of ['\n', '\r\n', '\r']) {
      const bytes = new TextEncoder().encode(text.replaceAll('\n', ending));
      const meter = createResponsesMeter();
      for (let i = 0; i < bytes.length; i += 7) meter.push(bytes.subarray(i, i + 7));
      expect(meter.completionText).toBe(FAKE_REPLY);
      const usage = expectedResponseUsage({ input: 'Привет' });
      // The client's bytes: the final usage carries the cost Conduit added.
      expect(meter.usage).toEqual({ ...usage, cost: Number(BigInt(usage.total_tokens) * PRICE) / 1e9 } as typeof usage);
      expect(meter.responseId).toMatch(/^resp_/);
    }
  });
});
