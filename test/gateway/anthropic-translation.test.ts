// The Messages ↔ chat translators on their tricky cases: requests both ways (tool results with images and
// errors, consecutive tool messages, arguments that are not JSON), streams both ways (parallel tool calls
// and their indexes, text between tools, cached tokens, a stream without usage, an error mid-stream).
import { describe, expect, test } from 'bun:test';
import { chatAnswerOf } from '../../src/gateway/anthropic/chat-answer';
import { chatRequestOf } from '../../src/gateway/anthropic/chat-request';
import { chatStreamOf } from '../../src/gateway/anthropic/chat-stream';
import { createMessagesMeter } from '../../src/gateway/anthropic/meter';
import { messagesAnswerOf } from '../../src/gateway/anthropic/messages-answer';
import { messagesRequestOf } from '../../src/gateway/anthropic/messages-request';
import { messagesStreamOf } from '../../src/gateway/anthropic/messages-stream';
import { messagesRequestSchema } from '../../src/gateway/anthropic/schema';
import type { StreamRewrite } from '../../src/gateway/anthropic/sse-events';
import { anthropicTokenCounts, usageAsAnthropic, usageAsChat } from '../../src/gateway/anthropic/usage';
import type { ChatRequest } from '../../src/gateway/request';
import { MAX_FILTERED_EVENT_CHARS, SseEventTooLarge } from '../../src/gateway/usage-filter';

/** The text a rewrite makes of these chunks of upstream text. */
function rewrite(stream: StreamRewrite, chunks: string[]): string {
  return chunks.map((chunk) => stream.push(chunk)).join('') + stream.end();
}

/** Named SSE events as [event, data] pairs. */
function events(text: string): [string, any][] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const name = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return [name, data.startsWith('{') ? JSON.parse(data) : data];
    });
}

const chatChunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;

describe('Messages request → chat request', () => {
  test('tool results: in order as tool messages, an error said in the text, a result’s image carried by the user message after them', () => {
    const body = messagesRequestSchema.parse({
      model: 'acme/chat',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'Первое', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Второе' },
      ],
      tools: [
        { name: 'read', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search' },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.png' } }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [
                { type: 'text', text: 'картинка:' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
              ],
            },
            { type: 'tool_result', tool_use_id: 't2', content: 'нет файла', is_error: true },
          ],
        },
      ],
    });
    const chat = chatRequestOf(body) as ChatRequest & Record<string, unknown>;
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Первое\nВторое' },
      { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } }] },
      { role: 'tool', tool_call_id: 't1', content: 'картинка:' },
      { role: 'tool', tool_call_id: 't2', content: 'Error: нет файла' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ] as never);
    // Anthropic's server tool has no schema a chat model could call: it is left out.
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'read', parameters: { type: 'object' } } }]);
    expect(chat.tool_choice).toBe('auto');
    expect(chat.parallel_tool_calls).toBe(false);
  });

  test('the schema refuses what the Messages API refuses, in Russian', () => {
    const noCap = messagesRequestSchema.safeParse({ model: 'acme/chat', messages: [{ role: 'user', content: 'x' }] });
    expect(noCap.success).toBe(false);
    expect(noCap.error!.issues[0]!.message).toContain('max_tokens');
    const role = messagesRequestSchema.safeParse({ model: 'acme/chat', max_tokens: 1, messages: [{ role: 'tool', content: 'x' }] });
    expect(role.error!.issues[0]!.message).toContain('user, assistant или system');
    const input = messagesRequestSchema.safeParse({
      model: 'acme/chat',
      max_tokens: 1,
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b', input: '{}' }] }],
    });
    expect(input.success).toBe(false);
  });
});

describe('chat request → Messages request', () => {
  test('consecutive tool messages and the user’s next words are one user turn; system and developer messages join; arguments that are not an object are kept', () => {
    const body = {
      model: 'acme/chat',
      temperature: 1.6,
      parallel_tool_calls: false,
      stop: 'СТОП',
      messages: [
        { role: 'system', content: 'Правило 1' },
        { role: 'developer', content: [{ type: 'text', text: 'Правило 2' }] },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } },
            { type: 'text', text: 'Что это?' },
          ],
        },
        {
          role: 'assistant',
          content: 'Проверю.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'a', arguments: '{"x":[1,{"y":"ё"}]}' } },
            { id: 'c2', type: 'function', function: { name: 'b', arguments: 'not json' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'один' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'два' }] },
        { role: 'user', content: 'И?' },
      ],
      tools: [
        { type: 'function', function: { name: 'a', parameters: { type: 'object', properties: { x: {} } } } },
        { type: 'function', function: { name: 'b' } },
      ],
      tool_choice: 'required',
    } as unknown as ChatRequest;
    const out = messagesRequestOf(body, 4096);
    expect(out).toMatchObject({
      model: 'acme/chat',
      max_tokens: 4096,
      system: 'Правило 1\n\nПравило 2',
      temperature: 1,
      stop_sequences: ['СТОП'],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      tools: [
        { name: 'a', input_schema: { type: 'object', properties: { x: {} } } },
        { name: 'b', input_schema: { type: 'object', properties: {} } },
      ],
    });
    expect(out.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
          { type: 'text', text: 'Что это?' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Проверю.' },
          { type: 'tool_use', id: 'c1', name: 'a', input: { x: [1, { y: 'ё' }] } },
          { type: 'tool_use', id: 'c2', name: 'b', input: { arguments: 'not json' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: 'один' },
          { type: 'tool_result', tool_use_id: 'c2', content: 'два' },
          { type: 'text', text: 'И?' },
        ],
      },
    ]);
  });
});

