// Usage figures between the two protocols. They differ in kind, not only in name: OpenAI's prompt_tokens
// counts cached prompt tokens inside it (prompt_tokens_details.cached_tokens says how many), Anthropic's
// input_tokens leaves out the tokens read from its cache and those written to it, each given apart.
// Billing counts every prompt token once, in either protocol: input + cache read + cache written, the read and
// written parts priced apart (gateway/usage-details.ts). Chat's name for the written part is OpenRouter's
// prompt_tokens_details.cache_write_tokens.
import type { TokenCounts } from '../stream-relay';
import { withUsageDetails } from '../usage-details';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const count = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null);

/** A Messages usage object as a provider sent it, or null when it holds no figure. */
export function anthropicUsageOf(value: unknown): AnthropicUsage | null {
  if (!isRecord(value)) return null;
  const input = count(value.input_tokens);
  const output = count(value.output_tokens);
  const created = count(value.cache_creation_input_tokens);
  const read = count(value.cache_read_input_tokens);
  if (input === null && output === null && created === null && read === null) return null;
  const usage: AnthropicUsage = { input_tokens: input ?? 0, output_tokens: output ?? 0 };
  if (created !== null) usage.cache_creation_input_tokens = created;
  if (read !== null) usage.cache_read_input_tokens = read;
  return usage;
}

/** A chat usage object's figures, or null when it holds none. */
export function chatUsageOf(value: unknown): ChatUsage | null {
  if (!isRecord(value)) return null;
  const prompt = count(value.prompt_tokens);
  const completion = count(value.completion_tokens);
  if (prompt === null && completion === null) return null;
  const details = isRecord(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const cached = count(details.cached_tokens);
  const written = count(details.cache_write_tokens);
  const reasoning = isRecord(value.completion_tokens_details) ? count(value.completion_tokens_details.reasoning_tokens) : null;
  const usage: ChatUsage = {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: count(value.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
  };
  if (cached !== null || written !== null) {
    usage.prompt_tokens_details = {};
    if (cached !== null) usage.prompt_tokens_details.cached_tokens = cached;
    if (written !== null) usage.prompt_tokens_details.cache_write_tokens = written;
  }
  if (reasoning !== null) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  return usage;
}

/**
 * Every prompt token of a Messages answer once (input, cache read, cache written), as a usage row holds them,
 * the read and written ones as the prompt's parts priced apart.
 */
export function anthropicTokenCounts(usage: AnthropicUsage): TokenCounts {
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  const prompt = usage.input_tokens + read + written;
  return withUsageDetails({ promptTokens: prompt, completionTokens: usage.output_tokens, totalTokens: prompt + usage.output_tokens }, read, written, 0);
}

/** Messages usage in chat's terms: the cached and cache-written tokens inside prompt_tokens, named in its details. */
export function usageAsChat(usage: AnthropicUsage): ChatUsage {
  const prompt = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
  const out: ChatUsage = { prompt_tokens: prompt, completion_tokens: usage.output_tokens, total_tokens: prompt + usage.output_tokens };
  if (usage.cache_read_input_tokens != null || usage.cache_creation_input_tokens != null) {
    out.prompt_tokens_details = {};
    if (usage.cache_read_input_tokens != null) out.prompt_tokens_details.cached_tokens = usage.cache_read_input_tokens;
    if (usage.cache_creation_input_tokens != null) out.prompt_tokens_details.cache_write_tokens = usage.cache_creation_input_tokens;
  }
  return out;
}

/**
 * Chat usage in Messages' terms: the cached and cache-written tokens out of input_tokens, as
 * cache_read_input_tokens and cache_creation_input_tokens (never more than the prompt holds).
 */
export function usageAsAnthropic(usage: ChatUsage): AnthropicUsage {
  const details = usage.prompt_tokens_details;
  const cached = Math.min(details?.cached_tokens ?? 0, usage.prompt_tokens);
  const written = Math.min(details?.cache_write_tokens ?? 0, usage.prompt_tokens - cached);
  const out: AnthropicUsage = { input_tokens: usage.prompt_tokens - cached - written, output_tokens: usage.completion_tokens };
  if (details?.cache_write_tokens !== undefined) out.cache_creation_input_tokens = written;
  if (details?.cached_tokens !== undefined) out.cache_read_input_tokens = cached;
  return out;
}

/**
 * Usage seen so far with a later event's figures: a Messages stream's usage is cumulative, so a figure the
 * event gives replaces the earlier one, and one it leaves out (message_delta often has only output_tokens)
 * keeps it.
 */
export function mergeUsage(previous: AnthropicUsage | null, value: unknown): AnthropicUsage | null {
  const seen = anthropicUsageOf(value);
  if (!seen) return previous;
  const raw = value as Record<string, unknown>;
  return {
    ...previous,
    ...seen,
    input_tokens: raw.input_tokens == null ? (previous?.input_tokens ?? 0) : seen.input_tokens,
    output_tokens: raw.output_tokens == null ? (previous?.output_tokens ?? 0) : seen.output_tokens,
  };
}
