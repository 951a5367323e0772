// Token counting with a real BPE tokenizer (o200k, the encoding of current OpenAI models), used to
// size reservations and to bill answers whose upstream sent no usage figures.
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** Per OpenAI's accounting: every message costs a few tokens of framing, and the reply is primed. */
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING = 3;
/** A flat allowance for non-text parts (images, audio, files), whose real cost the upstream decides. */
export const NON_TEXT_PART_TOKENS = 1_000;
/** Texts longer than this are estimated from their length, so a 10 MB prompt costs no tokenizer time. */
const EXACT_COUNT_LIMIT = 64 * 1024;

export function countTextTokens(text: string): number {
  if (!text) return 0;
  if (text.length > EXACT_COUNT_LIMIT) return Math.ceil(text.length / 2);
  return countTokens(text);
}

interface MessageLike {
  role?: unknown;
  name?: unknown;
  content?: unknown;
  tool_calls?: unknown;
}

function contentTokens(content: unknown): number {
  if (typeof content === 'string') return countTextTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) {
    if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text') {
      total += countTextTokens(String((part as { text?: unknown }).text ?? ''));
    } else {
      total += NON_TEXT_PART_TOKENS;
    }
  }
  return total;
}

/** Prompt tokens of a chat request as an upstream would count them, near enough to reserve against. */
export function estimatePromptTokens(messages: readonly MessageLike[]): number {
  let total = REPLY_PRIMING;
  for (const m of messages) {
    total += TOKENS_PER_MESSAGE + contentTokens(m.content);
    if (typeof m.name === 'string') total += 1 + countTextTokens(m.name);
    if (m.tool_calls !== undefined) total += countTextTokens(JSON.stringify(m.tool_calls));
  }
  return total;
}
