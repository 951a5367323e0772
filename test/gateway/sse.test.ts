// The SSE meter reads billing facts from the bytes the gateway relays. It must agree with what the
// OpenAI SDK reads from the same bytes, however they are split, and never throw.
import { describe, expect, test } from 'bun:test';
import { Stream } from 'openai/streaming';
import { createSseMeter, generatedText, type SseMeter } from '../../src/gateway/sse';

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

const ID = 'chatcmpl-abc123';
function chunk(delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) {
  return {
    id: ID,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'acme/chat',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
    ...extra,
  };
}
const USAGE = { prompt_tokens: 14, completion_tokens: 7, total_tokens: 21 };
const PIECES = ['Hel', 'lo', ' from', ' the', ' fake', ' upstream', '.'];

/** A stream as OpenAI sends it with stream_options.include_usage. */
function openAiStream(newline = '\n'): string {
  const events = [
    chunk({ role: 'assistant', content: '', refusal: null }),
    ...PIECES.map((content) => chunk({ content })),
    chunk({}, 'stop'),
    { id: ID, object: 'chat.completion.chunk', created: 1_700_000_000, model: 'acme/chat', choices: [], usage: USAGE },
  ];
  return [...events.map((e) => `data: ${JSON.stringify(e)}`), 'data: [DONE]'].map((e) => e + newline + newline).join('');
}

function meterOf(...chunks: (string | Uint8Array)[]): SseMeter {
  const meter = createSseMeter();
  for (const c of chunks) meter.push(typeof c === 'string' ? bytes(c) : c);
  return meter;
}

function facts(meter: SseMeter) {
  return {
    usage: meter.usage,
    completionText: meter.completionText,
    done: meter.done,
    model: meter.model,
    finishReason: meter.finishReason,
    error: meter.error,
    events: meter.events,
  };
}

/** What the OpenAI SDK yields for the same bytes, split the same way. */
async function sdkRead(chunks: Uint8Array[]) {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  const stream = Stream.fromSSEResponse<any>(new Response(body), new AbortController());
  let text = '';
  let usage: unknown = null;
  for await (const item of stream) {
    for (const choice of item.choices ?? []) text += choice.delta?.content ?? '';
    if (item.usage) usage = item.usage;
  }
  return { text, usage };
}

const EXPECTED = {
  usage: USAGE,
  completionText: PIECES.join(''),
  done: true,
  model: 'acme/chat',
  finishReason: 'stop',
  error: null,
  events: 11,
};

