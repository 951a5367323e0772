// The SSE framing of both protocols' streams, written in one place: Anthropic names each event
// (`event: <type>` before its data), chat completions send bare `data:` lines ending in `data: [DONE]`.
import { createParser } from 'eventsource-parser';
import { MAX_FILTERED_EVENT_CHARS, SseEventTooLarge } from '../usage-filter';

const encoder = new TextEncoder();

/** One Messages stream event. */
export function messagesEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** One chat-completions stream event. */
export function chatEvent(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

export const CHAT_DONE = 'data: [DONE]\n\n';

/** A Messages stream's `error` event, as Anthropic sends one mid-stream. */
export function messagesErrorEvent(message: string, type: string): Uint8Array {
  return encoder.encode(messagesEvent('error', { error: { type, message } }));
}

/**
 * Characters of the event still open after `text` (since its last blank line), `previous` being those before
 * it: an upstream that never ends an event must not grow the parser's buffer without end.
 */
export function openEventChars(previous: number, text: string): number {
  const lf = text.lastIndexOf('\n\n');
  const crlf = text.lastIndexOf('\r\n\r\n');
  if (lf < 0 && crlf < 0) return previous + text.length;
  return Math.min(lf < 0 ? Infinity : text.length - lf - 2, crlf < 0 ? Infinity : text.length - crlf - 4);
}

/**
 * A stream rewritten event by event: `onEvent` gets each event's data (the JSON text) and returns the text
 * to send for it; `onEnd` what to send when the upstream ends. The upstream's breaking off passes through; an event over MAX_FILTERED_EVENT_CHARS breaks the
 * stream off (SseEventTooLarge), as chat's filter does.
 */
export function rewriteEvents(onEvent: (data: string) => string, onEnd: () => string): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let out = '';
  let open = 0;
  const parser = createParser({
    onEvent: (event) => {
      out += onEvent(event.data);
    },
  });
  const flushOut = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (out) controller.enqueue(encoder.encode(out));
    out = '';
  };
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      const text = decoder.decode(chunk, { stream: true });
      open = openEventChars(open, text);
      if (open > MAX_FILTERED_EVENT_CHARS) {
        flushOut(controller);
        controller.error(new SseEventTooLarge());
        return;
      }
      parser.feed(text);
      flushOut(controller);
    },
    flush(controller) {
      parser.feed(decoder.decode());
      out += onEnd();
      flushOut(controller);
    },
  });
}