describe('answers both ways', () => {
  test('a chat answer with tool calls and cached tokens as a Messages answer, and back', () => {
    const chat = JSON.stringify({
      id: 'chatcmpl-abc',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Да', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 60 } },
    });
    const message = JSON.parse(messagesAnswerOf(chat, 'acme/chat')!);
    expect(message).toMatchObject({
      id: 'msg_abc',
      type: 'message',
      model: 'acme/chat',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'Да' },
        { type: 'tool_use', id: 'c1', name: 'f', input: { a: 1 } },
      ],
      usage: { input_tokens: 40, cache_read_input_tokens: 60, output_tokens: 5 },
    });
    const back = JSON.parse(chatAnswerOf(JSON.stringify(message), 'acme/chat')!);
    expect(back.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { content: 'Да', tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{"a":1}' } }] },
    });
    expect(back.usage).toEqual({ prompt_tokens: 100, completion_tokens: 5, total_tokens: 105, prompt_tokens_details: { cached_tokens: 60 } });
    expect(messagesAnswerOf('not json', 'm')).toBeNull();
  });

  test('usage: every prompt token once, whichever protocol reported it', () => {
    const anthropic = { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 };
    const counts = { promptTokens: 130, completionTokens: 3, totalTokens: 133, cachedTokens: 100, cacheWriteTokens: 20 };
    expect(anthropicTokenCounts(anthropic)).toEqual(counts);
    // In chat's terms the written tokens are OpenRouter's prompt_tokens_details.cache_write_tokens.
    expect(usageAsChat(anthropic)).toEqual({
      prompt_tokens: 130,
      completion_tokens: 3,
      total_tokens: 133,
      prompt_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    });
    expect(usageAsAnthropic(usageAsChat(anthropic))).toEqual(anthropic);
    expect(anthropicTokenCounts(usageAsAnthropic(usageAsChat(anthropic)))).toEqual(counts);
  });
});

describe('a chat stream as a Messages stream', () => {
  test('text, then two parallel tool calls: blocks in order with their own indexes, arguments as input_json_delta, usage last', async () => {
    const rewrite1 = messagesStreamOf({ model: 'acme/chat', estimatePrompt: () => 999 });
    const text = rewrite(rewrite1, [
      chatChunk({ role: 'assistant', content: '' }),
      chatChunk({ content: 'Смотрю' }),
      chatChunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }) + chatChunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chatChunk({ tool_calls: [{ index: 1, id: 'c2', type: 'function', function: { name: 'b', arguments: '{}' } }] }),
      chatChunk({}, 'tool_calls'),
      `data: ${JSON.stringify({ id: 'chatcmpl-1', choices: [], usage: { prompt_tokens: 50, completion_tokens: 9, total_tokens: 59, prompt_tokens_details: { cached_tokens: 30 } } })}\n\n`,
      'data: [DONE]\n\n',
    ]);
    const seen = events(text);
    expect(seen.map(([name]) => name)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(seen[0]![1].message).toMatchObject({ id: 'msg_1', model: 'acme/chat', content: [], usage: { output_tokens: 0 } });
    expect(seen[5]![1]).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'c1', name: 'a', input: {} } });
    expect([seen[6]![1], seen[7]![1]].map((e) => [e.index, e.delta.partial_json])).toEqual([
      [1, '{"x":'],
      [1, '1}'],
    ]);
    expect(seen[9]![1]).toMatchObject({ index: 2, content_block: { type: 'tool_use', id: 'c2', name: 'b' } });
    expect(seen[12]![1]).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 20, cache_read_input_tokens: 30, output_tokens: 9 },
    });
    expect(rewrite1.upstreamUsage).toBe(true);
    const meter = createMessagesMeter();
    meter.pushText(text);
    expect(anthropicTokenCounts(meter.usage!)).toEqual({ promptTokens: 50, completionTokens: 9, totalTokens: 59, cachedTokens: 30 });
  });

  test('no usage from the upstream: the tokenizer’s count, and the caller told so; an error chunk ends the stream with an error event', async () => {
    const plain = messagesStreamOf({ model: 'm', estimatePrompt: () => 42 });
    const seen = events(rewrite(plain, [chatChunk({ content: 'Привет, мир' }), chatChunk({}, 'length')]));
    expect(seen.at(-2)![1]).toMatchObject({ delta: { stop_reason: 'max_tokens' }, usage: { input_tokens: 42 } });
    expect(seen.at(-2)![1].usage.output_tokens).toBeGreaterThan(0);
    expect(plain.upstreamUsage).toBe(false);

    const broken = messagesStreamOf({ model: 'm', estimatePrompt: () => 1 });
    const failed = events(
      rewrite(broken, [
        chatChunk({ content: 'a' }),
        `data: ${JSON.stringify({ error: { message: 'boom', type: 'server_error' } })}\n\n`,
        chatChunk({ content: 'b' }),
      ]),
    );
    expect(failed.at(-1)).toEqual(['error', { type: 'error', error: { type: 'api_error', message: 'boom' } }]);
    expect(failed.some(([name]) => name === 'message_stop')).toBe(false);
  });
});