describe('an OpenAI stream', () => {
  test('in one chunk', () => {
    expect(facts(meterOf(openAiStream()))).toEqual(EXPECTED);
  });

  test('byte by byte', () => {
    const all = bytes(openAiStream());
    const meter = createSseMeter();
    for (let i = 0; i < all.length; i++) meter.push(all.subarray(i, i + 1));
    expect(facts(meter)).toEqual(EXPECTED);
  });

  test('split in two at every position', () => {
    const all = bytes(openAiStream());
    for (let cut = 0; cut <= all.length; cut++) {
      const meter = meterOf(all.subarray(0, cut), all.subarray(cut));
      expect(meter.usage).toEqual(USAGE);
      expect(meter.completionText).toBe(EXPECTED.completionText);
      expect(meter.done).toBe(true);
    }
  });

  test('with CRLF and with lone CR line endings, CR and LF split across chunks', () => {
    for (const newline of ['\r\n', '\r']) {
      const all = bytes(openAiStream(newline));
      expect(facts(meterOf(all))).toEqual(EXPECTED);
      for (let cut = 0; cut <= all.length; cut += 7) {
        expect(facts(meterOf(all.subarray(0, cut), all.subarray(cut)))).toEqual(EXPECTED);
      }
    }
    // The CR ends one chunk, its LF starts the next: one line end, not a line end and a blank line.
    const meter = meterOf('data: {"model":"m","choices":[{"delta":{"content":"a"}}]}\r', '\ndata: x\r\n\r\n');
    expect(meter.completionText).toBe('');
    expect(meter.events).toBe(1);
  });

  test('agrees with the OpenAI SDK on awkward but valid framing, however it is split', async () => {
    const awkward = [
      ': OPENROUTER PROCESSING\n\n',
      'event: message\nid: 1\nretry: 1000\n',
      `data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Привет, ' }))}\n\n`,
      // One JSON value over two data lines, which SSE joins with a newline.
      `data: {"id":"${ID}","model":"acme/chat",\ndata: "choices":[{"index":0,"delta":{"content":"мир 🌍"}}]}\r\n\r\n`,
      `data:${JSON.stringify(chunk({ content: '!' }, 'stop'))}\r\r`,
      ': keep-alive\n',
      `data: ${JSON.stringify({ id: ID, choices: [], usage: USAGE })}\n\n`,
      'data: [DONE]\n\n',
    ].join('');
    const all = bytes(awkward);
    for (const size of [1, 2, 3, 5, 64, all.length]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
      const meter = meterOf(...chunks);
      const sdk = await sdkRead(chunks);
      expect(meter.completionText).toBe(sdk.text);
      expect(meter.usage).toEqual(sdk.usage as typeof USAGE);
      expect(meter.completionText).toBe('Привет, мир 🌍!');
      expect(meter.done).toBe(true);
    }
  });

  test('several events in one chunk and an event over several chunks', () => {
    const text = openAiStream();
    const third = Math.floor(text.length / 3);
    expect(facts(meterOf(text.slice(0, third), text.slice(third, 2 * third), text.slice(2 * third)))).toEqual(EXPECTED);
  });
});

describe('usage', () => {
  test('none until the usage chunk; usage:null on content chunks is not usage', () => {
    const meter = meterOf(`data: ${JSON.stringify(chunk({ content: 'a' }))}\n\n`);
    expect(meter.usage).toBeNull();
    meter.push(bytes(`data: ${JSON.stringify({ choices: [], usage: USAGE })}\n\n`));
    expect(meter.usage).toEqual(USAGE);
  });

  test('the last usage wins (providers that send running totals)', () => {
    const meter = meterOf(
      `data: ${JSON.stringify(chunk({ content: 'a' }, null, { usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }))}\n\n`,
      `data: ${JSON.stringify(chunk({ content: 'b' }, null, { usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }))}\n\n`,
    );
    expect(meter.usage).toEqual({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });

  test('a missing total is the sum; the details billing prices apart are kept, the others left out; nonsense is ignored', () => {
    expect(meterOf('data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n').usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
    });
    expect(meterOf('data: {"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":2}}}\n\n').usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    const details =
      '"prompt_tokens_details":{"cached_tokens":-2,"cache_write_tokens":"x","image_tokens":5},"completion_tokens_details":{"reasoning_tokens":3,"audio_tokens":1}';
    expect(meterOf(`data: {"usage":{"prompt_tokens":3,"completion_tokens":4,${details}}}\n\n`).usage).toEqual({
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      completion_tokens_details: { reasoning_tokens: 3 },
    });
    for (const usage of ['"lots"', '{"prompt_tokens":"3"}', '{}', '{"prompt_tokens":-1}', '[]', '7']) {
      expect(meterOf(`data: {"usage":${usage}}\n\n`).usage).toBeNull();
    }
  });

  test('an event cut off before its blank line is not counted, as no client could read it', async () => {
    const cut = `data: ${JSON.stringify(chunk({ content: 'a' }))}\n\ndata: ${JSON.stringify({ choices: [], usage: USAGE })}\n`;
    const meter = meterOf(cut);
    expect(meter.usage).toBeNull();
    expect(meter.completionText).toBe('a');
    expect((await sdkRead([bytes(cut)])).usage).toBeNull();
  });
});

describe('completion text', () => {
  test('tool-call names and arguments, refusals and reasoning count as generated text', () => {
    const FIRST_CALL = { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } };
    const meter = meterOf(
      `data: ${JSON.stringify(chunk({ role: 'assistant', content: null, tool_calls: [FIRST_CALL] }))}\n\n`,
      `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }))}\n\n`,
      `data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, 'tool_calls'))}\n\n`,
      `data: ${JSON.stringify(chunk({ reasoning: 'think ' }))}\n\n`,
      `data: ${JSON.stringify(chunk({ reasoning_content: 'more ' }))}\n\n`,
      `data: ${JSON.stringify(chunk({ refusal: 'no' }))}\n\n`,
      `data: ${JSON.stringify(chunk({ function_call: { name: 'f', arguments: '{}' } }))}\n\n`,
    );
    expect(meter.completionText).toBe('get_weather{"city":"Paris"}think more nof{}');
    expect(meter.finishReason).toBe('tool_calls');
  });

  test('every choice of an n > 1 answer is counted', () => {
    const meter = meterOf(
      `data: ${JSON.stringify({
        choices: [
          { index: 0, delta: { content: 'a' } },
          { index: 1, delta: { content: 'b' } },
        ],
      })}\n\n`,
    );
    expect(meter.completionText).toBe('ab');
  });

  test('multi-byte characters split between chunks survive', () => {
    const all = bytes(`data: ${JSON.stringify(chunk({ content: 'Ёж 🦔 日本' }))}\n\n`);
    for (let cut = 0; cut <= all.length; cut++) {
      expect(meterOf(all.subarray(0, cut), all.subarray(cut)).completionText).toBe('Ёж 🦔 日本');
    }
  });
});

describe('generated text of a whole message', () => {
  test('content, content parts, refusal, reasoning, tool calls and function calls all count', () => {
    expect(
      generatedText({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        refusal: 'r',
        reasoning: 'th',
        reasoning_content: 'ink',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'get', arguments: '{"x":1}' } }],
        function_call: { name: 'f', arguments: '{}' },
      }),
    ).toBe('abrthinkget{"x":1}f{}');
    expect(generatedText({ content: 'plain' })).toBe('plain');
    expect(generatedText(null)).toBe('');
  });
});

