// Anthropic's Messages API on /v1/messages, driven by the official @anthropic-ai/sdk: served by an openai
// provider (the request and the answer translated, streams included) and by an anthropic provider (the
// client's own body and anthropic-* headers passed through, with the provider's key), tool calls and their
// arguments intact both ways, errors in Anthropic's shape, count_tokens; chat clients served by an anthropic
// provider; billing and usage rows as for chat; a route mixing both kinds failing over; idempotent replays.
import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import Anthropic from '@anthropic-ai/sdk';
import { CACHE_READ, CACHE_WRITTEN, PIECES as ANTHROPIC_PIECES, startFakeAnthropic, TOOL_INPUT, TOOL_INPUT_PIECES, type FakeAnthropic } from '../fakes/anthropic';
import { PIECES, TOOL_CALL } from '../fakes/upstream';
import { call, uniqueEmail, type TestApp } from '../helpers/app';
import recorded from '../fakes/claude-code-request.json';
import { chatCalls, routingHarness } from '../helpers/routing';
import { openaiClient, PRICE_NANO, setBalanceNano, usageRows } from '../helpers/gateway';

setDefaultTimeout(30_000);

const ADMIN = uniqueEmail('messages-admin');
const ANTHROPIC_KEY = 'sk-ant-provider-secret-0001';
const routing = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN }), ADMIN);
let app: TestApp;
let anthropic: FakeAnthropic;
let anthropicId = '';

/** Sampling settings the Messages API takes and this SDK's types no longer list. */
const SAMPLING = { temperature: 0.5 } as object;

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Погода в городе',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

beforeAll(async () => {
  app = routing.app;
  anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
  anthropicId = await routing.addProvider(anthropic.url, { apiKey: ANTHROPIC_KEY, protocol: 'anthropic' });
  // Models the anthropic provider serves under the client's own id (so its body passes untouched).
  for (const model of [
    'anth/chat',
    'fake/tool-use',
    'fake/cached',
    'fake/stop-sequence',
    'fake/error-529',
    'fake/stream-error',
    'fake/stream-error-echo',
    'fake/no-usage',
  ]) {
    await routing.setRoute(model, [{ providerId: anthropicId }]);
  }
});
afterEach(() => {
  anthropic.reset();
  routing.home.outage = null;
});

function anthropicClient(key: string) {
  return new Anthropic({ baseURL: app.url, apiKey: key, maxRetries: 0, timeout: 20_000 });
}

async function customer() {
  const c = await routing.customer();
  return { ...c, claude: anthropicClient(c.key) };
}

const messagesCalls = () => anthropic.requests.filter((r) => r.path === '/v1/messages');

