// The conformance list of issue 43 point 2 for the official `@anthropic-ai/sdk`: each case is something a
// client of Anthropic's Messages API does, run through Conduit's /v1/messages against both kinds of provider —
// the OpenAI-compatible fake (translated) and the Anthropic fake (passed through). The test names are the
// list docs/api-clients.md repeats.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import Anthropic from '@anthropic-ai/sdk';
import { type FakeAnthropic, startFakeAnthropic, TOOL_INPUT } from '../fakes/anthropic';
import { FAKE_REPLY, SECOND_TOOL_CALL, TOOL_CALL } from '../fakes/upstream';
import { setBalanceNano } from '../helpers/gateway';
import { routingHarness } from '../helpers/routing';

setDefaultTimeout(30_000);

const ADMIN = 'conformance-anthropic-admin@example.com';
const ANTHROPIC_KEY = 'sk-ant-provider-secret';
/** Client model id → the fake Anthropic host's model. */
const ANTHROPIC_MODELS = {
  'anth/chat': 'claude-sonnet-4',
  'anth/tool-use': 'fake/tool-use',
  'anth/error-400': 'fake/error-400',
  'anth/error-429': 'fake/error-429',
  'anth/error-529': 'fake/error-529',
  'anth/stream-error': 'fake/stream-error',
};
const harness = routingHarness((home) => ({ UPSTREAM_BASE_URL: home, ADMIN_EMAILS: ADMIN }), ADMIN);

/** A 1×1 transparent PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const QUESTION = 'Weather and time in Paris?';
const tools: Anthropic.Tool[] = [
  { name: TOOL_CALL.name, description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: SECOND_TOOL_CALL.name, description: 'Time in a zone', input_schema: { type: 'object', properties: { zone: { type: 'string' } } } },
];
const CALLS = [TOOL_CALL, SECOND_TOOL_CALL].map((call) => ({ name: call.name, input: JSON.parse(call.arguments) }));

function anthropicClient(key: string) {
  // No retries: a test asserts what one request does.
  return new Anthropic({ baseURL: harness.app.url, apiKey: key, maxRetries: 0, timeout: 20_000 });
}

async function customer() {
  const c = await harness.customer();
  return { ...c, client: anthropicClient(c.key) };
}

/** The error a call rejects with (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  return error as InstanceType<typeof Anthropic.APIError>;
}

const toolUses = (content: Anthropic.ContentBlock[]) => content.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, input: b.input }] : []));
const textOf = (content: Anthropic.ContentBlock[]) => content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

/** The models that make a provider answer each way, and what its answers say. */
interface ProviderModels {
  plain: string;
  /** The text of a plain answer to QUESTION, and of a streamed one. */
  plainText: (question: string) => string;
  streamText: (question: string) => string;
  toolCalls: string;
  /** The tool_use blocks toolCalls answers with, as {name, input}. */
  calls: { name: string; input: unknown }[];
  /** The tool results the provider was last sent, as text. */
  sentToolResults: () => string[];
  /** A model whose stream breaks off with an error. */
  streamError: string;
  error400: string;
  error429: string;
  error5xx: string;
  /** The status and error type the SDK sees for error5xx. */
  error5xxStatus: number;
}

