// Cached and reasoning tokens (issue 45 point 2): a provider's report of prompt tokens read from its cache
// (chat's prompt_tokens_details.cached_tokens, Responses' input_tokens_details.cached_tokens, Anthropic's
// cache_read_input_tokens) and written to it (OpenRouter's cache_write_tokens, Anthropic's
// cache_creation_input_tokens) is billed at the model's cached-input and cache-write prices, exactly to the
// nano-unit and rounded once; reasoning tokens are shown and billed as completion. Each trap new-api fell into
// is a case: cached above the prompt, figures that are not counts, cached + written above the prompt, image and
// audio tokens inside the prompt, reasoning inside the completion, and Anthropic's input_tokens leaving the
// cache out where OpenAI's prompt_tokens holds it. Driven by the official openai and @anthropic-ai/sdk clients.
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import Anthropic from '@anthropic-ai/sdk';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/anthropic';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import { routingHarness } from '../helpers/routing';
import { balanceNanoInDb, openaiClient, settleAll, START_NANO, unbalancedUsers, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const ADMIN = uniqueEmail('cached-admin');
const ANTHROPIC_KEY = 'sk-ant-cache-secret-0001';
const routing = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN }), ADMIN);
let app: TestApp;
let anthropic: FakeAnthropic;

/**
 * The prices of `cache/*` (served by the default openai provider) and `anth/*` (the anthropic provider), per 1M
 * tokens in nano-units: odd on purpose, so no part lands on a whole nano-unit per token and only one rounding
 * of the whole request gives the exact figure. The cache prices are the defaults: prompt × 0.1 and × 1.25, each
 * rounded up to a whole nano-unit per 1M (12 345 678.9 → 12 345 679; 154 320 986.25 → 154 320 987).
 */
const PRICE = { prompt: 123_456_789n, completion: 987_654_321n, cached: 12_345_679n, write: 154_320_987n };

/** What a request costs: each part at its price, summed exactly and rounded up once. */
function costNano(t: { fresh: number; cached?: number; write?: number; completion: number }, p = PRICE): bigint {
  const exact = BigInt(t.fresh) * p.prompt + BigInt(t.cached ?? 0) * p.cached + BigInt(t.write ?? 0) * p.write + BigInt(t.completion) * p.completion;
  return (exact + 999_999n) / 1_000_000n;
}

const MESSAGES = [{ role: 'user' as const, content: 'Привет' }];

beforeAll(async () => {
  app = routing.app;
  anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  const anthropicId = await routing.addProvider(anthropic.url, { apiKey: ANTHROPIC_KEY, protocol: 'anthropic' });
  await routing.setRoute('anth/*', [{ providerId: anthropicId }]);
  for (const pattern of ['cache/*', 'anth/*']) {
    const res = await routing.adminCall('PUT', '/api/admin/prices', { pattern, promptPerMillion: 0.123456789, completionPerMillion: 0.987654321 });
    expect(res.status).toBe(200);
  }
  routing.home.models.push({ id: 'cache/listed', created: 1_700_000_900, owned_by: 'cache' });
  // OpenRouter lists cache prices beside prompt and completion (USD per token).
  routing.home.models.push({
    id: 'cache/imported',
    created: 1_700_000_901,
    owned_by: 'cache',
    pricing: { prompt: '0.000001', completion: '0.000002', input_cache_read: '0.0000001', input_cache_write: '0.00000125' },
  });
});

afterEach(async () => {
  routing.home.reportedUsage.clear();
  anthropic.reset();
  await settleAll(app);
  // Every nano-unit charged is a ledger row.
  expect(await unbalancedUsers(app)).toEqual([]);
});

async function customer() {
  const c = await routing.customer();
  return { ...c, openai: openaiClient(app, c.key), claude: new Anthropic({ baseURL: app.url, apiKey: c.key, maxRetries: 0, timeout: 20_000 }) };
}

