// The fake upstream must be what the gateway tests think it is: OpenAI's wire format, as the official
// SDK reads it, with the documented special models.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import {
  DEFAULT_MODELS,
  FAKE_REPLY,
  PIECES,
  SLOW_STREAM_PIECES,
  TOOL_CALL,
  expectedContent,
  expectedUsage,
  startFakeUpstream,
  type FakeUpstream,
} from '../fakes/upstream';

const API_KEY = 'sk-upstream-test';
const messages: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Say hello' },
];

let fake: FakeUpstream;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: API_KEY });
  // No retries: each test asserts what one request does.
  client = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0, timeout: 10_000 });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

async function waitFor(check: () => boolean, timeoutMs = 2000) {
  const until = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > until) throw new Error('condition not met in time');
    await Bun.sleep(5);
  }
}

async function apiError(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    return error as InstanceType<typeof OpenAI.APIError>;
  }
  throw new Error('expected an API error');
}

function post(path: string, body: string, headers: Record<string, string> = { authorization: `Bearer ${API_KEY}` }) {
  return fetch(`${fake.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe('chat completions', () => {
  test('a normal model answers with an echo and the documented usage', async () => {
    const { data: completion, response } = await client.chat.completions.create({ model: 'acme/chat', messages }).withResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('acme/chat');
    expect(completion.created).toBeGreaterThan(1_700_000_000);
    expect(completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'Echo: Say hello', refusal: null }, logprobs: null, finish_reason: 'stop' },
    ]);
    expect(completion.usage).toEqual({ prompt_tokens: 14, completion_tokens: 7, total_tokens: 21 });
    expect(completion.usage).toEqual(expectedUsage({ messages }));
  });

  test('the request is recorded as sent, headers and body included', async () => {
    await client.chat.completions.create({ model: 'acme/chat', messages, temperature: 0.5 });
    expect(fake.requests).toHaveLength(1);
    const [recorded] = fake.requests;
    expect(recorded).toEqual(expect.objectContaining({ path: '/v1/chat/completions', method: 'POST', abortedAt: null }));
    expect(recorded!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(recorded!.headers['content-type']).toBe('application/json');
    expect(recorded!.body).toEqual({ model: 'acme/chat', messages, temperature: 0.5 });
  });

  test('content parts: the text parts of the last user message are echoed', async () => {
    const body = {
      model: 'acme/chat',
      messages: [
        { role: 'user' as const, content: 'first' },
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'What is' },
            { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'text' as const, text: 'here?' },
          ],
        },
      ],
    };
    const completion = await client.chat.completions.create(body);
    expect(completion.choices[0]!.message.content).toBe('Echo: What is here?');
    expect(completion.choices[0]!.message.content).toBe(expectedContent(body));
  });

  test('max_tokens caps the completion tokens and ends the answer with "length"', async () => {
    const completion = await client.chat.completions.create({ model: 'acme/chat', messages, max_tokens: 3 });
    expect(completion.usage).toEqual({ prompt_tokens: 14, completion_tokens: 3, total_tokens: 17 });
    expect(completion.choices[0]!.finish_reason).toBe('length');
    const capped = await client.chat.completions.create({ model: 'acme/chat', messages, max_completion_tokens: 2 });
    expect(capped.usage!.completion_tokens).toBe(2);
  });

  test('fake/no-usage answers without a usage object', async () => {
    const completion = await client.chat.completions.create({ model: 'fake/no-usage', messages });
    expect(completion.usage).toBeUndefined();
    expect(completion.choices[0]!.message.content).toBe('Echo: Say hello');
  });

  test('fake/tool-call answers with a tool call', async () => {
    const completion = await client.chat.completions.create({ model: 'fake/tool-call', messages });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0]!;
    expect(call.id).toMatch(/^call_/);
    expect(call.type).toBe('function');
    expect(call.type === 'function' && call.function).toEqual({ ...TOOL_CALL });
    expect(completion.usage).toEqual(expectedUsage({ model: 'fake/tool-call', messages }));
  });
});

describe('streaming', () => {
  test('with include_usage: role chunk, one chunk per piece, finish chunk, usage chunk, [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'acme/chat',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    expect(chunks).toHaveLength(1 + PIECES.length + 2);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe('acme/chat');
    }
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: 'assistant', content: '', refusal: null });
    const pieces = chunks.slice(1, 1 + PIECES.length).map((c) => c.choices[0]!.delta.content);
    expect(pieces).toEqual([...PIECES]);
    const finish = chunks[1 + PIECES.length]!;
    expect(finish.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    // OpenAI marks every chunk but the last with usage: null when usage was asked for.
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(expectedUsage({ messages }));
  });

  test('the exact bytes: SSE framing, event-stream content type, [DONE] last', async () => {
    const body = { model: 'acme/chat', messages, stream: true, stream_options: { include_usage: true } };
    const res = await post('/chat/completions', JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await res.text();
    expect(fake.streams).toEqual([text]);
    const events = text.split('\n\n');
    expect(events.pop()).toBe('');
    expect(events.at(-1)).toBe('data: [DONE]');
    for (const event of events) expect(event).toMatch(/^data: /);
    expect(events.slice(0, -1).every((e) => JSON.parse(e.slice(6)).object === 'chat.completion.chunk')).toBe(true);
  });

  test('without include_usage no chunk mentions usage', async () => {
    const res = await post('/chat/completions', JSON.stringify({ model: 'acme/chat', messages, stream: true }));
    const text = await res.text();
    expect(text).not.toContain('usage');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    let content = '';
    for (const event of text.split('\n\n').filter((e) => e && e !== 'data: [DONE]')) {
      content += JSON.parse(event.slice(6)).choices[0].delta.content ?? '';
    }
    expect(content).toBe(FAKE_REPLY);
  });

  test('pieces arrive separately, pieceDelayMs apart', async () => {
    fake.pieceDelayMs = 40;
    const res = await post('/chat/completions', JSON.stringify({ model: 'acme/chat', messages, stream: true }));
    const reader = res.body!.getReader();
    const arrivals: number[] = [];
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      arrivals.push(performance.now());
    }
    // Had the fake buffered its answer, everything would arrive in one or two reads.
    expect(arrivals.length).toBeGreaterThanOrEqual(PIECES.length);
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(40 * (PIECES.length - 1) * 0.8);
  });

  test('max_tokens stops the stream early with "length" and bills only what was sent', async () => {
    const stream = await client.chat.completions.create({
      model: 'acme/chat',
      messages,
      max_tokens: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Hello');
    expect(finish).toBe('length');
    expect(usage).toEqual({ prompt_tokens: 14, completion_tokens: 2, total_tokens: 16 });
  });

  test('fake/no-usage streams without a usage chunk even when asked', async () => {
    const stream = await client.chat.completions.create({
      model: 'fake/no-usage',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) {
      expect(chunk.usage ?? null).toBeNull();
      expect(chunk.choices).toHaveLength(1);
      text += chunk.choices[0]!.delta.content ?? '';
    }
    expect(text).toBe(FAKE_REPLY);
    expect(fake.streams[0]).not.toContain('"usage"');
  });

  test('fake/tool-call streams the call as tool_calls deltas', async () => {
    const stream = await client.chat.completions.create({
      model: 'fake/tool-call',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let name = '';
    let args = '';
    let id: string | undefined;
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        expect(call.index).toBe(0);
        id ??= call.id;
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(id).toMatch(/^call_/);
    expect({ name, arguments: args }).toEqual({ ...TOOL_CALL });
    expect(finish).toBe('tool_calls');
    expect(usage).toEqual(expectedUsage({ model: 'fake/tool-call', messages }));
  });

  test('fake/json-for-stream answers JSON to a streaming request', async () => {
    const res = await post('/chat/completions', JSON.stringify({ model: 'fake/json-for-stream', messages, stream: true }));
    expect(res.headers.get('content-type')).toBe('application/json');
    expect((await res.json()).object).toBe('chat.completion');
  });
});

describe('errors', () => {
  test('fake/error-400 → 400 invalid_request_error with param and code', async () => {
    const e = await apiError(client.chat.completions.create({ model: 'fake/error-400', messages }));
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e.status).toBe(400);
    expect(e.type).toBe('invalid_request_error');
    expect(e.param).toBe('temperature');
    expect(e.code).toBe('invalid_value');
    expect(e.requestID).toMatch(/^req_/);
  });

  test('fake/unknown-model and fake/not-found* → 404 model_not_found naming the model', async () => {
    for (const model of ['fake/unknown-model', 'fake/not-found', 'fake/not-found-anything']) {
      const e = await apiError(client.chat.completions.create({ model, messages }));
      expect(e).toBeInstanceOf(OpenAI.NotFoundError);
      expect(e.status).toBe(404);
      expect(e.code).toBe('model_not_found');
      expect(e.type).toBe('invalid_request_error');
      expect(e.message).toContain(`The model \`${model}\` does not exist`);
    }
  });

  test('fake/error-429 → 429 rate_limit_exceeded with retry-after', async () => {
    const e = await apiError(client.chat.completions.create({ model: 'fake/error-429', messages }));
    expect(e).toBeInstanceOf(OpenAI.RateLimitError);
    expect(e.code).toBe('rate_limit_exceeded');
    expect(e.headers?.get('retry-after')).toBe('1');
  });

  test('fake/error-500 and fake/error-503 → server_error bodies', async () => {
    const e500 = await apiError(client.chat.completions.create({ model: 'fake/error-500', messages }));
    expect(e500).toBeInstanceOf(OpenAI.InternalServerError);
    expect(e500.status).toBe(500);
    expect(e500.type).toBe('server_error');
    const e503 = await apiError(client.chat.completions.create({ model: 'fake/error-503', messages, stream: true }));
    expect(e503.status).toBe(503);
    expect(e503.type).toBe('server_error');
  });

  test('fake/error-502 → 502 with an HTML body, no OpenAI error object', async () => {
    const res = await post('/chat/completions', JSON.stringify({ model: 'fake/error-502', messages }));
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toContain('502 Bad Gateway');
    const e = await apiError(client.chat.completions.create({ model: 'fake/error-502', messages }));
    expect(e.status).toBe(502);
    expect(e.error).toBeUndefined();
  });

  test('a wrong key → 401 invalid_api_key; no key → 401 as OpenAI words it', async () => {
    const wrong = new OpenAI({ baseURL: fake.url, apiKey: 'sk-wrong', maxRetries: 0 });
    const e = await apiError(wrong.chat.completions.create({ model: 'acme/chat', messages }));
    expect(e).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(e.code).toBe('invalid_api_key');
    expect(e.message).not.toContain('sk-wrong');
    const res = await post('/chat/completions', JSON.stringify({ model: 'acme/chat', messages }), {});
    expect(res.status).toBe(401);
    expect((await res.json()).error).toEqual(
      expect.objectContaining({ type: 'invalid_request_error', message: expect.stringContaining("didn't provide an API key") }),
    );
    // /models wants the key too, as OpenAI's does.
    expect((await fetch(`${fake.url}/models`)).status).toBe(401);
  });

  test('bad requests: malformed JSON, no model, no messages, unknown route', async () => {
    const malformed = await post('/chat/completions', '{"model":');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toContain('could not parse the JSON body');
    const noModel = await post('/chat/completions', JSON.stringify({ messages }));
    expect(noModel.status).toBe(400);
    const noMessages = await post('/chat/completions', JSON.stringify({ model: 'acme/chat' }));
    expect(noMessages.status).toBe(400);
    expect((await noMessages.json()).error.param).toBe('messages');
    const unknown = await post('/completions', JSON.stringify({ model: 'acme/chat' }));
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toEqual({
      message: 'Invalid URL (POST /v1/completions)',
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
  });
});

