// When the client did not ask for usage in its stream, Conduit still asks the upstream for it (billing
// needs the figures); this takes the extra parts out again so the client sees the stream it asked for:
// the final usage-only chunk is dropped and the `"usage":null` fields OpenAI adds to every chunk removed.
// When the client did ask, the same event-by-event reading adds the request's cost to that usage chunk.
import { withUsageCost } from './answer-cost';

/**
 * The longest event held for filtering (characters). An upstream that never ends a line must not grow the
 * buffer without end (an unterminated 100 MB line took the process from 167 to 901 MB): past this the
 * stream ends with an error, billed for what came (the meter counts the bytes).
 */
export const MAX_FILTERED_EVENT_CHARS = 1024 * 1024;

export class SseEventTooLarge extends Error {
  /** `before`: the filtered events that were complete before the oversized one, still the client's. */
  constructor(readonly before: Uint8Array = new Uint8Array(0)) {
    super(`an upstream event over ${MAX_FILTERED_EVENT_CHARS} characters`);
  }
}

const USAGE_NULL = /,\s*"usage"\s*:\s*null/g;
const EMPTY_CHOICES = /"choices"\s*:\s*\[\s*\]/;
const USAGE_OBJECT = /"usage"\s*:\s*\{/;
/** Where the last complete event of a text ends (after its blank line), or -1 when none is complete. */
function lastEventEnd(text: string): number {
  // Most chunks end at an event's end: no search (a backward search over the text was the filter's largest cost).
  const n = text.length;
  if (n >= 2 && text.charCodeAt(n - 1) === 0x0a && text.charCodeAt(n - 2) === 0x0a) return n;
  for (let i = text.lastIndexOf('\n'); i > 0; i = text.lastIndexOf('\n', i - 1)) {
    let j = i - 1;
    if (text.charCodeAt(j) === 0x0d) j -= 1;
    if (j >= 0 && text.charCodeAt(j) === 0x0a) return i + 1;
  }
  return -1;
}
/** A comma followed by a line break: JSON on one data line never has it, so then events are filtered one by one. */
const COMMA_NEWLINE = /,\s*[\r\n]/;
const EVENT_END = /\r?\n\r?\n/;
const EVENT_END_FROM = /\r?\n\r?\n/g;
const USAGE_OBJECTS = /"usage"\s*:\s*\{/g;

/** Where the event holding `pos` begins: just after the blank line before it, or 0 (`crlf`: the text has CRs). */
function eventStart(text: string, pos: number, crlf: boolean): number {
  const lf = text.lastIndexOf('\n\n', pos);
  if (!crlf) return lf < 0 ? 0 : lf + 2;
  const at = text.lastIndexOf('\n\r\n', pos);
  return Math.max(lf < 0 ? 0 : lf + 2, at < 0 ? 0 : at + 3);
}

/**
 * Complete events without the usage-only ones (`"choices":[]` and a usage object), found from their usage
 * key rather than by cutting every event out: a stream's text is mostly events that stay.
 */
function withoutUsageEvents(text: string): string {
  let out = '';
  let from = 0;
  // A backward search for a CRLF blank line that is not there reads the whole text: only when it has CRs.
  const crlf = text.includes('\r');
  USAGE_OBJECTS.lastIndex = 0;
  for (let match = USAGE_OBJECTS.exec(text); match; match = USAGE_OBJECTS.exec(text)) {
    const start = Math.max(from, eventStart(text, match.index, crlf));
    EVENT_END_FROM.lastIndex = match.index;
    const ending = EVENT_END_FROM.exec(text);
    const end = ending ? ending.index + ending[0].length : text.length;
    if (EMPTY_CHOICES.test(text.slice(start, end))) {
      out += text.slice(from, start);
      from = end;
    }
    USAGE_OBJECTS.lastIndex = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * With `cost`, the filter keeps the stream as the upstream sent it (the client asked for usage) and adds
 * `cost` to the usage object of the event that carries one; the function is asked when that event has
 * passed the meter, so it knows the figures.
 */
const encoder = new TextEncoder();

export function createUsageFilter(options: { cost?: () => string | null; redact?: (text: string) => string } = {}) {
  const annotate = options.cost ?? null;
  const redact = options.redact ?? null;
  /** An error event the upstream sent mid-stream may echo our credentials: it reaches the client without them. */
  const cleaned = (out: string) => (redact !== null && out.includes('"error"') ? redact(out) : out);
  let buffered = '';

  function filterEvent(event: string): string | null {
    if (annotate) {
      if (!USAGE_OBJECT.test(event)) return event;
      const cost = annotate();
      if (cost === null) return event;
      // The data line: first in a chat chunk, after `event: <type>` in a Responses event.
      const at = event.startsWith('data:') ? 0 : event.indexOf('\ndata:') + 1;
      if (at === 0 && !event.startsWith('data:')) return event;
      const newline = event.indexOf('\n', at);
      const end = newline >= 0 ? newline : event.length;
      const data = event.slice(at + 5, end).trimStart();
      return `${event.slice(0, at)}data: ${withUsageCost(data, cost)}${event.slice(end)}`;
    }
    if (event.includes('"usage"')) {
      if (EMPTY_CHOICES.test(event) && USAGE_OBJECT.test(event)) return null;
      return event.replace(USAGE_NULL, '');
    }
    return event;
  }

  return {
    /**
     * Feeds the next text of the stream (decoded by the caller, who shares it with the meter); returns the
     * complete events in it, filtered, as bytes (possibly empty): `bytes` themselves when they pass as
     * they came. Throws SseEventTooLarge when an unfinished event outgrows MAX_FILTERED_EVENT_CHARS.
     */
    push(text: string, bytes: Uint8Array): Uint8Array {
      const whole = buffered === '';
      buffered += text;
      // Everything up to the last event end is complete; the rest waits for more bytes.
      const end = lastEventEnd(buffered);
      if (end < 0) {
        if (buffered.length > MAX_FILTERED_EVENT_CHARS) {
          buffered = '';
          throw new SseEventTooLarge();
        }
        return new Uint8Array(0);
      }
      const complete = buffered.slice(0, end);
      buffered = buffered.slice(end);
      let out: string;
      if (!complete.includes('"usage"') || (annotate && !USAGE_OBJECT.test(complete))) {
        out = complete;
      } else if (!annotate && !COMMA_NEWLINE.test(complete)) {
        // No match can span two events (no comma before a line break): the usage-only events go, then the
        // `"usage":null` fields in one pass.
        out = (USAGE_OBJECT.test(complete) ? withoutUsageEvents(complete) : complete).replace(USAGE_NULL, '');
      } else {
        out = '';
        let rest = complete;
        for (let match = EVENT_END.exec(rest); match; match = EVENT_END.exec(rest)) {
          const end = match.index + match[0].length;
          const kept = filterEvent(rest.slice(0, end));
          if (kept !== null) out += kept;
          rest = rest.slice(end);
        }
      }
      out = cleaned(out);
      // A chunk that brought whole events and an oversized start of the next one (chunks coalesce).
      if (buffered.length > MAX_FILTERED_EVENT_CHARS) {
        buffered = '';
        throw new SseEventTooLarge(out ? encoder.encode(out) : undefined);
      }
      if (whole && buffered === '' && out === text) return bytes;
      return out ? encoder.encode(out) : new Uint8Array(0);
    },
    /** Whatever is left when the upstream ends without a final blank line (`tail`: the decoder's last text). */
    end(tail = ''): Uint8Array {
      const rest = buffered + tail;
      buffered = '';
      if (!rest) return new Uint8Array(0);
      const kept = filterEvent(rest);
      return kept ? encoder.encode(cleaned(kept)) : new Uint8Array(0);
    },
  };
}
