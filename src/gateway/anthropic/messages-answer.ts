// A chat completion (not streamed) as a Messages answer, for an Anthropic client served by an openai
// provider: the first choice's text a text block, its tool_calls tool_use blocks (arguments parsed into the
// input object), finish_reason the stop_reason, usage in Anthropic's terms (cached tokens apart).
import { toolInputOf } from './messages-request';
import { stopReasonOf } from './stop-reason';
import { chatUsageOf, usageAsAnthropic } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** A Messages id for a chat completion's id (msg_ and the upstream's id, or a new one). */
export function messageIdOf(chatId: unknown): string {
  return `msg_${typeof chatId === 'string' && chatId ? chatId.replace(/^chatcmpl-/, '') : crypto.randomUUID().replaceAll('-', '')}`;
}

/** The Messages answer's text for a chat completion's text; null when that is not a chat completion. */
export function messagesAnswerOf(text: string, model: string): string | null {
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(answer) || !Array.isArray(answer.choices)) return null;
  const choice = isRecord(answer.choices[0]) ? answer.choices[0] : {};
  const message = isRecord(choice.message) ? choice.message : {};
  const content: Record<string, unknown>[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof message.content === 'string' && message.content) content.push({ type: 'text', text: message.content });
  else if (Array.isArray(message.content)) {
    for (const part of message.content) if (isRecord(part) && typeof part.text === 'string') content.push({ type: 'text', text: part.text });
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      content.push({ type: 'tool_use', id: String(call.id ?? ''), name: String(call.function.name ?? ''), input: toolInputOf(call.function.arguments) });
    }
  }
  const usage = chatUsageOf(answer.usage);
  return JSON.stringify({
    id: messageIdOf(answer.id),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(choice.finish_reason) ?? 'end_turn',
    stop_sequence: null,
    // An answer without usage gets the tokenizer's count when it is billed (gateway/chat.ts).
    ...(usage ? { usage: usageAsAnthropic(usage) } : {}),
  });
}