describe('an Anthropic client served by an openai provider', () => {
  test('a message: the system prompt and the text become chat messages, the answer a Messages answer with its usage', async () => {
    const { claude } = await customer();
    const raw = await claude.messages
      .create({
        model: 'acme/chat',
        max_tokens: 100,
        system: 'Отвечай кратко',
        messages: [{ role: 'user', content: 'Привет' }],
        metadata: { user_id: 'u-1' },
        ...SAMPLING,
      })
      .withResponse();
    const answer = raw.data;
    expect(answer.type).toBe('message');
    expect(answer.role).toBe('assistant');
    expect(answer.id).toMatch(/^msg_/);
    expect(answer.content as unknown[]).toEqual([{ type: 'text', text: 'Echo: Привет' }]);
    expect(answer.stop_reason).toBe('end_turn');
    // The fake reports 10 + 2 per message (system and user) and 7 completion tokens.
    expect(answer.usage).toMatchObject({ input_tokens: 14, output_tokens: 7 });
    expect(raw.response.headers.get('request-id')).toBeTruthy();
    const [sent] = chatCalls(routing.home).slice(-1);
    expect(sent!.body).toMatchObject({
      model: 'acme/chat',
      max_tokens: 100,
      temperature: 0.5,
      user: 'u-1',
      messages: [
        { role: 'system', content: 'Отвечай кратко' },
        { role: 'user', content: 'Привет' },
      ],
    });
  });

  test('a stream comes in Anthropic’s event order and adds up to the answer and its usage', async () => {
    const { claude } = await customer();
    const stream = claude.messages.stream({ model: 'acme/chat', max_tokens: 100, messages: [{ role: 'user', content: 'Привет' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.content as unknown[]).toEqual([{ type: 'text', text: PIECES.join('') }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 12, output_tokens: 7 });
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(types.filter((t) => t === 'content_block_delta')).toHaveLength(PIECES.length);
    // The chat stream was asked for its usage: billing reads it.
    expect(chatCalls(routing.home).at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  test('the raw stream has ping after message_start', async () => {
    const { key } = await customer();
    const res = await fetch(`${app.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'acme/chat', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Привет' }] }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text()).split('\n').filter((l) => l.startsWith('event: '));
    expect(events.slice(0, 3)).toEqual(['event: message_start', 'event: ping', 'event: content_block_start']);
    expect(events.at(-1)).toBe('event: message_stop');
  });

  test('tools: the model’s tool call comes back as tool_use with its input, plain and streamed, and tool_choice any is required', async () => {
    const { claude } = await customer();
    const request = {
      model: 'fake/tool-call',
      max_tokens: 200,
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'any' as const, disable_parallel_tool_use: true },
      messages: [{ role: 'user' as const, content: 'Погода в Париже?' }],
    };
    const plain = await claude.messages.create(request);
    expect(plain.stop_reason).toBe('tool_use');
    const use = plain.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: TOOL_CALL.name, input: JSON.parse(TOOL_CALL.arguments) });
    expect(chatCalls(routing.home).at(-1)!.body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Погода в городе', parameters: WEATHER_TOOL.input_schema } }],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });

    const stream = claude.messages.stream({ ...request });
    const pieces: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') pieces.push(event.delta.partial_json);
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: TOOL_CALL.name, input: JSON.parse(TOOL_CALL.arguments) });
    expect(pieces.join('')).toBe(TOOL_CALL.arguments);
    expect(pieces.length).toBeGreaterThan(1);
  });

  test('a tool round trip: tool_use and tool_result blocks reach the chat provider as tool_calls and tool messages', async () => {
    const { claude } = await customer();
    const answer = await claude.messages.create({
      model: 'acme/chat',
      max_tokens: 100,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Погода в Париже и Риме?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Смотрю.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris', nested: { a: [1, 'два'] } } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '+18 °C' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'нет данных' }], is_error: true },
            { type: 'text', text: 'Что скажешь?' },
          ],
        },
      ],
    });
    expect(answer.content[0] as unknown).toEqual({ type: 'text', text: 'Echo: Что скажешь?' });
    const sent = chatCalls(routing.home).at(-1)!.body;
    expect(sent.messages).toEqual([
      { role: 'user', content: 'Погода в Париже и Риме?' },
      {
        role: 'assistant',
        content: 'Смотрю.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: expect.any(String) } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: '+18 °C' },
      { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: нет данных' },
      { role: 'user', content: 'Что скажешь?' },
    ]);
    expect(JSON.parse(sent.messages[1].tool_calls[0].function.arguments)).toEqual({ city: 'Paris', nested: { a: [1, 'два'] } });
  });

  test('an image block reaches the chat provider as a data: URL, a url image as its URL; stop_sequences as stop', async () => {
    const { claude } = await customer();
    await claude.messages.create({
      model: 'acme/chat',
      max_tokens: 100,
      stop_sequences: ['\n\nHuman:', 'КОНЕЦ'],
      ...({ top_p: 0.9 } as object),
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'text', text: 'Что на картинках?' },
          ],
        },
      ],
    });
    const sent = chatCalls(routing.home).at(-1)!.body;
    expect(sent.messages[0].content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      { type: 'text', text: 'Что на картинках?' },
    ]);
    expect(sent.stop).toEqual(['\n\nHuman:', 'КОНЕЦ']);
    expect(sent.top_p).toBe(0.9);
  });
});

describe('an Anthropic client served by an anthropic provider', () => {
  test('pass-through: the provider gets the client’s exact body and anthropic-* headers, with its own key instead of the client’s', async () => {
    const { key } = await customer();
    const text = '{"model":"anth/chat",  "max_tokens":64,"messages":[{"role":"user","content":"Привет"}],"thinking":{"type":"disabled"},"top_k":5}';
    const res = await fetch(`${app.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
      },
      body: text,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as Record<string, any>;
    expect(answer).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Echo: Привет' }], usage: { input_tokens: 12, output_tokens: 7 } });
    expect(res.headers.get('request-id')).toBeTruthy();
    expect(res.headers.get('x-conduit-cost')).toBe('0.000002375');
    const [sent] = messagesCalls();
    expect(sent!.text).toBe(text);
    expect(sent!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(sent!.headers.authorization).toBeUndefined();
    expect(sent!.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent!.headers['anthropic-beta']).toBe('claude-code-20250219,interleaved-thinking-2025-05-14');
    expect(JSON.stringify(sent!.headers)).not.toContain(key);
  });

  test('a streamed tool call passes through: the SDK assembles the tool input from its input_json_delta pieces', async () => {
    const { claude } = await customer();
    const stream = claude.messages.stream({ model: 'fake/tool-use', max_tokens: 200, tools: [WEATHER_TOOL], messages: [{ role: 'user', content: 'Погода?' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe('tool_use');
    expect(final.content as unknown[]).toEqual([
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: TOOL_INPUT },
    ]);
    // (The SDK hands no ping to its listeners.)
    expect(types.slice(0, 2)).toEqual(['message_start', 'content_block_start']);
    expect(types.at(-1)).toBe('message_stop');
    // The SDK's own API version reaches the provider.
    expect(messagesCalls()[0]!.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('stop_sequence comes back as the provider said it', async () => {
    const { claude } = await customer();
    const answer = await claude.messages.create({
      model: 'fake/stop-sequence',
      max_tokens: 64,
      stop_sequences: ['КОНЕЦ'],
      messages: [{ role: 'user', content: 'Считай' }],
    });
    expect(answer.stop_reason).toBe('stop_sequence');
    expect(answer.stop_sequence).toBe('КОНЕЦ');
  });

  test('an error event mid-stream reaches the client', async () => {
    const { claude } = await customer();
    const stream = claude.messages.stream({ model: 'fake/stream-error', max_tokens: 64, messages: [{ role: 'user', content: 'Привет' }] });
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(String(error)).toMatch(/Overloaded|overloaded/);
  });

  test('an error event quoting the provider’s key reaches the client without it, even when the key came cut across two chunks', async () => {
    const { key } = await customer();
    const res = await fetch(`${app.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/stream-error-echo', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Привет' }] }),
    });
    const text = await res.text();
    expect(text).toContain('event: error');
    expect(text).toContain('Overloaded; your key [redacted] was seen');
    expect(text).not.toContain(ANTHROPIC_KEY);
    expect(text).not.toContain(ANTHROPIC_KEY.slice(0, ANTHROPIC_KEY.length / 2));
  });
});

describe('errors in Anthropic’s shape', () => {
  test('a body without max_tokens: 400 invalid_request_error with a Russian message', async () => {
    const { key } = await customer();
    const res = await call(app.url, 'POST', '/v1/messages', {
      headers: { 'x-api-key': key },
      body: { model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('error');
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toContain('max_tokens');
    expect(res.headers.get('request-id')).toBeTruthy();
  });

  test('a wrong key, by x-api-key and by Bearer: 401 authentication_error', async () => {
    const bad = anthropicClient('cdt-not-a-key');
    const error = await bad.messages.create({ model: 'acme/chat', max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const bearer = await call(app.url, 'POST', '/v1/messages', {
      token: 'cdt-not-a-key',
      body: { model: 'acme/chat', max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] },
    });
    expect(bearer.status).toBe(401);
    expect(bearer.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  test('a Bearer key works as x-api-key does', async () => {
    const { key } = await customer();
    const res = await call(app.url, 'POST', '/v1/messages', {
      token: key,
      body: { model: 'acme/chat', max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.content[0].text).toBe('Echo: Привет');
  });

  test('no balance: 402 billing_error', async () => {
    const c = await customer();
    await setBalanceNano(app, c.userId, 0n);
    const error = await c.claude.messages.create({ model: 'acme/chat', max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e);
    expect(error.status).toBe(402);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'billing_error' } });
  });

  test('a provider’s 529 passes as 529 overloaded_error; its 429 as rate_limit_error', async () => {
    const { claude } = await customer();
    const error = await claude.messages.create({ model: 'fake/error-529', max_tokens: 10, messages: [{ role: 'user', content: 'Привет' }] }).catch((e) => e);
    expect(error.status).toBe(529);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});

test('count_tokens answers an estimate of the prompt, tools included, and charges nothing', async () => {
  const c = await customer();
  const small = await c.claude.messages.countTokens({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] });
  const large = await c.claude.messages.countTokens({
    model: 'acme/chat',
    system: 'Ты помощник. '.repeat(50),
    tools: [WEATHER_TOOL],
    messages: [{ role: 'user', content: 'Привет' }],
  });
  expect(small.input_tokens).toBeGreaterThan(0);
  expect(large.input_tokens).toBeGreaterThan(small.input_tokens + 50);
  expect(await usageRows(app, c.userId)).toHaveLength(0);
  const beta = await call(app.url, 'POST', '/v1/messages/count_tokens?beta=true', {
    headers: { 'x-api-key': c.key },
    body: { model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] },
  });
  expect(beta.status).toBe(200);
  expect(beta.body.input_tokens).toBe(small.input_tokens);
});

describe('a chat client served by an anthropic provider', () => {
  test('a completion: the request goes as a Messages request with the reserved cap, the answer comes back as chat', async () => {
    const c = await routing.customer();
    const client = openaiClient(app, c.key);
    const answer = await client.chat.completions.create({
      model: 'anth/chat',
      messages: [
        { role: 'system', content: 'Кратко' },
        { role: 'user', content: 'Привет' },
      ],
      stop: 'КОНЕЦ',
    });
    expect(answer.choices[0]!.message.content).toBe('Echo: Привет');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    const [sent] = messagesCalls();
    expect(sent!.body).toMatchObject({
      model: 'anth/chat',
      system: 'Кратко',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Привет' }] }],
      stop_sequences: ['КОНЕЦ'],
    });
    expect(sent!.body.max_tokens).toBeGreaterThan(0);
    expect(sent!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
  });

  test('a streamed tool call: tool_calls deltas with the arguments in pieces, finish_reason tool_calls, usage when asked', async () => {
    const c = await routing.customer();
    const client = openaiClient(app, c.key);
    const stream = await client.chat.completions.create({
      model: 'fake/tool-use',
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_TOOL.input_schema } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [{ role: 'user', content: 'Погода?' }],
    });
    let content = '';
    let args = '';
    let argPieces = 0;
    let finish: string | null = null;
    let usage: unknown = null;
    let id = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta;
      content += delta?.content ?? '';
      for (const call of delta?.tool_calls ?? []) {
        expect(call.index).toBe(0);
        if (call.id) id = call.id;
        if (call.function?.arguments) {
          args += call.function.arguments;
          argPieces += 1;
        }
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(content).toBe('Let me check.');
    expect(id).toBe('toolu_01A');
    expect(args).toBe(TOOL_INPUT_PIECES.join(''));
    expect(argPieces).toBe(TOOL_INPUT_PIECES.length);
    expect(JSON.parse(args)).toEqual(TOOL_INPUT);
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });
    expect(messagesCalls()[0]!.body).toMatchObject({
      stream: true,
      tools: [{ name: 'get_weather', input_schema: WEATHER_TOOL.input_schema }],
      tool_choice: { type: 'tool', name: 'get_weather' },
    });
  });

  test('a tool round trip: tool_calls and tool messages reach the provider as tool_use and tool_result blocks', async () => {
    const c = await routing.customer();
    const client = openaiClient(app, c.key);
    const answer = await client.chat.completions.create({
      model: 'anth/chat',
      messages: [
        { role: 'user', content: 'Погода?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '+18' },
      ],
    });
    expect(answer.choices[0]!.message.content).toBe('Tool said: +18');
    expect(messagesCalls()[0]!.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Погода?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '+18' }] },
    ]);
  });
});

describe('billing and usage rows', () => {
  test('a message is billed as chat is for the same tokens, recorded as endpoint messages (the usage list and export filter by it); cache tokens count once each', async () => {
    const c = await customer();
    await c.claude.messages.create({ model: 'acme/chat', max_tokens: 50, messages: [{ role: 'user', content: 'Привет' }] });
    await c.claude.messages.create({ model: 'fake/cached', max_tokens: 50, messages: [{ role: 'user', content: 'Привет' }] });
    const stream = c.claude.messages.stream({ model: 'anth/chat', max_tokens: 50, messages: [{ role: 'user', content: 'Привет' }] });
    await stream.finalMessage();
    const rows = await usageRows(app, c.userId);
    expect(rows).toHaveLength(3);
    for (const row of rows) expect((row as unknown as { endpoint: string }).endpoint).toBe('messages');
    expect(rows[0]).toMatchObject({ status: 'ok', prompt_tokens: 12, completion_tokens: 7, usage_source: 'upstream', stream: false });
    expect(BigInt(rows[0]!.cost_nano as string)).toBe(19n * PRICE_NANO);
    expect(rows[1]).toMatchObject({ prompt_tokens: 12 + CACHE_READ + CACHE_WRITTEN, completion_tokens: 7 });
    // The cache read at 0.1 of the prompt price, the cache write at 1.25 (issue 45: test/gateway/cached-tokens.test.ts).
    expect(BigInt(rows[1]!.cost_nano as string)).toBe(
      (12n * PRICE_NANO * 1_000_000n + BigInt(CACHE_READ) * 12_500_000n + BigInt(CACHE_WRITTEN) * 156_250_000n + 7n * PRICE_NANO * 1_000_000n) / 1_000_000n,
    );
    expect(rows[2]).toMatchObject({ status: 'ok', prompt_tokens: 12, completion_tokens: ANTHROPIC_PIECES.length, stream: true });
    // The usage list and its export filter by it.
    const listed = await call(app.url, 'GET', '/api/usage?endpoint=messages', { token: c.token });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { endpoint: string }) => r.endpoint)).toEqual(['messages', 'messages', 'messages']);
    const csv = await fetch(`${app.url}/api/usage/export?endpoint=messages`, { headers: { authorization: `Bearer ${c.token}` } });
    expect(csv.status).toBe(200);
    expect((await csv.text()).trim().split('\n')).toHaveLength(4);
  });

  test('the cached tokens reach a chat client inside prompt_tokens', async () => {
    const c = await routing.customer();
    const answer = await openaiClient(app, c.key).chat.completions.create({ model: 'fake/cached', messages: [{ role: 'user', content: 'Привет' }] });
    expect(answer.usage).toMatchObject({ prompt_tokens: 12 + CACHE_READ + CACHE_WRITTEN, prompt_tokens_details: { cached_tokens: CACHE_READ } });
  });
});

describe('a route mixing an anthropic and an openai provider', () => {
  test('fails over both ways with no client error, for both client protocols', async () => {
    await routing.setRoute('mix/chat', [
      { providerId: anthropicId, priority: 0 },
      { providerId: 'default', priority: 1 },
    ]);
    const c = await customer();
    const chat = openaiClient(app, c.key);
    anthropic.outage = 503;
    const viaOpenAi = await c.claude.messages.create({ model: 'mix/chat', max_tokens: 20, messages: [{ role: 'user', content: 'Привет' }] });
    expect(viaOpenAi.content as unknown[]).toEqual([{ type: 'text', text: 'Echo: Привет' }]);
    const chatViaOpenAi = await chat.chat.completions.create({ model: 'mix/chat', messages: [{ role: 'user', content: 'Привет' }] });
    expect(chatViaOpenAi.choices[0]!.message.content).toBe('Echo: Привет');
    expect(messagesCalls().length).toBeGreaterThanOrEqual(1);

    anthropic.outage = null;
    await routing.setRoute('mix/chat', [
      { providerId: 'default', priority: 0 },
      { providerId: anthropicId, priority: 1 },
    ]);
    routing.home.outage = 503;
    const before = messagesCalls().length;
    const stream = c.claude.messages.stream({ model: 'mix/chat', max_tokens: 20, messages: [{ role: 'user', content: 'Привет' }] });
    expect((await stream.finalMessage()).content as unknown[]).toEqual([{ type: 'text', text: 'Echo: Привет' }]);
    const chatViaAnthropic = await chat.chat.completions.create({ model: 'mix/chat', messages: [{ role: 'user', content: 'Привет' }] });
    expect(chatViaAnthropic.choices[0]!.message.content).toBe('Echo: Привет');
    expect(messagesCalls().length).toBe(before + 2);
    const rows = await usageRows(app, c.userId);
    expect(rows.filter((r) => r.status === 'ok')).toHaveLength(4);
  });
});

test('an Idempotency-Key replays a message without a second upstream call or charge; a client without anthropic-version is sent 2023-06-01', async () => {
  const c = await customer();
  const ask = () =>
    call(app.url, 'POST', '/v1/messages', {
      headers: { 'x-api-key': c.key, 'idempotency-key': `msg-${c.userId}` },
      body: { model: 'anth/chat', max_tokens: 20, messages: [{ role: 'user', content: 'Привет' }] },
    });
  const first = await ask();
  const second = await ask();
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  expect(second.text).toBe(first.text);
  expect(messagesCalls()).toHaveLength(1);
  expect(await usageRows(app, c.userId)).toHaveLength(1);
  // The client named no API version: the provider gets 2023-06-01.
  expect(messagesCalls()[0]!.headers['anthropic-version']).toBe('2023-06-01');
});

/** The recorded request, its blocks read loosely. */
const claudeCode = recorded as unknown as { path: string; headers: Record<string, string>; body: { messages: { content: any[] }[] } & Record<string, unknown> };

describe('what Claude Code sends (test/fakes/claude-code-request.json, recorded from Claude Code 2.1.197)', () => {
  /** The recorded request's headers with this customer's key, as Claude Code would send them to Conduit. */
  const recordedHeaders = (key: string) => {
    const { host: _host, 'content-length': _length, 'x-api-key': _key, 'accept-encoding': _encoding, ...rest } = claudeCode.headers;
    return { ...rest, 'x-api-key': key };
  };
  const send = (key: string, model: string) =>
    fetch(`${app.url}${claudeCode.path}`, { method: 'POST', headers: recordedHeaders(key), body: JSON.stringify({ ...claudeCode.body, model }) });

  test('HEAD / answers, whatever its status, without a server error', async () => {
    const res = await fetch(`${app.url}/`, { method: 'HEAD' });
    expect(res.status).toBeLessThan(500);
  });

  test('through an openai provider: 24 tools, a system message mid-conversation, the tool round trip — a complete stream', async () => {
    const { key } = await customer();
    const res = await send(key, 'acme/chat');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toStartWith('event: message_start');
    expect(text.trim().split('\n').at(-1)).toBe('data: {"type":"message_stop"}');
    const sent = chatCalls(routing.home).at(-1)!.body;
    expect(sent.tools).toHaveLength(24);
    expect(sent.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool']);
    expect(sent.messages[3].tool_calls[0].function).toEqual({ name: 'Read', arguments: JSON.stringify(claudeCode.body.messages[2]!.content[0]!.input) });
    expect(sent.messages[4].content).toBe(claudeCode.body.messages[3]!.content[0]!.content);
    // Fields chat has no place for are left out.
    for (const field of ['thinking', 'context_management', 'output_config', 'metadata']) expect(sent[field]).toBeUndefined();
  });

  test('through an anthropic provider: its exact body and its anthropic-beta header', async () => {
    const { key } = await customer();
    const res = await send(key, 'anth/chat');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('event: message_stop');
    const [sent] = messagesCalls();
    expect(sent!.text).toBe(JSON.stringify({ ...claudeCode.body, model: 'anth/chat' }));
    expect(sent!.search).toBe('');
    expect(sent!.headers['anthropic-beta']).toBe(claudeCode.headers['anthropic-beta']);
  });
});

test('«Проверить сейчас» with a probe model asks an anthropic provider in its own protocol: POST /messages for one token', async () => {
  const patched = await routing.adminCall('PATCH', `/api/admin/providers/${anthropicId}`, { probeModel: 'anth/chat' });
  expect(patched.status).toBe(200);
  const probe = await routing.adminCall('POST', `/api/admin/providers/${anthropicId}/probe`);
  expect(probe.status).toBe(200);
  expect(probe.body.ok).toBe(true);
  const [asked] = messagesCalls();
  expect(asked!.body).toMatchObject({ model: 'anth/chat', max_tokens: 1 });
  expect(asked!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
  expect((await routing.adminCall('PATCH', `/api/admin/providers/${anthropicId}`, { probeModel: null })).status).toBe(200);
});
