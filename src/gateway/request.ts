// What /v1/chat/completions accepts: a model id of the form owner/model and OpenAI messages. Every other
// field passes to the upstream untouched.
import { z } from 'zod';

/** An owner/model id, as every /v1 route takes it. */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:@+-]*$/;

const textPart = z.object({ type: z.literal('text'), text: z.string() }).loose();
const imagePart = z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string().min(1) }).loose() }).loose();
const otherPart = z.object({ type: z.enum(['input_audio', 'file', 'refusal']) }).loose();
const contentPart = z.discriminatedUnion('type', [textPart, imagePart, otherPart], {
  error: 'часть сообщения должна иметь type: text, image_url, input_audio, file или refusal',
});

const message = z
  .object({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function'], {
      error: 'role должен быть одним из: system, developer, user, assistant, tool',
    }),
    content: z
      .union([z.string(), z.array(contentPart).min(1)])
      .nullable()
      .optional(),
  })
  .loose()
  .refine((m) => (m.content !== undefined && m.content !== null ? true : m.role === 'assistant' && ('tool_calls' in m || 'function_call' in m)), {
    message: 'content обязателен (строка или массив частей)',
    path: ['content'],
  });

export const chatRequestSchema = z
  .object({
    model: z
      .string({ error: 'Укажите model в формате <владелец>/<модель>' })
      .max(200)
      .regex(MODEL_ID, 'model должен иметь вид <владелец>/<модель>, например openai/gpt-4o-mini'),
    messages: z.array(message, { error: 'messages должен быть массивом сообщений' }).min(1, 'messages не может быть пустым'),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional(),
    /** Choices to generate: each may cost up to the completion cap, so the reservation multiplies by it. */
    n: z.number().int().min(1, 'n должен быть от 1 до 128').max(128, 'n должен быть от 1 до 128').nullable().optional(),
  })
  .loose();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
export type ChatMessage = ChatRequest['messages'][number];

const ROLES: ReadonlySet<unknown> = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const absentOr = (value: unknown, check: (v: unknown) => boolean) => value === undefined || value === null || check(value);
const positiveInt = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * The request itself when it has the shape nearly every client sends (contents are strings, the fields
 * the schema knows have their plain types), checked by hand; `null` for anything else, which
 * chatRequestSchema then checks and explains. zod builds a copy of every object it parses (loose ones with
 * their unknown keys): ~5 µs a request, 7–9 % of the gateway's throughput in the benchmark. This accepts
 * nothing the schema refuses and gives what it would give (test/gateway/chat-request.test.ts holds the two
 * together), so it is a shortcut, not a second set of rules.
 */
export function plainChatRequest(json: unknown): ChatRequest | null {
  if (!isRecord(json)) return null;
  const { model, messages } = json;
  if (typeof model !== 'string' || model.length > 200 || !MODEL_ID.test(model)) return null;
  if (!Array.isArray(messages) || messages.length === 0) return null;
  for (const m of messages) {
    if (!isRecord(m) || !ROLES.has(m.role) || typeof m.content !== 'string') return null;
  }
  if (!absentOr(json.stream, (v) => typeof v === 'boolean')) return null;
  const options = json.stream_options;
  if (!absentOr(options, (v) => isRecord(v) && (v.include_usage === undefined || typeof v.include_usage === 'boolean'))) return null;
  if (!absentOr(json.max_tokens, positiveInt) || !absentOr(json.max_completion_tokens, positiveInt)) return null;
  if (!absentOr(json.n, (v) => positiveInt(v) && (v as number) <= 128)) return null;
  return json as ChatRequest;
}

/** JSON's whitespace: the only characters that may stand between tokens. */
const isJsonSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

const STREAM_USAGE = '"stream_options":{"include_usage":true}';

/**
 * `text`, a JSON object's text, with `members` (`"key":value` pairs, comma-separated) written in before its
 * closing brace; null when it has none. The caller knows none of the keys is in it already.
 */
export function spliceMembers(text: string, members: string): string | null {
  // A JSON object's text: only whitespace after its closing brace.
  const close = text.lastIndexOf('}');
  let before = close - 1;
  while (before >= 0 && isJsonSpace(text.charCodeAt(before))) before -= 1;
  if (close <= 0 || before < 0) return null;
  const separator = text.charCodeAt(before) === 0x7b /* { */ ? '' : ',';
  return `${text.slice(0, close)}${separator}${members}${text.slice(close)}`;
}

/**
 * The body the upstream gets: the request as the client wrote it, plus what Conduit must add.
 * - `streamUsage`: a stream whose client did not ask for usage gets `"stream_options":{"include_usage":true}`
 *   (billing needs the figures; the relay takes them out again).
 * - `completionCap`: a request that names no `max_tokens` / `max_completion_tokens` gets the cap its
 *   reservation assumed, so that a well-behaved upstream cannot answer past what was set aside (a key's
 *   limit or the balance would be overrun otherwise). It goes in as `max_tokens`, the field every
 *   OpenAI-compatible host takes, or as `max_completion_tokens` when the client sent that one as null.
 * `text` is the body the request was parsed from, or null when there is none (an assistant's request).
 * When the keys are not in it at all (the SDKs send none by default) they are written in before its closing
 * brace, instead of serialising the whole request again: a long conversation is tens of kilobytes, copied
 * and re-encoded for a few keys. body came from text, and JSON.parse decodes escaped keys, so a key absent
 * from body is absent from the text too.
 */
export function upstreamChatText(text: string | null, body: ChatRequest, add: { streamUsage: boolean; completionCap: number | null }): string {
  const { streamUsage, completionCap } = add;
  if (!streamUsage && completionCap === null) return text ?? JSON.stringify(body);
  if (
    text !== null &&
    (!streamUsage || body.stream_options === undefined) &&
    (completionCap === null || (body.max_tokens === undefined && body.max_completion_tokens === undefined))
  ) {
    const cap = completionCap === null ? '' : `"max_tokens":${completionCap}`;
    const spliced = spliceMembers(text, streamUsage ? (cap ? `${STREAM_USAGE},${cap}` : STREAM_USAGE) : cap);
    if (spliced !== null) return spliced;
  }
  const rebuilt: Record<string, unknown> = { ...body };
  if (streamUsage) rebuilt.stream_options = { ...body.stream_options, include_usage: true };
  if (completionCap !== null) rebuilt[body.max_completion_tokens === undefined ? 'max_tokens' : 'max_completion_tokens'] = completionCap;
  return JSON.stringify(rebuilt);
}

/** The body for a stream whose client did not ask for usage, the request naming its own cap (upstreamChatText). */
export function withStreamUsage(text: string | null, body: ChatRequest): string {
  return upstreamChatText(text, body, { streamUsage: true, completionCap: null });
}
