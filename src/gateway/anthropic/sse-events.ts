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

/** A stream rewritten as its text arrives (gateway/stream-relay.ts runs it on each chunk, no stream in between). */
export interface StreamRewrite {
  /** The client's text for the next piece of the upstream's text (empty while an event is incomplete). */
  push(text: string): string;
  /** What the client still gets when the upstream ends. */
  end(): string;
}

/**
 * A stream of the client's own protocol as it came, released an event at a time: the relay redacts what it
 * sends (StreamRelay.redact), and a provider's key cut across two chunks must reach it in one piece. An
 * unfinished event over MAX_FILTERED_EVENT_CHARS throws SseEventTooLarge, as everywhere else.
 */
export function wholeEvents(): StreamRewrite {
  let held = '';
  return {
    push(text) {
      held += text;
      // The end of the last complete event: a blank line, in either of SSE's line endings.
      const end = Math.max(held.lastIndexOf('\n\n') + 2, held.lastIndexOf('\r\n\r\n') + 4, 0);
      if (end === 0) {
        if (held.length > MAX_FILTERED_EVENT_CHARS) throw new SseEventTooLarge();
        return '';
      }
      const out = held.slice(0, end);
      held = held.slice(end);
      return out;
    },
    end() {
      const rest = held;
      held = '';
      return rest;
    },
  };
}

/**
 * A stream rewritten event by event: `onEvent` gets each event's data (the JSON text) and returns the text
 * to send for it; `onEnd` what to send when the upstream ends. An event over MAX_FILTERED_EVENT_CHARS throws
 * SseEventTooLarge (the relay ends the stream there, as chat's filter does).
 */
export function rewriteEvents(onEvent: (data: string) => string, onEnd: () => string): StreamRewrite {
  let out = '';
  let open = 0;
  const parser = createParser({
    onEvent: (event) => {
      out += onEvent(event.data);
    },
  });
  const take = () => {
    const text = out;
    out = '';
    return text;
  };
  return {
    push(text) {
      open = openEventChars(open, text);
      if (open > MAX_FILTERED_EVENT_CHARS) throw new SseEventTooLarge();
      parser.feed(text);
      return take();
    },
    end() {
      return take() + onEnd();
    },
  };
}
