// The parts of a request's tokens priced or shown apart (issue 45): prompt tokens the provider read from its
// cache or wrote to it, and the model's reasoning inside the answer. Shown under the token counts, only when
// there are any.
import { formatInt } from '../shared/format';

export interface TokenParts {
  cachedTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** «из кэша 800 · в кэш 20 · рассуждения 150», or null when the request had none of them. */
export function tokenPartsText(r: TokenParts): string | null {
  const parts: string[] = [];
  if (r.cachedTokens > 0) parts.push(`из кэша ${formatInt(r.cachedTokens)}`);
  if (r.cacheWriteTokens > 0) parts.push(`в кэш ${formatInt(r.cacheWriteTokens)}`);
  if (r.reasoningTokens > 0) parts.push(`рассуждения ${formatInt(r.reasoningTokens)}`);
  return parts.length > 0 ? parts.join(' · ') : null;
}