describe('broken connections', () => {
  test('fake/drop mid-stream: the client gets the first two pieces, then the connection breaks', async () => {
    const stream = await client.chat.completions.create({ model: 'fake/drop', messages, stream: true });
    let text = '';
    let failure: unknown;
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    } catch (error) {
      failure = error;
    }
    expect(text).toBe('Hello');
    // The SDK surfaces the reset as the runtime's own error, not as an APIError.
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(OpenAI.APIError);
    expect(String(failure)).toContain('ECONNRESET');
    expect(fake.streams).toEqual([]);
    expect(fake.aborted).toEqual([]);
  });

  test('fake/drop with fetch: status 200 and bytes, then the body read fails', async () => {
    const res = await post('/chat/completions', JSON.stringify({ model: 'fake/drop', messages, stream: true }));
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const failure = await (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return null;
          text += decoder.decode(value, { stream: true });
        }
      } catch (error) {
        return error as Error & { code?: string };
      }
    })();
    expect(failure?.code).toBe('ECONNRESET');
    expect(text.split('\n\n').filter(Boolean)).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
  });

  test('fake/drop without streaming and fake/reset: the connection closes before any answer', async () => {
    for (const body of [
      { model: 'fake/drop', messages },
      { model: 'fake/reset', messages },
      { model: 'fake/reset', messages, stream: true },
    ]) {
      const failure = await post('/chat/completions', JSON.stringify(body)).then(
        () => null,
        (error: Error & { code?: string }) => error,
      );
      expect(failure?.code).toBe('ECONNRESET');
    }
    const e = await client.chat.completions.create({ model: 'fake/reset', messages }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  test('a closed fake refuses connections', async () => {
    const closed = await startFakeUpstream();
    await closed.close();
    const refused = new OpenAI({ baseURL: closed.url, apiKey: 'x', maxRetries: 0 });
    const e = await refused.chat.completions.create({ model: 'acme/chat', messages }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});

describe('slow answers and clients that leave', () => {
  test('fake/slow answers after slowMs', async () => {
    fake.slowMs = 150;
    const started = performance.now();
    const completion = await client.chat.completions.create({ model: 'fake/slow', messages });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(completion.choices[0]!.message.content).toBe('Echo: Say hello');
    expect(fake.aborted).toEqual([]);
  });

  test('fake/slow: a client that times out is seen leaving at once', async () => {
    const impatient = new OpenAI({ baseURL: fake.url, apiKey: API_KEY, maxRetries: 0, timeout: 200 });
    const started = performance.now();
    const e = await impatient.chat.completions.create({ model: 'fake/slow', messages }).catch((error: unknown) => error);
    expect(e).toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await waitFor(() => fake.aborted.includes('fake/slow'));
    const abortedAt = fake.requests[0]!.abortedAt!;
    expect(abortedAt - started).toBeLessThan(1000);
  });

  test('fake/slow-stream: breaking out of the SDK stream is seen by the fake within a piece', async () => {
    fake.slowStreamDelayMs = 50;
    const stream = await client.chat.completions.create({ model: 'fake/slow-stream', messages, stream: true });
    let pieces = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) pieces += 1;
      if (pieces === 3) break; // the SDK aborts the request on break
    }
    const leftAt = performance.now();
    await waitFor(() => fake.aborted.includes('fake/slow-stream'));
    const [recorded] = fake.requests;
    expect(recorded!.abortedAt! - leftAt).toBeLessThan(100);
    expect(fake.streams).toEqual([]);
    // Marked once, however many ways (signal, cancel) the departure reached the fake.
    await Bun.sleep(150);
    expect(fake.aborted).toEqual(['fake/slow-stream']);
  });

  test('fake/slow-stream runs its SLOW_STREAM_PIECES pieces to the end when nobody leaves', async () => {
    fake.slowStreamDelayMs = 1;
    const stream = await client.chat.completions.create({
      model: 'fake/slow-stream',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let pieces = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) pieces += 1;
      usage = chunk.usage ?? usage;
    }
    expect(pieces).toBe(SLOW_STREAM_PIECES);
    expect(usage!.completion_tokens).toBe(SLOW_STREAM_PIECES);
  });

  test('close() ends a pending fake/slow at once', async () => {
    const other = await startFakeUpstream({ slowMs: 60_000 });
    const pending = fetch(`${other.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake/slow', messages }),
    }).catch((error: unknown) => error);
    await waitFor(() => other.requests.length === 1);
    const started = performance.now();
    await other.close();
    expect(await pending).toBeInstanceOf(Error);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('models', () => {
  test('the OpenAI list shape, through the SDK', async () => {
    const page = await client.models.list();
    expect(page.data).toEqual(DEFAULT_MODELS.map((m) => ({ ...m, object: 'model' as const })));
    const res = await fetch(`${fake.url}/models`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(await res.json()).toEqual({ object: 'list', data: DEFAULT_MODELS.map((m) => ({ ...m, object: 'model' })) });
  });

  test('the list is settable, one model can be retrieved, and reset() restores the defaults', async () => {
    fake.models = [{ id: 'other/model', created: 1_800_000_000, owned_by: 'other' }];
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['other/model']);
    expect(await client.models.retrieve('other/model')).toEqual({
      id: 'other/model',
      object: 'model',
      created: 1_800_000_000,
      owned_by: 'other',
    });
    const missing = await apiError(client.models.retrieve('acme/chat'));
    expect(missing.status).toBe(404);
    fake.reset();
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(DEFAULT_MODELS.map((m) => m.id));
  });

  test('modelsDown → 503', async () => {
    fake.modelsDown = true;
    const e = await apiError(client.models.list());
    expect(e.status).toBe(503);
    expect(e.type).toBe('server_error');
  });
});
