// What the fake upstream answers, as figures and text the tests also compute their expectations from: the
// pieces of a streamed reply, the tool call, the usage of a chat, an embedding or a response, the echo.
// The fake (test/fakes/upstream.ts) answers with these and re-exports the ones the tests name.
export interface FakeModel {
  id: string;
  created: number;
  owned_by: string;
  /** OpenRouter's per-token prices in USD, e.g. {prompt: "0.000001", completion: "0.000002"}; absent: none listed. */
  pricing?: { prompt?: string; completion?: string; [other: string]: string | undefined };
}

export const PIECES = ['Hel', 'lo', ' from', ' the', ' fake', ' upstream', '.'] as const;
export const FAKE_REPLY = PIECES.join('');
export const SLOW_STREAM_PIECES = 100;
export const TOOL_CALL = { name: 'get_weather', arguments: '{"city":"Paris"}' } as const;
export const ESCALATION_REASON = 'клиент спрашивает о возврате денег';
export const TOOL_ARGUMENT_PIECES = ['{"ci', 'ty":', '"Par', 'is"}'];
/** The second call of fake/parallel-tool-calls (the first is TOOL_CALL), and its arguments as streamed. */
export const SECOND_TOOL_CALL = { name: 'get_time', arguments: '{"zone":"Europe/Paris"}' } as const;
export const SECOND_TOOL_ARGUMENT_PIECES = ['{"zo', 'ne":"Eu', 'rope/Paris"}'];

/** The calls a tool-calling model answers with, each with its arguments in streamed pieces; [] for any other model. */
export function toolCallsOf(model: unknown): { name: string; arguments: string; pieces: readonly string[] }[] {
  const first = { ...TOOL_CALL, pieces: TOOL_ARGUMENT_PIECES };
  if (model === 'fake/tool-call' || model === 'fake/no-usage-tool-call') return [first];
  if (model === 'fake/parallel-tool-calls' || model === 'fake/no-usage-parallel-tool-calls') {
    return [first, { ...SECOND_TOOL_CALL, pieces: SECOND_TOOL_ARGUMENT_PIECES }];
  }
  return [];
}

/** Width of a fake embedding when the request names no `dimensions`. */
export const EMBEDDING_DIMENSIONS = 8;

export interface EmbeddingsBody {
  model?: unknown;
  input?: unknown;
  encoding_format?: unknown;
  dimensions?: unknown;
}

export interface ResponsesBody {
  model?: unknown;
  input?: unknown;
  instructions?: unknown;
  max_output_tokens?: unknown;
  previous_response_id?: unknown;
  stream?: unknown;
}

/** The inputs of an embeddings request, each a text or a token array (a flat token array is one input). */
export function embeddingInputs(input: unknown): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return [];
  if (typeof input[0] === 'number') return [input as number[]];
  return input as (string | number[])[];
}

/** A deterministic unit vector for an input: the same input and width always give the same floats. */
export function fakeEmbedding(input: string | number[], dimensions: number): number[] {
  let seed = 7;
  for (const ch of typeof input === 'string' ? input : input.join(',')) seed = (seed * 31 + ch.codePointAt(0)!) % 1_000_003;
  const raw = Array.from({ length: dimensions }, (_, j) => Math.sin(seed + j * 1.7));
  const norm = Math.hypot(...raw) || 1;
  // Rounded through float32, so the base64 form decodes to exactly these numbers.
  return raw.map((v) => Math.fround(v / norm));
}

/** prompt_tokens the fake reports: a text costs one token per started four characters, a token array its length. */
export function expectedEmbeddingTokens(body: { model?: unknown; input?: unknown }): number {
  const reported = typeof body.model === 'string' ? /^fake\/usage-(\d+)-(\d+)$/.exec(body.model) : null;
  if (reported) return Number(reported[1]);
  return embeddingInputs(body.input).reduce((sum, x) => sum + (typeof x === 'string' ? Math.ceil(x.length / 4) : x.length), 0);
}

