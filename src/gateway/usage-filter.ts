// When the client did not ask for usage in its stream, Conduit still asks the upstream for it (billing
// needs the figures); this takes the extra parts out again so the client sees the stream it asked for:
// the final usage-only chunk is dropped and the `"usage":null` fields OpenAI adds to every chunk removed.
const USAGE_NULL = /,\s*"usage"\s*:\s*null/g;
const EMPTY_CHOICES = /"choices"\s*:\s*\[\s*\]/;
const USAGE_OBJECT = /"usage"\s*:\s*\{/;
const EVENT_END = /\r?\n\r?\n/;

export function createUsageFilter() {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = '';

  function filterEvent(event: string): string | null {
    if (event.includes('"usage"')) {
      if (EMPTY_CHOICES.test(event) && USAGE_OBJECT.test(event)) return null;
      return event.replace(USAGE_NULL, '');
    }
    return event;
  }

  return {
    /** Feeds raw bytes; returns the complete events among them, filtered, as bytes (possibly empty). */
    push(chunk: Uint8Array): Uint8Array {
      buffered += decoder.decode(chunk, { stream: true });
      let out = '';
      for (;;) {
        const match = EVENT_END.exec(buffered);
        if (!match) break;
        const end = match.index + match[0].length;
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end);
        const kept = filterEvent(event);
        if (kept !== null) out += kept;
      }
      return out ? encoder.encode(out) : new Uint8Array(0);
    },
    /** Whatever is left when the upstream ends without a final blank line. */
    end(): Uint8Array {
      const rest = buffered + decoder.decode();
      buffered = '';
      if (!rest) return new Uint8Array(0);
      const kept = filterEvent(rest);
      return kept ? encoder.encode(kept) : new Uint8Array(0);
    },
  };
}
