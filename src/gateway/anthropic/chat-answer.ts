// A Messages answer (not streamed) as a chat completion, for a chat client served by an anthropic provider:
// text blocks the message's content, tool_use blocks its tool_calls (input as JSON text), stop_reason the
// finish_reason, usage in chat's terms (cached tokens inside prompt_tokens).
import { finishReasonOf } from './stop-reason';
import { anthropicUsageOf, usageAsChat } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The chat completion's text for a Messages answer's text; null when that is not a Messages answer. */
export function chatAnswerOf(text: string, model: string): string | null {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(answer) || !Array.isArray(answer.content)) return null;
  const parts: string[] = [];
  const reasoning: string[] = [];
  const calls: unknown[] = [];
  for (const block of answer.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning.push(block.thinking);
    else if (block.type === 'tool_use') {
      calls.push({ id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: parts.length > 0 ? parts.join('') : null };
  if (reasoning.length > 0) message.reasoning_content = reasoning.join('');
  if (calls.length > 0) message.tool_calls = calls;
  const usage = anthropicUsageOf(answer.usage);
  return JSON.stringify({
    id: `chatcmpl-${typeof answer.id === 'string' ? answer.id : crypto.randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(answer.stop_reason) ?? 'stop' }],
    ...(usage ? { usage: usageAsChat(usage) } : {}),
  });
}
