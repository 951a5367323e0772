// The usage of a Messages answer that is not streamed, for billing: the figures the provider reported, or
// the generated text (text, tool inputs, thinking) to count when it reported none; and the answer given the
// tokenizer's figures in that case, as chat's answers get them (answer-cost.ts).
import { countTextTokens } from '../tokens';
import type { TokenCounts } from '../stream-relay';
import { anthropicUsageOf, type AnthropicUsage } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export function readMessagesAnswer(text: string): { usage: AnthropicUsage | null; completionTokens: number } {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    // Not JSON: relayed as it is and billed by its length, as generated text.
    return { usage: null, completionTokens: countTextTokens(text) };
  }
  const usage = isRecord(answer) ? anthropicUsageOf(answer.usage) : null;
  if (usage || !isRecord(answer) || !Array.isArray(answer.content)) return { usage, completionTokens: 0 };
  let generated = '';
  for (const block of answer.content) {
    if (!isRecord(block)) continue;
    for (const piece of [block.text, block.thinking, block.name]) if (typeof piece === 'string') generated += piece;
    if (block.input !== undefined) generated += JSON.stringify(block.input);
  }
  return { usage: null, completionTokens: countTextTokens(generated) };
}

/** A Messages answer without usage, given the billed counts as its usage; any other text as it is. */
export function withMessagesUsage(text: string, counted: TokenCounts): string {
  try {
    const answer = JSON.parse(text) as unknown;
    if (!isRecord(answer) || isRecord(answer.usage)) return text;
    return JSON.stringify({ ...answer, usage: { input_tokens: counted.promptTokens, output_tokens: counted.completionTokens } });
  } catch {
    return text;
  }
}
