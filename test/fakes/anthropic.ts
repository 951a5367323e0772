// A fake Anthropic Messages API host: a real HTTP server speaking POST {url}/messages (plain JSON and the SSE
// stream in Anthropic's exact event order: message_start, ping, content_block_start / _delta / _stop per
// block, message_delta with stop_reason and cumulative usage, message_stop) and GET {url}/models, with its
// error bodies ({type:"error", error:{type, message}}) and request-id header. Behaviour is chosen by the
// request's model, so parallel tests sharing one fake do not interfere.
//
// Answers, for any model not listed below:
//   text          `Echo: <text of the last user message>` (its text blocks joined by a space); when the last
//                 user message carries tool_result blocks: `Tool said: <their contents joined by " | ">`
//   stream        the same text in pieces: PIECES ("Hello from the fake upstream.") for an echo, else the text
//   usage         anthropicUsage(body): input 10 + 2 × messages, output 7
//
// Special models:
//   fake/tool-use         a text block "Let me check." then tool_use get_weather TOOL_INPUT (its JSON streamed as
//                         input_json_delta in TOOL_INPUT_PIECES), stop_reason tool_use — unless the last user
//                         message carries a tool_result (then the usual answer)
//   fake/read-file        asks for Claude Code's Read tool: tool_use Read {file_path: the last absolute path in the
//                         last user text} (streamed in one input_json_delta), stop_reason tool_use — unless the last
//                         user message carries a tool_result (then the usual answer, `Tool said: <file content>`)
//   fake/cached           usage with cache_read_input_tokens CACHE_READ and cache_creation_input_tokens CACHE_WRITTEN
//   any model in `reportedUsage`: that usage instead (a stream's message_start carries its input and cache figures,
//                         message_delta its output_tokens); reset() empties it
//   fake/stop-sequence    stops at the request's first stop sequence: stop_reason stop_sequence, stop_sequence it
//   fake/no-usage         (not streamed) an answer without usage
//   fake/error-401        401 authentication_error; fake/error-429 429 rate_limit_error with retry-after 7;
//   fake/error-529        529 overloaded_error; fake/error-400 400 invalid_request_error
//   fake/stream-error     (stream) message_start, ping, a text block's first piece, then an `error` event
//                         (overloaded_error) and the end of the stream
//   fake/stream-error-echo  the same, its error message quoting the x-api-key it was sent (as a careless proxy
//                         does), cut into two chunks in the middle of the key
//
// `apiKey`: every request must carry it in x-api-key (401 authentication_error otherwise). `outage`: every
// POST answers that status with Anthropic's error of it. Requests are recorded in `requests` with their
// headers and the exact body text.
import { startFakeServer } from './fake-server';

export const PIECES = ['Hel', 'lo', ' from', ' the', ' fake', ' upstream', '.'] as const;
export const TOOL_INPUT = { city: 'Paris', units: 'metric', days: [1, 2] } as const;
/** TOOL_INPUT's JSON text in the pieces a stream sends it in. */
export const TOOL_INPUT_PIECES = ['{"ci', 'ty": "Par', 'is", "units"', ': "metric", "days": [1', ', 2]}'];
export const CACHE_READ = 100;
export const CACHE_WRITTEN = 20;

export interface AnthropicRecordedRequest {
  path: string;
  method: string;
  search: string;
  headers: Record<string, string>;
  /** The body exactly as received. */
  text: string;
  body: any;
}

export interface FakeAnthropic {
  /** Base URL, ending where `/messages` is appended: `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: AnthropicRecordedRequest[];
  outage: number | null;
  /**
   * Model id → the usage this fake reports for it instead of anthropicUsage(body): in the answer, and in a stream
   * split as Anthropic splits it (input and cache figures in message_start, output_tokens in message_delta).
   * Emptied by reset().
   */
  reportedUsage: Map<string, Record<string, unknown>>;
  reset(): void;
  close(): Promise<void>;
}

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  [key: string]: unknown;
}
interface Body {
  model?: string;
  messages?: { role: string; content: string | Block[] }[];
  stream?: boolean;
  stop_sequences?: string[];
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

const headers = (contentType: string, extra: Record<string, string> = {}) => ({
  'content-type': contentType,
  'request-id': `req_${crypto.randomUUID().replaceAll('-', '')}`,
  ...extra,
});

function anthropicError(status: number, message: string, extra: Record<string, string> = {}): Response {
  const type = ERROR_TYPES[status] ?? 'api_error';
  return new Response(JSON.stringify({ type: 'error', error: { type, message } }), { status, headers: headers('application/json', extra) });
}

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? (content as Block[])
          .filter((b) => b.type === 'text')
          .map((b) => String(b.text))
          .join(' ')
      : '';

/** The tool results of the last user message, or null when it has none. */
function toolResults(body: Body): string[] | null {
  const last = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
  if (!last || typeof last.content === 'string') return null;
  const results = last.content.filter((b) => b.type === 'tool_result');
  return results.length > 0 ? results.map((b) => textOf(b.content)) : null;
}

export function anthropicText(body: Body): string {
  const results = toolResults(body);
  if (results) return `Tool said: ${results.join(' | ')}`;
  const last = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
  return `Echo: ${textOf(last?.content)}`;
}

type Usage = { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };

export function anthropicUsage(body: Body): Usage {
  const usage = { input_tokens: 10 + 2 * (body.messages?.length ?? 0), output_tokens: PIECES.length };
  return body.model === 'fake/cached' ? { ...usage, cache_read_input_tokens: CACHE_READ, cache_creation_input_tokens: CACHE_WRITTEN } : usage;
}

const wantsTool = (body: Body) => body.model === 'fake/tool-use' && toolResults(body) === null;

/** fake/read-file: the path its Read call names, or null when it answers as usual. */
function pathToRead(body: Body): string | null {
  if (body.model !== 'fake/read-file' || toolResults(body) !== null) return null;
  const last = (body.messages ?? []).filter((m) => m.role === 'user').at(-1);
  return (
    textOf(last?.content)
      .match(/\/[\w.\-/]+/g)
      ?.at(-1) ?? null
  );
}

/** The usage a request is answered with: the reported one set for its model, else anthropicUsage. */
const usageFor = (body: Body, reported: Map<string, Record<string, unknown>>): Usage =>
  (reported.get(String(body.model)) as Usage | undefined) ?? anthropicUsage(body);

function answer(body: Body, id: string, reported: Map<string, Record<string, unknown>>) {
  const content: Record<string, unknown>[] = [];
  let stopReason = 'end_turn';
  let stopSequence: string | null = null;
  if (wantsTool(body)) {
    content.push({ type: 'text', text: 'Let me check.' });
    content.push({ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: TOOL_INPUT });
    stopReason = 'tool_use';
  } else if (pathToRead(body) !== null) {
    content.push({ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: pathToRead(body) } });
    stopReason = 'tool_use';
  } else {
    content.push({ type: 'text', text: anthropicText(body) });
    if (body.model === 'fake/stop-sequence' && body.stop_sequences?.length) {
      stopReason = 'stop_sequence';
      stopSequence = body.stop_sequences[0]!;
    }
  }
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopSequence,
    ...(body.model === 'fake/no-usage' ? {} : { usage: usageFor(body, reported) }),
  };
}