describe('a Messages stream as a chat stream', () => {
  test('tool_use blocks after text get tool-call indexes from 0; thinking is reasoning_content; the usage chunk counts the cache inside prompt_tokens', async () => {
    const ev = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    const text = rewrite(chatStreamOf('acme/chat'), [
      ev('message_start', { message: { id: 'msg_9', usage: { input_tokens: 5, cache_read_input_tokens: 50, output_tokens: 1 } } }),
      ev('ping', {}),
      ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'хм' } }),
      ev('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      ev('content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Ок' } }),
      ev('content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu1', name: 'a', input: {} } }),
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"q":' } }),
      ev('content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"ё"}' } }),
      ev('content_block_start', { index: 3, content_block: { type: 'tool_use', id: 'tu2', name: 'b', input: {} } }),
      ev('content_block_delta', { index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } }),
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } }),
      ev('message_stop', {}),
    ]);
    const chunks = text
      .split('\n\n')
      .filter(Boolean)
      .map((line) => line.slice('data: '.length));
    expect(chunks.at(-1)).toBe('[DONE]');
    const parsed = chunks.slice(0, -1).map((c) => JSON.parse(c));
    expect(parsed[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(parsed[0].id).toBe('chatcmpl-msg_9');
    const deltas = parsed.flatMap((p) => p.choices.map((c: { delta: unknown }) => c.delta));
    expect(deltas).toContainEqual({ reasoning_content: 'хм' });
    expect(deltas).toContainEqual({ content: 'Ок' });
    const calls = deltas.flatMap((d: { tool_calls?: unknown[] }) => d.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'tu1', type: 'function', function: { name: 'a', arguments: '' } },
      { index: 0, function: { arguments: '{"q":' } },
      { index: 0, function: { arguments: '"ё"}' } },
      { index: 1, id: 'tu2', type: 'function', function: { name: 'b', arguments: '' } },
      { index: 1, function: { arguments: '{}' } },
    ]);
    expect(parsed.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(parsed.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 55, completion_tokens: 12, total_tokens: 67, prompt_tokens_details: { cached_tokens: 50 } },
    });
  });

  test('an error event becomes chat’s error chunk and ends the stream', async () => {
    const text = rewrite(chatStreamOf('m'), [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    ]);
    const last = text.trim().split('\n\n').at(-1)!;
    expect(JSON.parse(last.slice('data: '.length))).toEqual({ error: { message: 'Overloaded', type: 'overloaded_error' } });
    expect(text).not.toContain('[DONE]');
  });
});

test('an event that never ends breaks the rewritten stream off, and the meter lets it go, at the cap chat’s filter keeps', async () => {
  const endless = `data: {"choices":[{"delta":{"content":"${'a'.repeat(MAX_FILTERED_EVENT_CHARS)}`;
  let failure: unknown = null;
  try {
    rewrite(messagesStreamOf({ model: 'm', estimatePrompt: () => 1 }), [chatChunk({ content: 'a' }), endless]);
  } catch (error) {
    failure = error;
  }
  expect(failure).toBeInstanceOf(SseEventTooLarge);
  const meter = createMessagesMeter();
  meter.pushText(
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'b'.repeat(MAX_FILTERED_EVENT_CHARS)}`,
  );
  expect(meter.oversizedChars).toBeGreaterThan(MAX_FILTERED_EVENT_CHARS);
  meter.pushText('\n\nevent: message_delta\ndata: {"type":"message_delta","delta":{},"usage":{"output_tokens":3}}\n\n');
  expect(meter.usage).toMatchObject({ output_tokens: 3 });
});