/** The usage the fake reports for a Responses request: input 10 + 2 per input item (a string is one), output the pieces, capped. */
export function expectedResponseUsage(body: { model?: unknown; input?: unknown; max_output_tokens?: unknown }) {
  const reported = typeof body.model === 'string' ? /^fake\/usage-(\d+)-(\d+)$/.exec(body.model) : null;
  const cap = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : Infinity;
  const items = typeof body.input === 'string' ? 1 : Array.isArray(body.input) ? body.input.length : 0;
  const input = reported ? Number(reported[1]) : 10 + 2 * items;
  const long = typeof body.model === 'string' ? /^fake\/long-(\d+)$/.exec(body.model) : null;
  const output = reported ? Number(reported[2]) : Math.min(long ? Number(long[1]) : PIECES.length, cap);
  return {
    input_tokens: input,
    input_tokens_details: { cache_write_tokens: 0, cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + output,
  };
}

/** The text of a non-streamed response: `Echo: ` and the last user text of the input. */
export function expectedResponseText(body: { input?: unknown }): string {
  if (typeof body.input === 'string') return `Echo: ${body.input}`;
  const items = Array.isArray(body.input) ? (body.input as { role?: unknown; content?: unknown }[]) : [];
  const last = items.filter((m) => m?.role === 'user').at(-1);
  if (!last) return 'Echo: ';
  if (typeof last.content === 'string') return `Echo: ${last.content}`;
  const parts = Array.isArray(last.content) ? (last.content as { type?: unknown; text?: unknown }[]) : [];
  return `Echo: ${parts
    .filter((p) => p?.type === 'input_text')
    .map((p) => String(p.text))
    .join(' ')}`;
}

export const DEFAULT_MODELS: readonly FakeModel[] = [
  { id: 'acme/chat', created: 1_700_000_000, owned_by: 'acme' },
  { id: 'acme/large', created: 1_700_000_100, owned_by: 'acme' },
];

export interface ChatBody {
  model?: unknown;
  messages?: unknown;
  max_tokens?: unknown;
  max_completion_tokens?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

export function pieceCount(model: unknown): number {
  if (model === 'fake/slow-stream') return SLOW_STREAM_PIECES;
  // Streamed: every argument piece, and the opening delta of each call after the first.
  const calls = toolCallsOf(model);
  if (calls.length > 0) return calls.reduce((sum, call) => sum + call.pieces.length, calls.length - 1);
  return PIECES.length;
}

export function completionCap(body: ChatBody): number {
  const cap = body.max_completion_tokens ?? body.max_tokens;
  return typeof cap === 'number' && cap >= 0 ? Math.floor(cap) : Infinity;
}

/** The usage the fake reports for a request body (the model in it matters only for the special ones). */
export function expectedUsage(body: ChatBody) {
  const reported = typeof body.model === 'string' ? /^fake\/usage-(\d+)-(\d+)$/.exec(body.model) : null;
  if (reported) {
    const [p, c] = [Number(reported[1]), Number(reported[2])];
    return { prompt_tokens: p, completion_tokens: c, total_tokens: p + c };
  }
  if (body.model === 'fake/usage-garbage') {
    return { prompt_tokens: 'many', completion_tokens: -5, total_tokens: 'NaN' } as unknown as {
      prompt_tokens: number;
      completion_tokens: number;
      total_tokens: number;
    };
  }
  const prompt = 10 + 2 * (Array.isArray(body.messages) ? body.messages.length : 0);
  const long = typeof body.model === 'string' ? /^fake\/long-(\d+)$/.exec(body.model) : null;
  const completion = Math.min(long ? Number(long[1]) : pieceCount(body.model), completionCap(body));
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** The content of a non-streaming answer to a request body. */
export function expectedContent(body: ChatBody): string {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  const last = messages.filter((m) => m?.role === 'user').at(-1);
  if (!last) return 'Echo: ';
  if (typeof last.content === 'string') return `Echo: ${last.content}`;
  const parts = Array.isArray(last.content) ? (last.content as { type?: unknown; text?: unknown }[]) : [];
  return `Echo: ${parts
    .filter((p) => p?.type === 'text')
    .map((p) => String(p.text))
    .join(' ')}`;
}