function conformance(models: () => ProviderModels) {
  test('plain', async () => {
    const c = await customer();
    const m = models();
    const message = await c.client.messages.create({ model: m.plain, max_tokens: 100, messages: [{ role: 'user', content: QUESTION }] });
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(textOf(message.content)).toBe(m.plainText(QUESTION));
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  test('stream: the SDK reads every event and the final message', async () => {
    const c = await customer();
    const m = models();
    const stream = c.client.messages.stream({ model: m.plain, max_tokens: 100, messages: [{ role: 'user', content: QUESTION }] });
    const events: string[] = [];
    let text = '';
    stream.on('streamEvent', (event) => {
      events.push(event.type);
    });
    stream.on('text', (delta) => {
      text += delta;
    });
    const final = await stream.finalMessage();
    expect(text).toBe(m.streamText(QUESTION));
    expect(textOf(final.content)).toBe(m.streamText(QUESTION));
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(events).toContain('content_block_delta');
  });

  test('tools: tool_use blocks with their input, plain', async () => {
    const c = await customer();
    const m = models();
    const message = await c.client.messages.create({
      model: m.toolCalls,
      max_tokens: 100,
      tools,
      tool_choice: { type: 'auto' },
      messages: [{ role: 'user', content: QUESTION }],
    });
    expect(toolUses(message.content)).toEqual(m.calls);
    expect(message.stop_reason).toBe('tool_use');
  });

  test('tools: tool_use blocks, streamed as input_json_delta', async () => {
    const c = await customer();
    const m = models();
    const final = await c.client.messages.stream({ model: m.toolCalls, max_tokens: 100, tools, messages: [{ role: 'user', content: QUESTION }] }).finalMessage();
    expect(toolUses(final.content)).toEqual(m.calls);
    expect(final.stop_reason).toBe('tool_use');
  });

  test('tool results sent back', async () => {
    const c = await customer();
    const m = models();
    const first = await c.client.messages.create({ model: m.toolCalls, max_tokens: 100, tools, messages: [{ role: 'user', content: QUESTION }] });
    const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    const answer = await c.client.messages.create({
      model: m.plain,
      max_tokens: 100,
      tools,
      messages: [
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: first.content },
        { role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `result of ${use.name}` })) },
      ],
    });
    expect(answer.stop_reason).toBe('end_turn');
    expect(m.sentToolResults()).toEqual(uses.map((use) => `result of ${use.name}`));
  });

  test('error mid-stream: the SDK throws while reading', async () => {
    const c = await customer();
    const stream = c.client.messages.stream({ model: models().streamError, max_tokens: 100, messages: [{ role: 'user', content: QUESTION }] });
    const error = await failure(stream.finalMessage());
    expect(error.message).toBeTruthy();
  });

  test('images: base64 image blocks', async () => {
    const c = await customer();
    const m = models();
    const message = await c.client.messages.create({
      model: m.plain,
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is here?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } },
          ],
        },
      ],
    });
    expect(textOf(message.content)).toBe(m.plainText('What is here?'));
  });

  test('error 401: a wrong key is AuthenticationError', async () => {
    const error = await failure(
      anthropicClient('sk-conduit-not-a-key').messages.create({ model: models().plain, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.status).toBe(401);
    expect((error.error as { type?: string }).type).toBe('error');
  });

  test('error 400: an invalid request is BadRequestError', async () => {
    const c = await customer();
    const ours = await failure(c.client.messages.create({ model: 'no-owner-in-this-model-id', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(ours).toBeInstanceOf(Anthropic.BadRequestError);
    const upstream = await failure(c.client.messages.create({ model: models().error400, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(upstream).toBeInstanceOf(Anthropic.BadRequestError);
  });

  test('error 402: an empty balance is PaymentRequiredError', async () => {
    const c = await customer();
    await setBalanceNano(harness.app, c.userId, 0n);
    const error = await failure(c.client.messages.create({ model: models().plain, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(Anthropic.PaymentRequiredError);
    expect(error.status).toBe(402);
  });

  test('error 429: a rate limit is RateLimitError', async () => {
    const c = await customer();
    const error = await failure(c.client.messages.create({ model: models().error429, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect((error.error as { error?: { type?: string } }).error?.type).toBe('rate_limit_error');
  });

  test('error 5xx: a provider failure is InternalServerError', async () => {
    const c = await customer();
    const m = models();
    const error = await failure(c.client.messages.create({ model: m.error5xx, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.status).toBe(m.error5xxStatus);
  });
}

describe('@anthropic-ai/sdk → /v1/messages → openai provider', () => {
  conformance(() => ({
    plain: 'acme/chat',
    plainText: (question) => `Echo: ${question}`,
    streamText: () => FAKE_REPLY,
    // Two at once, from one assistant turn.
    toolCalls: 'fake/parallel-tool-calls',
    calls: CALLS,
    sentToolResults: () => {
      const last = harness.home.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!;
      return last.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    },
    streamError: 'fake/stream-error',
    error400: 'fake/error-400',
    error429: 'fake/error-429',
    error5xx: 'fake/error-500',
    error5xxStatus: 502,
  }));
});

describe('@anthropic-ai/sdk → /v1/messages → anthropic provider', () => {
  let anthropic: FakeAnthropic;
  beforeAll(async () => {
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    const providerId = await harness.addProvider(anthropic.url, { apiKey: ANTHROPIC_KEY, protocol: 'anthropic' });
    // The fake's behaviour models under ids of their own: the openai fake answers fake/error-… too.
    for (const [id, model] of Object.entries(ANTHROPIC_MODELS)) await harness.setRoute(id, [{ providerId, model }]);
  });
  afterAll(() => anthropic?.close());

  conformance(() => ({
    plain: 'anth/chat',
    plainText: (question) => `Echo: ${question}`,
    streamText: (question) => `Echo: ${question}`,
    toolCalls: 'anth/tool-use',
    calls: [{ name: 'get_weather', input: TOOL_INPUT }],
    sentToolResults: () => {
      const last = anthropic.requests.filter((r) => r.path === '/v1/messages').at(-1)!;
      return last.body.messages
        .at(-1)
        .content.filter((b: { type: string }) => b.type === 'tool_result')
        .map((b: { content: string }) => b.content);
    },
    streamError: 'anth/stream-error',
    error400: 'anth/error-400',
    error429: 'anth/error-429',
    error5xx: 'anth/error-529',
    // Anthropic's overloaded status passes as it is.
    error5xxStatus: 529,
  }));
});
