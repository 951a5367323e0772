// Token counting with a real BPE tokenizer, used to bill answers whose upstream sent no usage figures and
// to size the reservation of large prompts. o200k is the encoding of current OpenAI models (gpt-4o and
// later); for other model families it is an estimate, which is all these uses need. The encoding costs
// about 60 MB of RSS and half a second to load, and most requests need no count at all (the upstream
// reports usage, and a small prompt is reserved by its byte length), so it is loaded on first use only.
import type * as O200k from 'gpt-tokenizer/encoding/o200k_base';

let encoding: typeof O200k | null = null;

function countTokens(text: string, options: Parameters<typeof O200k.countTokens>[1]): number {
  encoding ??= require('gpt-tokenizer/encoding/o200k_base') as typeof O200k;
  return encoding.countTokens(text, options);
}

/** Whether the encoding has been loaded (for tests and memory diagnostics). */
export function tokenizerLoaded(): boolean {
  return encoding !== null;
}

/**
 * User text may contain the spelling of a special token such as `<|endoftext|>`. The API counts it as
 * ordinary text, and the tokenizer's default would throw, turning a prompt into a 500.
 */
const ORDINARY_TEXT = { disallowedSpecial: new Set<string>() };

/** Framing per message and the primed reply, as OpenAI documents for its chat models. */
export const TOKENS_PER_MESSAGE = 3;
export const TOKENS_PER_NAME = 1;
export const REPLY_PRIMING = 3;

/** An image at `detail: "low"` costs a flat 85 tokens. */
export const LOW_DETAIL_IMAGE_TOKENS = 85;
/**
 * Any other image is tiled; its real cost depends on a size we do not decode. This is OpenAI's figure
 * for a 1024×1024 image at high detail (85 + 4 tiles × 170).
 */
export const IMAGE_TOKENS = 765;
/** A flat allowance for audio, files and unknown parts, whose real cost only the upstream knows. */
export const NON_TEXT_PART_TOKENS = 1_000;

/**
 * BPE cost grows with the square of a pre-tokenized piece's length (64 KB of one letter takes seconds),
 * and so does the tokenizer's whitespace rule. Such runs are counted in slices of this many characters:
 * a slice boundary can add a token, a long run is rare, and the cost becomes linear.
 */
const LONG_RUN_CHARS = 64;
const LONG_RUN = /[\p{L}\p{M}]{64,}|[^\s\p{L}\p{M}\p{N}]{64,}|\s{64,}/gu;

/** Longer texts are counted from evenly spaced samples, so a huge prompt cannot stall the event loop. */
const EXACT_TEXT_CHARS = 32 * 1024;
const SAMPLE_CHARS = 2 * 1024;
const SAMPLES = 16;
/** Characters one request may have tokenized; beyond it, texts are extrapolated at the rate seen so far. */
const REQUEST_BUDGET_CHARS = 64 * 1024;
/** Rate used before anything was counted; dense enough for code and most scripts. */
const FALLBACK_TOKENS_PER_CHAR = 0.5;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** End of a slice that does not cut a surrogate pair in two. */
function sliceEnd(text: string, end: number): number {
  return end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) ? end + 1 : end;
}

function countRun(run: string): number {
  let total = 0;
  for (let start = 0; start < run.length; ) {
    const end = sliceEnd(run, Math.min(run.length, start + LONG_RUN_CHARS));
    total += countTokens(run.slice(start, end), ORDINARY_TEXT);
    start = end;
  }
  return total;
}

function countExact(text: string): number {
  if (text.length < LONG_RUN_CHARS) return countTokens(text, ORDINARY_TEXT);
  let total = 0;
  let from = 0;
  LONG_RUN.lastIndex = 0;
  for (let match = LONG_RUN.exec(text); match !== null; match = LONG_RUN.exec(text)) {
    if (match.index > from) total += countTokens(text.slice(from, match.index), ORDINARY_TEXT);
    total += countRun(match[0]);
    from = match.index + match[0].length;
  }
  if (from === 0) return countTokens(text, ORDINARY_TEXT);
  if (from < text.length) total += countTokens(text.slice(from), ORDINARY_TEXT);
  return total;
}

