// What a /v1 call cost, told in its answer: `usage.cost` (in the balance currency, as OpenRouter puts it in
// every response) and the `x-conduit-cost` header on answers that are not streamed. The figure is the
// settlement's own (billing.settle() returns it), so it is what the ledger charged for the request; only
// when the whole balance could not cover an answer is part of it recorded as unpaid instead.
import { nanoToDecimalString } from '../money';

export const COST_HEADER = 'x-conduit-cost';

/** Nano-units as the exact decimal number the answer carries ("0.000002125"). */
export const costText = (nano: bigint): string => nanoToDecimalString(nano);

/** `"usage": {` as a key: inside a JSON string the quotes would be escaped, so this only matches keys. */
const USAGE_KEY = /"usage"\s*:\s*\{/g;

/**
 * A JSON text with `cost` added to its top-level `usage` object (to `response.usage` for a Responses
 * stream event). One `"usage":{` key in the text — the common case — is spliced without parsing the
 * answer; anything else is parsed and written again. Text that is not a JSON object comes back as it is.
 * With `addUsage`, an answer without usage gets one with these figures (the tokenizer's count).
 */
export function withUsageCost(text: string, cost: string, addUsage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number }): string {
  const matches = text.match(USAGE_KEY);
  if (matches?.length === 1) {
    const at = text.search(USAGE_KEY);
    const open = text.indexOf('{', at) + 1;
    const empty = /^\s*\}/.test(text.slice(open, open + 16));
    return `${text.slice(0, open)}"cost":${cost}${empty ? '' : ','}${text.slice(open)}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return text;
  const root = parsed as Record<string, unknown>;
  const nested = root.response;
  const holder = root.usage === undefined && nested && typeof nested === 'object' && !Array.isArray(nested) ? (nested as Record<string, unknown>) : root;
  const usage = holder.usage;
  if (usage && typeof usage === 'object' && !Array.isArray(usage)) {
    holder.usage = { ...(usage as Record<string, unknown>), cost: Number(cost) };
  } else if (addUsage) {
    holder.usage = { ...addUsage, cost: Number(cost) };
  } else {
    return text;
  }
  return JSON.stringify(parsed);
}
