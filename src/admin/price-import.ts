// Turning the upstream's own prices into ours. OpenRouter lists each model with
// `pricing: {prompt, completion}` in USD per token as decimal strings ("0.000001"); our price table holds
// nano-units of the balance currency per 1M tokens. The operator's multiplier carries both the exchange
// rate and the margin: ours = upstream × 1e6 × multiplier, rounded half up to a whole nano-unit.
// The arithmetic is exact decimal (bigint numerator over a power of ten): per-token prices are tiny and a
// float product would drift in the last digits that the rounding then amplifies.
import type { ModelEntry } from '../gateway';
import { PRICE_PATTERN } from '../pricing/pattern';

/** An exact decimal: digits × 10^-scale (scale may be negative). */
interface Decimal {
  digits: bigint;
  scale: number;
}

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Nano-units per token unit × tokens per million: 1e9 × 1e6. */
const NANO_PER_MILLION_SCALE = 15;
/** Prices above this (per 1M tokens, currency units) are no price anyone means; they stay out of the table. */
export const MAX_PRICE_PER_MILLION_NANO = 1_000_000_000n * 1_000_000_000n;

/** Reads "0.000001", "2", "1e-7" exactly; null for anything else (including an empty string). */
export function parseDecimal(text: string): Decimal | null {
  const match = DECIMAL_TEXT.exec(text.trim());
  if (!match) return null;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  const exp = Number(exponent);
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 100) return null;
  const digits = BigInt(whole! + fraction);
  return { digits: sign === '-' ? -digits : digits, scale: fraction.length - exp };
}

/** A JSON number as the decimal it was written as (its shortest text), not its binary value. */
export function decimalOfNumber(value: number): Decimal | null {
  return Number.isFinite(value) ? parseDecimal(String(value)) : null;
}

/** upstream (per token) × multiplier × 1e15, rounded half up: nano-units per 1M tokens. */
export function perMillionNano(upstream: Decimal, multiplier: Decimal): bigint {
  const numerator = upstream.digits * multiplier.digits;
  const shift = NANO_PER_MILLION_SCALE - upstream.scale - multiplier.scale;
  if (shift >= 0) return numerator * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  const quotient = numerator / divisor;
  return (numerator % divisor) * 2n >= divisor ? quotient + 1n : quotient;
}

/** Why a listed (or asked-for) model is not imported. */
export const SKIP_REASONS = ['no_pricing', 'variable_pricing', 'invalid_id', 'not_found', 'too_expensive'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface ImportCandidate {
  model: string;
  upstreamPrompt: string;
  upstreamCompletion: string;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  /** From the list's `input_cache_read` / `input_cache_write` when it gives them; null: derived by the ratios. */
  cachedPromptNanoPerMillion: bigint | null;
  cacheWriteNanoPerMillion: bigint | null;
}

export interface ImportPlan {
  rows: ImportCandidate[];
  skipped: { model: string; reason: SkipReason }[];
}

function priceText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** What one listed model would cost with us, or why it cannot be imported. */
export function candidateOf(entry: ModelEntry, multiplier: Decimal): ImportCandidate | SkipReason {
  if (!PRICE_PATTERN.test(entry.id) || entry.id.endsWith('*') || entry.id.length > 200) return 'invalid_id';
  const pricing = entry.pricing as { prompt?: unknown; completion?: unknown; input_cache_read?: unknown; input_cache_write?: unknown } | null | undefined;
  if (!pricing || typeof pricing !== 'object') return 'no_pricing';
  const promptText = priceText(pricing.prompt);
  const completionText = priceText(pricing.completion);
  const prompt = promptText === null ? null : parseDecimal(promptText);
  const completion = completionText === null ? null : parseDecimal(completionText);
  if (!prompt || !completion) return 'no_pricing';
  // OpenRouter lists routers whose price depends on the model they pick as -1.
  if (prompt.digits < 0n || completion.digits < 0n) return 'variable_pricing';
  const promptNanoPerMillion = perMillionNano(prompt, multiplier);
  const completionNanoPerMillion = perMillionNano(completion, multiplier);
  if (promptNanoPerMillion > MAX_PRICE_PER_MILLION_NANO || completionNanoPerMillion > MAX_PRICE_PER_MILLION_NANO) {
    return 'too_expensive';
  }
  // OpenRouter's cache prices, where it lists them: taken with the same multiplier; one that is not a price is left to the ratio.
  const cachePrice = (value: unknown): bigint | null => {
    const text = priceText(value);
    const decimal = text === null ? null : parseDecimal(text);
    if (!decimal || decimal.digits < 0n) return null;
    const nano = perMillionNano(decimal, multiplier);
    return nano > MAX_PRICE_PER_MILLION_NANO ? null : nano;
  };
  return {
    model: entry.id,
    upstreamPrompt: promptText!,
    upstreamCompletion: completionText!,
    promptNanoPerMillion,
    completionNanoPerMillion,
    cachedPromptNanoPerMillion: cachePrice(pricing.input_cache_read),
    cacheWriteNanoPerMillion: cachePrice(pricing.input_cache_write),
  };
}

/**
 * The import plan for the upstream's list: every model matching `filter` (a case-insensitive substring of
 * the id), or exactly the `models` asked for (those the list lacks are skipped as not_found).
 */
export function planImport(entries: ModelEntry[], multiplier: Decimal, select: { filter?: string | undefined } | { models: string[] }): ImportPlan {
  const plan: ImportPlan = { rows: [], skipped: [] };
  let chosen: ModelEntry[];
  if ('models' in select) {
    const byId = new Map(entries.map((e) => [e.id, e]));
    chosen = [];
    for (const id of new Set(select.models)) {
      const entry = byId.get(id);
      if (entry) chosen.push(entry);
      else plan.skipped.push({ model: id, reason: 'not_found' });
    }
  } else {
    const needle = select.filter?.toLowerCase();
    chosen = needle ? entries.filter((e) => e.id.toLowerCase().includes(needle)) : entries;
  }
  for (const entry of chosen) {
    const candidate = candidateOf(entry, multiplier);
    if (typeof candidate === 'string') plan.skipped.push({ model: entry.id, reason: candidate });
    else plan.rows.push(candidate);
  }
  return plan;
}