function countSampled(text: string): number {
  const stride = Math.floor((text.length - SAMPLE_CHARS) / (SAMPLES - 1));
  let tokens = 0;
  let chars = 0;
  for (let i = 0; i < SAMPLES; i++) {
    let start = i * stride;
    if (start > 0 && isHighSurrogate(text.charCodeAt(start - 1))) start += 1;
    const sample = text.slice(start, sliceEnd(text, start + SAMPLE_CHARS));
    tokens += countExact(sample);
    chars += sample.length;
  }
  return Math.ceil((tokens * text.length) / chars);
}

/** Tokens of a text: exact up to 32 K characters, estimated from samples beyond. Never throws. */
export function countTextTokens(text: string): number {
  if (!text) return 0;
  return text.length <= EXACT_TEXT_CHARS ? countExact(text) : countSampled(text);
}

/** A tally folds its text into its count every this many characters. */
const TALLY_FOLD_CHARS = EXACT_TEXT_CHARS;
/** Characters a tally counts exactly; past them, at the rate those gave (a long answer is one kind of text). */
const TALLY_EXACT_CHARS = 256 * 1024;

/**
 * The tokens of a text that arrives in pieces (a stream's generated text), without keeping it: what has
 * come is counted every TALLY_FOLD_CHARS and let go, so a 200 MB stream without usage holds at most that
 * much text (it held all of it, and RSS grew by ~300 MB).
 */
export function createTokenTally() {
  let pending = '';
  let tokens = 0;
  let exactChars = 0;
  let exactTokens = 0;
  function fold() {
    if (exactChars < TALLY_EXACT_CHARS) {
      const counted = countTextTokens(pending);
      exactChars += pending.length;
      exactTokens += counted;
      tokens += counted;
    } else {
      tokens += Math.ceil((pending.length * exactTokens) / exactChars);
    }
    pending = '';
  }
  return {
    add(text: string) {
      if (!text) return;
      pending += text;
      if (pending.length >= TALLY_FOLD_CHARS) fold();
    },
    /** Tokens of everything added. */
    get tokens(): number {
      return tokens + countTextTokens(pending);
    },
    /** The text added and not yet counted: all of it while it is short. */
    get uncounted(): string {
      return pending;
    },
  };
}

/** Counts the texts of one request within a shared tokenizer budget. */
function createRequestCounter() {
  let budget = REQUEST_BUDGET_CHARS;
  let countedChars = 0;
  let countedTokens = 0;
  return (text: string): number => {
    if (!text) return 0;
    const cost = Math.min(text.length, EXACT_TEXT_CHARS);
    if (cost > budget) {
      const rate = countedChars > 0 ? countedTokens / countedChars : FALLBACK_TOKENS_PER_CHAR;
      return Math.ceil(text.length * rate);
    }
    budget -= cost;
    const tokens = countTextTokens(text);
    countedChars += text.length;
    countedTokens += tokens;
    return tokens;
  };
}

/** Tokens of several texts of one request (embedding inputs), within the same tokenizer budget as a prompt. */
export function countTextsTokens(texts: readonly string[]): number {
  const count = createRequestCounter();
  let total = 0;
  for (const text of texts) total += count(text);
  return total;
}

type Count = (text: string) => number;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

function partTokens(part: unknown, count: Count): number {
  if (typeof part === 'string') return count(part);
  if (!isRecord(part)) return 0;
  switch (part.type) {
    case 'text':
      return count(str(part.text));
    case 'refusal':
      return count(str(part.refusal));
    case 'image_url': {
      const detail = isRecord(part.image_url) ? part.image_url.detail : undefined;
      return detail === 'low' ? LOW_DETAIL_IMAGE_TOKENS : IMAGE_TOKENS;
    }
    default:
      return NON_TEXT_PART_TOKENS;
  }
}

function contentTokens(content: unknown, count: Count): number {
  if (typeof content === 'string') return count(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) total += partTokens(part, count);
  return total;
}

function toolCallTokens(calls: unknown, count: Count): number {
  if (!Array.isArray(calls)) return 0;
  let total = 0;
  for (const call of calls) {
    if (!isRecord(call)) continue;
    const fn = isRecord(call.function) ? call.function : null;
    // The model wrote these as text; the framing around each call is a few tokens, like a message's.
    total += TOKENS_PER_MESSAGE + count(str(call.id)) + count(str(fn?.name)) + count(str(fn?.arguments));
  }
  return total;
}

