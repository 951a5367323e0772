// A Messages stream rewritten as a chat-completions stream, for a chat client served by an anthropic
// provider: message_start gives the role chunk, text_delta content deltas, a tool_use block a tool call
// (its id and name first, then its input_json_delta pieces as `arguments` deltas, with the tool call's own
// index), thinking reasoning_content; message_stop the finish chunk, then the usage chunk (choices: [],
// dropped again by the relay unless the client asked for usage) and [DONE]. An `error` event becomes
// chat's {"error": …} chunk and ends the stream.
import { finishReasonOf } from './stop-reason';
import { CHAT_DONE, chatEvent, rewriteEvents } from './sse-events';
import { mergeUsage, usageAsChat, type AnthropicUsage } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export function chatStreamOf(model: string): TransformStream<Uint8Array, Uint8Array> {
  let id = `chatcmpl-${crypto.randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  let ended = false;
  let usage: AnthropicUsage | null = null;
  let stopReason: unknown = null;
  /** Messages block index → chat tool-call index, for tool_use blocks. */
  const tools = new Map<number, number>();

  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    chatEvent({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });

  const merge = (value: unknown) => {
    usage = mergeUsage(usage, value);
  };

  const end = (): string => {
    if (ended) return '';
    ended = true;
    let out = chunk({}, finishReasonOf(stopReason) ?? 'stop');
    if (usage) out += chatEvent({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageAsChat(usage) });
    return out + CHAT_DONE;
  };

  function onEvent(data: string): string {
    if (ended) return '';
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return '';
    }
    if (!isRecord(event)) return '';
    switch (event.type) {
      case 'message_start': {
        const message = isRecord(event.message) ? event.message : {};
        if (typeof message.id === 'string') id = `chatcmpl-${message.id}`;
        merge(message.usage);
        return chunk({ role: 'assistant', content: '' });
      }
      case 'content_block_start': {
        const block = isRecord(event.content_block) ? event.content_block : {};
        if (block.type !== 'tool_use' || typeof event.index !== 'number') return '';
        const at = tools.size;
        tools.set(event.index, at);
        return chunk({ tool_calls: [{ index: at, id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: '' } }] });
      }
      case 'content_block_delta': {
        const delta = isRecord(event.delta) ? event.delta : {};
        if (delta.type === 'text_delta' && typeof delta.text === 'string') return chunk({ content: delta.text });
        if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') return chunk({ reasoning_content: delta.thinking });
        if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string' && typeof event.index === 'number') {
          const at = tools.get(event.index);
          if (at === undefined || delta.partial_json === '') return '';
          return chunk({ tool_calls: [{ index: at, function: { arguments: delta.partial_json } }] });
        }
        return '';
      }
      case 'message_delta': {
        const delta = isRecord(event.delta) ? event.delta : {};
        if (delta.stop_reason !== undefined && delta.stop_reason !== null) stopReason = delta.stop_reason;
        merge(event.usage);
        return '';
      }
      case 'message_stop':
        return end();
      case 'error': {
        ended = true;
        const error = isRecord(event.error) ? event.error : {};
        return chatEvent({
          error: { message: typeof error.message === 'string' ? error.message : 'upstream error', type: typeof error.type === 'string' ? error.type : 'api_error' },
        });
      }
      default:
        return '';
    }
  }

  // A stream that ends without message_stop ends the chat stream all the same.
  return rewriteEvents(onEvent, end);
}
