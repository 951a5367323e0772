// Which chat requests the response cache may answer, and the key an answer is kept under: the owner and a
// canonical form of the request, in which the order of an object's keys does not matter.
import type { KeyCacheMode } from '../../keys';
import type { ChatRequest } from '../request';

/** The request header that asks for the cache (`on`) or refuses it for one request (`off`); the answer's says hit or miss. */
export const CACHE_HEADER = 'x-conduit-cache';

/**
 * Whether the request asks for the cache: its key's mode is on or any, or it sends `x-conduit-cache: on`
 * (`off` skips the cache of a key that has it). Reads the key's cached record and one header: a request
 * that does not ask costs nothing more.
 */
export function asksForCache(request: Request, mode: KeyCacheMode): boolean {
  const header = request.headers.get(CACHE_HEADER);
  if (header === null) return mode !== 'off';
  const asked = header.trim().toLowerCase();
  return asked === 'on' || (mode !== 'off' && asked !== 'off');
}

/**
 * Whether an answer to this request may be served again. Never a stream (it is relayed as it comes), never
 * `n` > 1 (several choices are asked for their variety), and, unless the key's mode is `any`, only at
 * `temperature` 0: an absent temperature is the model's default, 1 for OpenAI's models, so it is not cached.
 */
export function cacheable(body: ChatRequest, mode: KeyCacheMode): boolean {
  if (body.stream === true) return false;
  if (typeof body.n === 'number' && body.n > 1) return false;
  if (mode === 'any') return true;
  const temperature = (body as { temperature?: unknown }).temperature;
  return typeof temperature === 'number' && temperature <= 0;
}

/** JSON with every object's keys in sorted order, so two spellings of one request give one text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Fields that do not change a whole (non-stream) answer: `stream` (false here) and `stream_options`. A
 * top-level field set to null is the field left out (OpenAI's default either way), and `n: 1` is the
 * default. Every other field — messages, tools, temperature, max_tokens, seed, user… — counts.
 */
const IGNORED = new Set(['stream', 'stream_options']);

/** The fields of the request that decide its answer, with `model` the id it is priced and sent as. */
function answerFields(body: ChatRequest, model: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (IGNORED.has(name) || value === null || value === undefined) continue;
    if (name === 'n' && value === 1) continue;
    fields[name] = value;
  }
  fields.model = model;
  return fields;
}

/** Whose the answer is: the user, and the API key when that key is key-scoped (null: the whole account's). */
export interface CacheOwner {
  userId: string;
  keyId: string | null;
}

/** SHA-256 (hex) of the owner and the request's canonical form: the key an answer is stored and found under. */
export function requestHash(owner: CacheOwner, model: string, body: ChatRequest): string {
  const text = `${owner.userId}\n${owner.keyId ?? 'account'}\n${canonicalJson(answerFields(body, model))}`;
  return Bun.CryptoHasher.hash('sha256', text, 'hex');
}