/** The user's one usage row: its token counts as numbers and its cost, and the balance it left. */
async function onlyRow(userId: string) {
  const rows = await usageRows(app, userId);
  expect(rows).toHaveLength(1);
  const row = rows[0] as unknown as Record<string, unknown>;
  return {
    prompt: Number(row.prompt_tokens),
    completion: Number(row.completion_tokens),
    cached: Number(row.cached_tokens),
    cacheWrite: Number(row.cache_write_tokens),
    reasoning: Number(row.reasoning_tokens),
    costNano: BigInt(String(row.cost_nano)),
    promptCostNano: BigInt(String(row.prompt_cost_nano)),
    completionCostNano: BigInt(String(row.completion_cost_nano)),
    status: row.status,
  };
}

async function charged(userId: string): Promise<bigint> {
  await settleAll(app);
  return START_NANO - (await balanceNanoInDb(app, userId));
}

describe('chat completions', () => {
  const usage = {
    prompt_tokens: 1000,
    completion_tokens: 200,
    total_tokens: 1200,
    prompt_tokens_details: { cached_tokens: 800, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 150, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const expected = costNano({ fresh: 200, cached: 800, completion: 200 });

  test('an answer: the cached part at the cached price, reasoning shown and billed as completion; the SDK sees the details as sent', async () => {
    routing.home.reportedUsage.set('cache/chat', usage);
    const c = await customer();
    const raw = await c.openai.chat.completions.create({ model: 'cache/chat', messages: MESSAGES }).withResponse();
    // The provider's usage passes unchanged; only its cost is added.
    expect(raw.data.usage as unknown).toEqual({ ...usage, cost: Number(expected) / 1e9 });
    expect(raw.response.headers.get('x-conduit-cost')).toBe((Number(expected) / 1e9).toString());
    const row = await onlyRow(c.userId);
    expect(row).toMatchObject({ prompt: 1000, completion: 200, cached: 800, cacheWrite: 0, reasoning: 150, costNano: expected });
    // The prompt part holds the cached tokens (rounded down), the completion part the rest of the one rounding.
    expect(row.promptCostNano).toBe((200n * PRICE.prompt + 800n * PRICE.cached) / 1_000_000n);
    expect(row.promptCostNano + row.completionCostNano).toBe(expected);
    expect(await charged(c.userId)).toBe(expected);
    // Not what a fresh prompt would have cost.
    expect(expected).toBeLessThan(costNano({ fresh: 1000, completion: 200 }));

    const listed = await call(app.url, 'GET', '/api/usage', { token: c.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data[0]).toMatchObject({ promptTokens: 1000, cachedTokens: 800, cacheWriteTokens: 0, reasoningTokens: 150, completionTokens: 200 });
  });

  test('a stream: the same bill from the usage chunk, which reaches a client that asked for it unchanged', async () => {
    routing.home.reportedUsage.set('cache/stream', usage);
    const c = await customer();
    const stream = await c.openai.chat.completions.create({ model: 'cache/stream', messages: MESSAGES, stream: true, stream_options: { include_usage: true } });
    let last: unknown = null;
    for await (const chunk of stream) if (chunk.usage) last = chunk.usage;
    expect(last).toEqual({ ...usage, cost: Number(expected) / 1e9 });
    expect(await onlyRow(c.userId)).toMatchObject({ cached: 800, reasoning: 150, costNano: expected });
    expect(await charged(c.userId)).toBe(expected);
  });

  test('a stream whose client did not ask for usage is billed the same', async () => {
    routing.home.reportedUsage.set('cache/quiet', usage);
    const c = await customer();
    const stream = await c.openai.chat.completions.create({ model: 'cache/quiet', messages: MESSAGES, stream: true });
    for await (const chunk of stream) expect(chunk.usage ?? null).toBeNull();
    expect(await onlyRow(c.userId)).toMatchObject({ cached: 800, reasoning: 150, costNano: expected });
  });

  test('cache writes reported as OpenRouter does (prompt_tokens_details.cache_write_tokens) cost the cache-write price', async () => {
    routing.home.reportedUsage.set('cache/written', {
      prompt_tokens: 130,
      completion_tokens: 7,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    });
    const c = await customer();
    await c.openai.chat.completions.create({ model: 'cache/written', messages: MESSAGES });
    const want = costNano({ fresh: 10, cached: 100, write: 20, completion: 7 });
    expect(await onlyRow(c.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, costNano: want });
    expect(await charged(c.userId)).toBe(want);
  });
});

describe('the traps', () => {
  async function billedFor(model: string, reported: Record<string, unknown>, stream = false) {
    routing.home.reportedUsage.set(model, reported);
    const c = await customer();
    if (stream) {
      const s = await c.openai.chat.completions.create({ model, messages: MESSAGES, stream: true });
      for await (const _ of s);
    } else {
      await c.openai.chat.completions.create({ model, messages: MESSAGES });
    }
    return { row: await onlyRow(c.userId), charged: await charged(c.userId) };
  }

  test('cached above the prompt is the whole prompt at the cached price: never a negative fresh remainder', async () => {
    for (const stream of [false, true]) {
      const { row, charged } = await billedFor(
        `cache/over-${stream}`,
        { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_tokens_details: { cached_tokens: 500 } },
        stream,
      );
      const want = costNano({ fresh: 0, cached: 100, completion: 10 });
      expect(row).toMatchObject({ prompt: 100, cached: 100, costNano: want });
      expect(row.promptCostNano).toBeGreaterThanOrEqual(0n);
      expect(charged).toBe(want);
    }
  });

  test('figures that are not counts (negative, text, null) claim nothing: the prompt at its full price', async () => {
    const { row, charged } = await billedFor('cache/garbage', {
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: { cached_tokens: -50, cache_write_tokens: '30' },
      completion_tokens_details: { reasoning_tokens: null },
    });
    const want = costNano({ fresh: 100, completion: 10 });
    expect(row).toMatchObject({ cached: 0, cacheWrite: 0, reasoning: 0, costNano: want });
    expect(charged).toBe(want);
  });

  test('cached + written above the prompt: the write is what the prompt has left', async () => {
    const { row, charged } = await billedFor('cache/sum', {
      prompt_tokens: 100,
      completion_tokens: 10,
      total_tokens: 110,
      prompt_tokens_details: { cached_tokens: 80, cache_write_tokens: 50 },
    });
    const want = costNano({ fresh: 0, cached: 80, write: 20, completion: 10 });
    expect(row).toMatchObject({ prompt: 100, cached: 80, cacheWrite: 20, costNano: want });
    expect(charged).toBe(want);
  });

  test('image and audio tokens are inside prompt_tokens: billed once, as prompt', async () => {
    const { row, charged } = await billedFor('cache/image', {
      prompt_tokens: 1000,
      completion_tokens: 5,
      total_tokens: 1005,
      prompt_tokens_details: { cached_tokens: 0, image_tokens: 600, audio_tokens: 100, text_tokens: 300 },
    });
    const want = costNano({ fresh: 1000, completion: 5 });
    expect(row).toMatchObject({ prompt: 1000, cached: 0, costNano: want });
    expect(charged).toBe(want);
  });

  test('reasoning tokens are inside completion_tokens: not added again, and never shown above it', async () => {
    const inside = await billedFor('cache/reasoning', {
      prompt_tokens: 10,
      completion_tokens: 200,
      total_tokens: 210,
      completion_tokens_details: { reasoning_tokens: 150 },
    });
    expect(inside.row).toMatchObject({ completion: 200, reasoning: 150, costNano: costNano({ fresh: 10, completion: 200 }) });
    const above = await billedFor('cache/reasoning-above', {
      prompt_tokens: 10,
      completion_tokens: 20,
      total_tokens: 30,
      completion_tokens_details: { reasoning_tokens: 500 },
    });
    expect(above.row).toMatchObject({ completion: 20, reasoning: 20, costNano: costNano({ fresh: 10, completion: 20 }) });
  });

  test("Anthropic's input_tokens leaves the cache out, OpenAI's prompt_tokens holds it: the same usage is the same bill", async () => {
    // The same real usage: 10 fresh prompt tokens, 100 read from the cache, 20 written to it, 7 generated.
    routing.home.reportedUsage.set('cache/same', {
      prompt_tokens: 130,
      completion_tokens: 7,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    });
    anthropic.reportedUsage.set('anth/same', { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 7 });
    const want = costNano({ fresh: 10, cached: 100, write: 20, completion: 7 });
    const viaOpenai = await customer();
    await viaOpenai.openai.chat.completions.create({ model: 'cache/same', messages: MESSAGES });
    const viaAnthropic = await customer();
    await viaAnthropic.claude.messages.create({ model: 'anth/same', max_tokens: 50, messages: MESSAGES });
    for (const c of [viaOpenai, viaAnthropic]) {
      expect(await onlyRow(c.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, costNano: want });
      expect(await charged(c.userId)).toBe(want);
    }
  });
});

describe('the Responses API', () => {
  const usage = {
    input_tokens: 1000,
    input_tokens_details: { cached_tokens: 600 },
    output_tokens: 80,
    output_tokens_details: { reasoning_tokens: 50 },
    total_tokens: 1080,
  };
  const expected = costNano({ fresh: 400, cached: 600, completion: 80 });

  test('a response and a stream: input_tokens_details.cached_tokens at the cached price, reasoning shown', async () => {
    routing.home.reportedUsage.set('cache/responses', usage);
    const plain = await customer();
    const answer = await plain.openai.responses.create({ model: 'cache/responses', input: 'Привет' });
    expect(answer.usage as unknown).toEqual({ ...usage, cost: Number(expected) / 1e9 });
    expect(await onlyRow(plain.userId)).toMatchObject({ prompt: 1000, cached: 600, reasoning: 50, costNano: expected });
    expect(await charged(plain.userId)).toBe(expected);

    const streamed = await customer();
    const stream = await streamed.openai.responses.create({ model: 'cache/responses', input: 'Привет', stream: true });
    let final: unknown = null;
    for await (const event of stream) if (event.type === 'response.completed') final = event.response.usage;
    expect(final).toEqual({ ...usage, cost: Number(expected) / 1e9 });
    expect(await onlyRow(streamed.userId)).toMatchObject({ prompt: 1000, cached: 600, reasoning: 50, costNano: expected });
    expect(await charged(streamed.userId)).toBe(expected);
  });
});

describe('Anthropic Messages', () => {
  const reported = { input_tokens: 10, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 7 };
  const want = costNano({ fresh: 10, cached: 100, write: 20, completion: 7 });

  test('native, a message and a stream: cache reads and writes at their prices, the usage as the provider sent it', async () => {
    anthropic.reportedUsage.set('anth/native', reported);
    const plain = await customer();
    const answer = await plain.claude.messages.create({ model: 'anth/native', max_tokens: 50, messages: MESSAGES });
    expect(answer.usage as unknown).toEqual(reported);
    expect(await onlyRow(plain.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, costNano: want });

    const streamed = await customer();
    const final = await streamed.claude.messages.stream({ model: 'anth/native', max_tokens: 50, messages: MESSAGES }).finalMessage();
    expect(final.usage).toMatchObject(reported);
    expect(await onlyRow(streamed.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, costNano: want });
    expect(await charged(streamed.userId)).toBe(want);
  });

  test('a chat client served by the anthropic provider: the cache inside prompt_tokens, named in its details, the same bill', async () => {
    anthropic.reportedUsage.set('anth/for-chat', reported);
    const plain = await customer();
    const answer = await plain.openai.chat.completions.create({ model: 'anth/for-chat', messages: MESSAGES });
    expect(answer.usage).toMatchObject({ prompt_tokens: 130, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 } });
    expect(await onlyRow(plain.userId)).toMatchObject({ cached: 100, cacheWrite: 20, costNano: want });

    const streamed = await customer();
    const stream = await streamed.openai.chat.completions.create({ model: 'anth/for-chat', messages: MESSAGES, stream: true });
    for await (const _ of stream);
    expect(await onlyRow(streamed.userId)).toMatchObject({ cached: 100, cacheWrite: 20, costNano: want });
  });

  test('an Anthropic client served by an openai provider: the cache out of input_tokens, reasoning still counted, the same bill', async () => {
    routing.home.reportedUsage.set('cache/for-claude', {
      prompt_tokens: 130,
      completion_tokens: 7,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    const plain = await customer();
    const answer = await plain.claude.messages.create({ model: 'cache/for-claude', max_tokens: 50, messages: MESSAGES });
    expect(answer.usage as unknown).toMatchObject(reported);
    expect(await onlyRow(plain.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, reasoning: 3, costNano: want });

    const streamed = await customer();
    const final = await streamed.claude.messages.stream({ model: 'cache/for-claude', max_tokens: 50, messages: MESSAGES }).finalMessage();
    expect(final.usage).toMatchObject(reported);
    expect(await onlyRow(streamed.userId)).toMatchObject({ prompt: 130, cached: 100, cacheWrite: 20, reasoning: 3, costNano: want });
    expect(await charged(streamed.userId)).toBe(want);
  });
});

describe('the reservation', () => {
  test('a prompt that marks blocks for the cache (cache_control) is reserved at the cache-write price when it is dearer', async () => {
    // A cache write at 1 a token: a prompt written whole would cost more than the 3.00 a new account has.
    const res = await routing.adminCall('PUT', '/api/admin/prices', {
      pattern: 'anth/dear-write',
      promptPerMillion: 0.123456789,
      completionPerMillion: 0.987654321,
      cacheWritePerMillion: 1_000_000,
    });
    expect(res.status).toBe(200);
    const c = await customer();
    const request = { model: 'anth/dear-write', max_tokens: 10, messages: MESSAGES };
    await c.claude.messages.create(request);
    const before = anthropic.requests.length;
    try {
      await c.claude.messages.create({
        ...request,
        system: [{ type: 'text', text: 'Длинная инструкция, которую стоит держать в кэше', cache_control: { type: 'ephemeral' } }],
      });
      throw new Error('the cache-marked request was not refused');
    } catch (error) {
      expect((error as { status?: number }).status).toBe(402);
    }
    // Refused before the provider was asked.
    expect(anthropic.requests.length).toBe(before);
  });
});

describe('prices of their own, the catalog and the export', () => {
  test('a row with its own cache prices charges them; GET /v1/models shows both per token; the console lists and audits them', async () => {
    const own = { pattern: 'cache/own', promptPerMillion: 2, completionPerMillion: 8, cachedPromptPerMillion: 0.5, cacheWritePerMillion: 2.5 };
    const saved = await routing.adminCall('PUT', '/api/admin/prices', own);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject(own);
    const listed = await routing.adminCall('GET', '/api/admin/prices');
    expect(listed.body.prices.find((p: { pattern: string }) => p.pattern === 'cache/own')).toMatchObject(own);
    expect(listed.body.prices.find((p: { pattern: string }) => p.pattern === 'cache/*')).toMatchObject({ cachedPromptPerMillion: null, cacheWritePerMillion: null });
    expect(listed.body.default).toMatchObject({ cacheReadRatio: 0.1, cacheWriteRatio: 1.25 });
    const audit = await routing.adminCall('GET', `/api/admin/audit?targetId=${encodeURIComponent('cache/own')}&limit=10`);
    expect(audit.body.data[0]).toMatchObject({ action: 'price.upsert', after: { cachedPromptPerMillion: '0.5', cacheWritePerMillion: '2.5' } });

    routing.home.reportedUsage.set('cache/own', {
      prompt_tokens: 1000,
      completion_tokens: 100,
      total_tokens: 1100,
      prompt_tokens_details: { cached_tokens: 600, cache_write_tokens: 300 },
    });
    const c = await customer();
    await c.openai.chat.completions.create({ model: 'cache/own', messages: MESSAGES });
    const want = costNano(
      { fresh: 100, cached: 600, write: 300, completion: 100 },
      { prompt: 2_000_000_000n, completion: 8_000_000_000n, cached: 500_000_000n, write: 2_500_000_000n },
    );
    expect(await onlyRow(c.userId)).toMatchObject({ costNano: want });
    expect(await charged(c.userId)).toBe(want);

    const models = await call(app.url, 'GET', '/v1/models');
    const byId = new Map(models.body.data.map((m: { id: string; pricing: unknown }) => [m.id, m.pricing]));
    // `cache/listed` is priced by `cache/*`: its cache prices derived from the prompt price.
    expect(byId.get('cache/listed')).toEqual({
      prompt: '0.000000123456789',
      completion: '0.000000987654321',
      input_cache_read: '0.000000012345679',
      input_cache_write: '0.000000154320987',
    });

    // Written again without them, the row derives them again.
    const reset = await routing.adminCall('PUT', '/api/admin/prices', { pattern: 'cache/own', promptPerMillion: 2, completionPerMillion: 8 });
    expect(reset.body).toMatchObject({ cachedPromptPerMillion: null, cacheWritePerMillion: null });
    const bad = await routing.adminCall('PUT', '/api/admin/prices', { ...own, cachedPromptPerMillion: -1 });
    expect(bad.status).toBe(400);
  });

  test("the provider's cost of a request prices its cache reads and writes the same way, at the route's cost price", async () => {
    const res = await routing.adminCall('PUT', '/api/admin/routes', {
      pattern: 'cache/routed',
      targets: [{ providerId: 'default', costPrice: { promptPerMillion: 1, completionPerMillion: 2 } }],
    });
    expect(res.status).toBe(200);
    routing.home.reportedUsage.set('cache/routed', {
      prompt_tokens: 1000,
      completion_tokens: 10,
      total_tokens: 1010,
      prompt_tokens_details: { cached_tokens: 700, cache_write_tokens: 200 },
    });
    const c = await customer();
    await c.openai.chat.completions.create({ model: 'cache/routed', messages: MESSAGES });
    const [row] = await usageRows(app, c.userId);
    // 100 fresh × 1 + 700 × 0.1 + 200 × 1.25 + 10 × 2 per 1M.
    expect(BigInt(String((row as unknown as Record<string, unknown>).provider_cost_nano))).toBe(
      costNano(
        { fresh: 100, cached: 700, write: 200, completion: 10 },
        { prompt: 1_000_000_000n, completion: 2_000_000_000n, cached: 100_000_000n, write: 1_250_000_000n },
      ),
    );
  });

  test("the price import takes the provider's cache prices with the same multiplier", async () => {
    const res = await routing.adminCall('POST', '/api/admin/prices/import', { multiplier: 2, models: ['cache/imported'] });
    expect(res.status).toBe(200);
    const listed = await routing.adminCall('GET', '/api/admin/prices');
    expect(listed.body.prices.find((p: { pattern: string }) => p.pattern === 'cache/imported')).toMatchObject({
      promptPerMillion: 2,
      completionPerMillion: 4,
      cachedPromptPerMillion: 0.2,
      cacheWritePerMillion: 2.5,
    });
  });

  test('the usage export has the cached, cache-write and reasoning columns', async () => {
    routing.home.reportedUsage.set('cache/export', {
      prompt_tokens: 130,
      completion_tokens: 50,
      total_tokens: 180,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
      completion_tokens_details: { reasoning_tokens: 30 },
    });
    const c = await customer();
    await c.openai.chat.completions.create({ model: 'cache/export', messages: MESSAGES });
    await settleAll(app);
    const res = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${c.token}` } });
    expect(res.status).toBe(200);
    const [header, line] = (await res.text()).trim().split('\r\n');
    const columns = header!.split(',');
    const cells = line!.split(',');
    const cell = (name: string) => cells[columns.indexOf(name)];
    expect(cell('prompt_tokens')).toBe('130');
    expect(cell('cached_tokens')).toBe('100');
    expect(cell('cache_write_tokens')).toBe('20');
    expect(cell('reasoning_tokens')).toBe('30');
    expect(cell('cost')).toBe((Number(costNano({ fresh: 10, cached: 100, write: 20, completion: 50 })) / 1e9).toFixed(9));
  });
});
