// A chat-completions stream rewritten as a Messages stream, for an Anthropic client served by an openai
// provider, in Anthropic's exact order: message_start, ping, then per block content_block_start, its
// deltas (text_delta, or input_json_delta carrying a tool call's arguments piece by piece) and
// content_block_stop, then message_delta with the stop_reason and the usage, and message_stop. An error
// the upstream sends mid-stream becomes an `error` event and ends the stream.
import { createTokenTally } from '../tokens';
import { messageIdOf } from './messages-answer';
import type { TokenCounts } from '../stream-relay';
import { messagesEvent, rewriteEvents, type StreamRewrite } from './sse-events';
import { stopReasonOf } from './stop-reason';
import { chatUsageCounts } from '../usage-details';
import { chatUsageOf, usageAsAnthropic, type ChatUsage } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export interface MessagesStreamOptions {
  /** The model the client asked for, named in message_start. */
  model: string;
  /** The prompt's tokens by the tokenizer, for an upstream that reports no usage. */
  estimatePrompt: () => number;
}

export interface MessagesStreamRewrite extends StreamRewrite {
  /** The upstream reported usage (else message_delta carries the tokenizer's count). */
  readonly upstreamUsage: boolean;
  /** The usage the upstream reported, as a usage row counts it; null while none came. */
  readonly counts: TokenCounts | null;
  /** Tokens of the generated text so far, by the tokenizer. */
  readonly completionTokens: number;
}

export function messagesStreamOf(options: MessagesStreamOptions): MessagesStreamRewrite {
  let started = false;
  let ended = false;
  let next = 0;
  /** The block open now: text, or a tool call (by its chat index). */
  let open: { index: number; tool: number | null } | null = null;
  const toolBlocks = new Map<number, number>();
  let finish: unknown = null;
  let usage: ChatUsage | null = null;
  const generated = createTokenTally();

  const start = (id: unknown): string => {
    if (started) return '';
    started = true;
    const message = {
      id: messageIdOf(id),
      type: 'message',
      role: 'assistant',
      model: options.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return messagesEvent('message_start', { message }) + messagesEvent('ping', {});
  };
  const close = (): string => {
    if (!open) return '';
    const out = messagesEvent('content_block_stop', { index: open.index });
    open = null;
    return out;
  };
  const openBlock = (tool: number | null, block: Record<string, unknown>): string => {
    const out = close();
    open = { index: next, tool };
    next += 1;
    return out + messagesEvent('content_block_start', { index: open.index, content_block: block });
  };

  function delta(d: Record<string, unknown>): string {
    let out = '';
    if (typeof d.content === 'string' && d.content) {
      if (open?.tool !== null || !open) out += openBlock(null, { type: 'text', text: '' });
      out += messagesEvent('content_block_delta', { index: open!.index, delta: { type: 'text_delta', text: d.content } });
      generated.add(d.content);
    }
    if (!Array.isArray(d.tool_calls)) return out;
    for (const call of d.tool_calls) {
      if (!isRecord(call)) continue;
      const fn = isRecord(call.function) ? call.function : {};
      const at = typeof call.index === 'number' ? call.index : 0;
      let index = toolBlocks.get(at);
      if (index === undefined) {
        const name = typeof fn.name === 'string' ? fn.name : '';
        out += openBlock(at, { type: 'tool_use', id: String(call.id ?? `toolu_${at}`), name, input: {} });
        index = open!.index;
        toolBlocks.set(at, index);
        generated.add(name);
      }
      if (typeof fn.arguments === 'string' && fn.arguments) {
        out += messagesEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: fn.arguments } });
        generated.add(fn.arguments);
      }
    }
    return out;
  }

  const end = (): string => {
    if (ended) return '';
    ended = true;
    const counted = usage ? usageAsAnthropic(usage) : { input_tokens: options.estimatePrompt(), output_tokens: generated.tokens };
    return (
      start(null) +
      close() +
      messagesEvent('message_delta', { delta: { stop_reason: stopReasonOf(finish) ?? 'end_turn', stop_sequence: null }, usage: counted }) +
      messagesEvent('message_stop', {})
    );
  };

  function onEvent(data: string): string {
    if (ended) return '';
    if (data.startsWith('[DONE]')) return end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      return '';
    }
    if (!isRecord(chunk)) return '';
    if (chunk.error !== undefined && chunk.error !== null) {
      ended = true;
      const error = isRecord(chunk.error) ? chunk.error : { message: String(chunk.error) };
      const message = typeof error.message === 'string' ? error.message : 'upstream error';
      return start(chunk.id) + messagesEvent('error', { error: { type: 'api_error', message } });
    }
    let out = start(chunk.id);
    const seen = chatUsageOf(chunk.usage);
    if (seen) usage = seen;
    const choice = Array.isArray(chunk.choices) && isRecord(chunk.choices[0]) ? chunk.choices[0] : null;
    if (choice) {
      if (isRecord(choice.delta)) out += delta(choice.delta);
      if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
    }
    return out;
  }

  // An upstream that ends without [DONE] after its last chunk has still finished its answer.
  const rewrite = rewriteEvents(onEvent, end);
  return {
    push: rewrite.push,
    end: rewrite.end,
    get upstreamUsage() {
      return usage !== null;
    },
    get counts() {
      // Counted from the provider's own chat usage: its reasoning tokens too, which Messages' usage cannot carry.
      return usage ? chatUsageCounts(usage) : null;
    },
    get completionTokens() {
      return generated.tokens;
    },
  };
}
