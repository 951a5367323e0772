// The parts of a usage report that are priced or shown apart (issue 45): prompt tokens the provider read from
// its cache or wrote to it, and the completion's reasoning. Each protocol names them its own way:
//   chat         prompt_tokens_details.cached_tokens, prompt_tokens_details.cache_write_tokens (OpenRouter's),
//                completion_tokens_details.reasoning_tokens — all already inside prompt_tokens / completion_tokens
//   responses    input_tokens_details.cached_tokens / .cache_write_tokens, output_tokens_details.reasoning_tokens
//   messages     cache_read_input_tokens, cache_creation_input_tokens — OUTSIDE input_tokens (gateway/anthropic/usage.ts
//                adds them to the prompt first)
// Whatever the provider says, a part is never larger than what it is part of: cached ≤ prompt, cache writes ≤ the
// prompt's rest, reasoning ≤ the billed completion; a figure that is not a count (negative, text, NaN) is none.
// Other details (image_tokens, audio_tokens, text_tokens) are inside prompt_tokens and are not read: billing them
// again was one of new-api's bugs.
import { billedCompletionTokens } from '../pricing/prices';
import { tokenCount } from './settlement';
import type { TokenCounts } from './stream-relay';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A detail object's field, or undefined when the object is missing. */
const field = (holder: unknown, name: string): unknown => (isRecord(holder) ? holder[name] : undefined);

/**
 * A detail figure as a count: only a finite positive JSON number is one (a detail is a provider's claim that
 * part of the usage is priced differently, so a string, a negative number or NaN claims nothing).
 */
const detailCount = (value: unknown): number => (typeof value === 'number' ? tokenCount(value) : 0);

/**
 * The counts with their cache and reasoning parts, each clamped into what it is part of. A part that is 0 is
 * left out, so a report without details makes the same object as before.
 */
export function withUsageDetails(counts: TokenCounts, cached: unknown, cacheWrite: unknown, reasoning: unknown): TokenCounts {
  const read = Math.min(detailCount(cached), counts.promptTokens);
  const written = Math.min(detailCount(cacheWrite), counts.promptTokens - read);
  const thought = Math.min(detailCount(reasoning), billedCompletionTokens(counts));
  if (read > 0) counts.cachedTokens = read;
  if (written > 0) counts.cacheWriteTokens = written;
  if (thought > 0) counts.reasoningTokens = thought;
  return counts;
}

/** Where a protocol's usage object keeps each figure: chat's and Responses' differ only in names. */
interface UsageNames {
  prompt: string;
  completion: string;
  promptDetails: string;
  completionDetails: string;
}

const CHAT_NAMES: UsageNames = {
  prompt: 'prompt_tokens',
  completion: 'completion_tokens',
  promptDetails: 'prompt_tokens_details',
  completionDetails: 'completion_tokens_details',
};
const RESPONSES_NAMES: UsageNames = {
  prompt: 'input_tokens',
  completion: 'output_tokens',
  promptDetails: 'input_tokens_details',
  completionDetails: 'output_tokens_details',
};

function usageCounts(usage: unknown, names: UsageNames): TokenCounts {
  const u = isRecord(usage) ? usage : {};
  const prompt = tokenCount(u[names.prompt]);
  const completion = tokenCount(u[names.completion]);
  const total = u.total_tokens === undefined ? prompt + completion : tokenCount(u.total_tokens);
  const counts: TokenCounts = { promptTokens: prompt, completionTokens: completion, totalTokens: Math.max(total, prompt + completion) };
  const promptDetails = u[names.promptDetails];
  return withUsageDetails(
    counts,
    field(promptDetails, 'cached_tokens'),
    field(promptDetails, 'cache_write_tokens'),
    field(u[names.completionDetails], 'reasoning_tokens'),
  );
}

/** The token counts of a chat usage object (prompt_tokens, completion_tokens, total_tokens and their details). */
export const chatUsageCounts = (usage: unknown): TokenCounts => usageCounts(usage, CHAT_NAMES);

/** The token counts of a Responses usage object (input_tokens, output_tokens, total_tokens and their details). */
export const responsesUsageCounts = (usage: unknown): TokenCounts => usageCounts(usage, RESPONSES_NAMES);