describe('done, model and errors', () => {
  test('[DONE] marks the end; events after it are ignored, as the SDK ignores them', () => {
    const meter = meterOf('data: [DONE]\n\n', `data: ${JSON.stringify(chunk({ content: 'late' }))}\n\n`);
    expect(meter.done).toBe(true);
    expect(meter.completionText).toBe('');
    expect(meter.events).toBe(1);
  });

  test('the model is the first one named', () => {
    const meter = meterOf('data: {"choices":[]}\n\n', 'data: {"model":"first","choices":[]}\n\n', 'data: {"model":"second"}\n\n');
    expect(meter.model).toBe('first');
  });

  test('an error event mid-stream is reported', () => {
    const meter = meterOf(
      `data: ${JSON.stringify(chunk({ content: 'a' }))}\n\n`,
      'data: {"error":{"message":"Upstream overloaded","type":"server_error","code":502}}\n\n',
    );
    expect(meter.error).toEqual({ message: 'Upstream overloaded', type: 'server_error', code: '502' });
    expect(meterOf('data: {"error":"plain"}\n\n').error).toEqual({ message: 'plain', type: null, code: null });
    expect(meterOf('data: {"error":null,"choices":[]}\n\n').error).toBeNull();
  });
});

describe('robustness', () => {
  test('malformed events are skipped and the rest still counted', () => {
    const meter = meterOf(
      'data: {not json\n\n',
      'data: 42\n\ndata: null\n\ndata: "text"\n\ndata: [1,2]\n\n',
      'data: {"choices":"nope"}\n\ndata: {"choices":[null,1,{"delta":null},{"delta":{"content":5}}]}\n\n',
      'datum: {"choices":[{"delta":{"content":"no"}}]}\n\n',
      'data\n\n',
      `data: ${JSON.stringify(chunk({ content: 'ok' }))}\n\n`,
    );
    expect(meter.completionText).toBe('ok');
  });

  test('random bytes never throw', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const alphabet = bytes('data: {}[]":,\n\r [DONE]usagechoicesdelta\\u0000\xff');
    for (let round = 0; round < 200; round++) {
      const meter = createSseMeter();
      for (let c = 0; c < 20; c++) {
        const piece = new Uint8Array(Math.floor(random() * 64));
        for (let i = 0; i < piece.length; i++) {
          piece[i] = random() < 0.2 ? Math.floor(random() * 256) : alphabet[Math.floor(random() * alphabet.length)]!;
        }
        meter.push(piece);
      }
      expect(typeof meter.completionText).toBe('string');
    }
  });

  test('the pushed bytes are left as they were, and a reused buffer does not confuse it', () => {
    const text = openAiStream();
    const all = bytes(text);
    const before = all.slice();
    const meter = createSseMeter();
    // The caller reuses one buffer for every read, as a socket reader may.
    const buffer = new Uint8Array(13);
    for (let i = 0; i < all.length; i += buffer.length) {
      const n = Math.min(buffer.length, all.length - i);
      buffer.set(all.subarray(i, i + n));
      const view = buffer.subarray(0, n);
      const copy = view.slice();
      meter.push(view);
      expect(view).toEqual(copy);
      buffer.fill(0x41);
    }
    expect(all).toEqual(before);
    expect(facts(meter)).toEqual(EXPECTED);
  });

  test('an endless line is dropped without holding it in memory, and reading resumes after it', () => {
    const meter = createSseMeter();
    meter.push(bytes('data: {"choices":[{"delta":{"content":"'));
    const junk = new Uint8Array(64 * 1024).fill(0x61);
    for (let i = 0; i < 40; i++) meter.push(junk); // 2.5 MB, over the 1 MB limit
    meter.push(bytes('"}}]}\n\n'));
    meter.push(bytes(`data: ${JSON.stringify(chunk({ content: 'after' }))}\n\ndata: [DONE]\n\n`));
    expect(meter.completionText).toBe('after');
    expect(meter.done).toBe(true);
    // The dropped event was still sent to the client: its data is counted by length for billing.
    expect(meter.oversizedBytes).toBeGreaterThan(2_500_000);
  });

  test('a 2 MB event in one chunk is counted by its length, the events around it as usual', () => {
    const big = JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: 'x'.repeat(2 * 1024 * 1024) } }] }));
    const meter = meterOf(
      `data: ${JSON.stringify(chunk({ content: 'before' }))}\n\n`,
      `data: ${big}\n\n`,
      `data: ${JSON.stringify(chunk({ content: 'after' }))}\n\ndata: [DONE]\n\n`,
    );
    expect(meter.completionText).toBe('beforeafter');
    expect(meter.oversizedBytes).toBeGreaterThanOrEqual(big.length);
    expect(meter.events).toBe(3);
  });

  test('an empty push changes nothing', () => {
    const meter = meterOf('data: {"choices":[{"delta":{"content":"a"}}]}\r', new Uint8Array(0), '\n\n');
    expect(meter.completionText).toBe('a');
  });

  test('a long answer in small chunks is metered in linear time', () => {
    const event = `data: ${JSON.stringify(chunk({ content: 'token ' }))}\n\n`;
    const all = bytes(event.repeat(20_000)); // about 4 MB
    const meter = createSseMeter();
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    for (let i = 0; i < all.length; i += 100) meter.push(all.subarray(i, i + 100));
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuStarted);
    expect(meter.events).toBe(20_000);
    // Counted as it came, not kept: "token " is one token; what is left uncounted is a short tail.
    expect(Math.abs(meter.completionTokens - 20_000)).toBeLessThanOrEqual(200);
    expect(meter.completionText.length).toBeLessThanOrEqual(32 * 1024);
    // This process's CPU time: the suite's other files, running in parallel, stretch the wall clock (2.2 s
    // seen), not this. A quadratic meter would take minutes either way.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(2_000);
    expect(elapsed).toBeLessThan(6_000);
  });
});