// OpenAI's published rule for function tools on gpt-4o-class models: fixed costs around each function,
// its properties and enum values, plus the text of names, types and descriptions.
const FUNCTION_START = 7;
const PROPERTIES_START = 3;
const PROPERTY = 3;
const ENUM_START = -3;
const ENUM_ITEM = 3;
const FUNCTIONS_END = 12;

const withoutFinalPeriod = (text: string) => (text.endsWith('.') ? text.slice(0, -1) : text);

function toolsTokens(tools: unknown, count: Count): number {
  if (!Array.isArray(tools) || tools.length === 0) return 0;
  let total = 0;
  for (const tool of tools) {
    const fn = isRecord(tool) && isRecord(tool.function) ? tool.function : null;
    if (!fn) {
      // Not a function tool: whatever it carries reaches the model as text.
      total += count(JSON.stringify(tool) ?? '');
      continue;
    }
    total += FUNCTION_START + count(`${str(fn.name)}:${withoutFinalPeriod(str(fn.description))}`);
    const properties = isRecord(fn.parameters) && isRecord(fn.parameters.properties) ? fn.parameters.properties : {};
    const keys = Object.keys(properties);
    if (keys.length === 0) continue;
    total += PROPERTIES_START;
    for (const key of keys) {
      const property = isRecord(properties[key]) ? properties[key] : {};
      total += PROPERTY;
      if (Array.isArray(property.enum)) {
        total += ENUM_START;
        for (const item of property.enum) total += ENUM_ITEM + count(String(item));
      }
      const type = Array.isArray(property.type) ? property.type.join('|') : str(property.type);
      total += count(`${key}:${type}:${withoutFinalPeriod(str(property.description))}`);
      // Nested schemas are outside the published rule; their text still reaches the model.
      if (isRecord(property.properties) || isRecord(property.items)) {
        total += count(JSON.stringify({ properties: property.properties, items: property.items }) ?? '');
      }
    }
  }
  return total + FUNCTIONS_END;
}

export interface MessageLike {
  role?: unknown;
  name?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

/**
 * Prompt tokens of a chat request as an OpenAI model would bill them: per message 3 tokens of framing
 * plus its role, content and name (+1 for a name), tool calls and tool definitions, and 3 for the primed
 * reply. Text parts are counted, images and other parts get the allowances above. Accepts unvalidated
 * input without throwing.
 */
export function estimatePromptTokens(messages: readonly MessageLike[], tools?: unknown): number {
  return promptTokens(messages, tools, createRequestCounter());
}

/** UTF-8 length of a string, without encoding it. */
function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // a pair: 4 bytes for 2 code units
        i += 1;
        continue;
      }
      bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * Prompts whose byte bound stays under this are reserved by the bound; larger ones, where reserving by
 * bytes would hold several times the real cost, are counted with the tokenizer.
 */
export const BYTE_BOUND_LIMIT = 2_048;

/**
 * Tokens to reserve for a prompt: never fewer than estimatePromptTokens gives. Each BPE token stands for
 * at least one byte of UTF-8, so the same framing rules with every text counted by its byte length bound
 * the count from above, at the cost of a string scan instead of the tokenizer. Only prompts past
 * BYTE_BOUND_LIMIT are counted exactly.
 */
export function reservePromptTokens(messages: readonly MessageLike[], tools?: unknown): number {
  const bound = promptTokens(messages, tools, utf8Bytes);
  return bound <= BYTE_BOUND_LIMIT ? bound : estimatePromptTokens(messages, tools);
}

function promptTokens(messages: readonly MessageLike[], tools: unknown, count: Count): number {
  let total = REPLY_PRIMING;
  for (const message of messages) {
    if (!isRecord(message)) continue;
    total += TOKENS_PER_MESSAGE + count(str(message.role)) + contentTokens(message.content, count);
    if (typeof message.name === 'string') total += TOKENS_PER_NAME + count(message.name);
    total += toolCallTokens(message.tool_calls, count);
    total += count(str(message.tool_call_id));
  }
  return total + toolsTokens(tools, count);
}