const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** The stream's events, in Anthropic's order. */
function streamEvents(body: Body, id: string, apiKey: string, reported: Map<string, Record<string, unknown>>): string[] {
  const usage = usageFor(body, reported);
  const { output_tokens: _output, ...inputUsage } = usage;
  const events = [
    event('message_start', {
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: 1 },
      },
    }),
    event('ping', {}),
  ];
  const final = answer(body, id, reported);
  const blocks = final.content;
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      const text = String(block.text);
      const pieces = text.startsWith('Echo: ') && body.model !== 'fake/tool-use' ? [`Echo: `, ...text.slice(6).match(/.{1,4}/gs)!] : [text];
      if (body.model === 'fake/stream-error' || body.model === 'fake/stream-error-echo') {
        events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: pieces[0] } }));
        const message = body.model === 'fake/stream-error' ? 'Overloaded' : `Overloaded; your key ${apiKey} was seen`;
        const error = event('error', { error: { type: 'overloaded_error', message } });
        const cut = body.model === 'fake/stream-error' ? error.length : error.indexOf(apiKey) + Math.floor(apiKey.length / 2);
        events.push(error.slice(0, cut), error.slice(cut));
        return events.filter((e) => e !== '');
      }
      for (const piece of pieces) events.push(event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else {
      events.push(event('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } }));
      const pieces = block.name === 'get_weather' ? TOOL_INPUT_PIECES : [JSON.stringify(block.input)];
      for (const piece of pieces) events.push(event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
    }
    events.push(event('content_block_stop', { index }));
  }
  events.push(
    event('message_delta', { delta: { stop_reason: final.stop_reason, stop_sequence: final.stop_sequence }, usage: { output_tokens: usage.output_tokens } }),
  );
  events.push(event('message_stop', {}));
  return events;
}

export async function startFakeAnthropic(options: { apiKey?: string } = {}): Promise<FakeAnthropic> {
  const requests: AnthropicRecordedRequest[] = [];
  let counter = 0;
  const encoder = new TextEncoder();
  const fake: FakeAnthropic = {
    url: '',
    requests,
    outage: null,
    reportedUsage: new Map(),
    reset() {
      requests.length = 0;
      fake.reportedUsage.clear();
      fake.outage = null;
    },
    close: async () => {},
  };
  const server = startFakeServer(async (req) => {
    const url = new URL(req.url);
    const text = req.method === 'POST' ? await req.text() : '';
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    const recorded: Record<string, string> = {};
    req.headers.forEach((value, key) => {
      recorded[key] = value;
    });
    requests.push({ path: url.pathname, method: req.method, search: url.search, headers: recorded, text, body });
    if (options.apiKey && req.headers.get('x-api-key') !== options.apiKey) return anthropicError(401, 'invalid x-api-key');
    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return Response.json(
        {
          data: [{ type: 'model', id: 'claude-sonnet-4', display_name: 'Claude Sonnet 4', created_at: '2025-05-22T00:00:00Z' }],
          has_more: false,
          first_id: 'claude-sonnet-4',
          last_id: 'claude-sonnet-4',
        },
        { headers: headers('application/json') },
      );
    }
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') return anthropicError(404, `Not found: ${url.pathname}`);
    if (fake.outage !== null) return anthropicError(fake.outage, 'the host is in trouble');
    const model = String(body?.model ?? '');
    const status = /^fake\/error-(\d+)$/.exec(model);
    if (status) return anthropicError(Number(status[1]), `fake error ${status[1]}`, status[1] === '429' ? { 'retry-after': '7' } : {});
    const id = `msg_fake${++counter}`;
    if (body.stream !== true) return new Response(JSON.stringify(answer(body, id, fake.reportedUsage)), { headers: headers('application/json') });
    const events = streamEvents(body, id, req.headers.get('x-api-key') ?? '', fake.reportedUsage);
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = events.shift();
        if (next === undefined) {
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next));
        await Bun.sleep(1);
      },
    });
    return new Response(stream, { headers: headers('text/event-stream; charset=utf-8', { 'cache-control': 'no-cache' }) });
  });
  fake.url = `${server.origin}/v1`;
  fake.close = () => server.close();
  return fake;
}
