// Reads a Messages stream on the side, for billing: the usage of message_start and of message_delta
// (cumulative: later figures replace earlier ones), and the generated text (text, tool input pieces,
// thinking) to count when no usage came. It is fed the chunks the client gets and never throws.
import { createParser } from 'eventsource-parser';
import type { RelayMeter } from '../stream-relay';
import { createTokenTally } from '../tokens';
import { MAX_FILTERED_EVENT_CHARS } from '../usage-filter';
import { openEventChars } from './sse-events';
import { mergeUsage, type AnthropicUsage } from './usage';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export interface MessagesMeter extends RelayMeter {
  readonly usage: AnthropicUsage | null;
  readonly completionTokens: number;
  /** Characters of events too large to read (over MAX_FILTERED_EVENT_CHARS), dropped from the parser's buffer. */
  readonly oversizedChars: number;
}

export function createMessagesMeter(): MessagesMeter {
  const decoder = new TextDecoder();
  const text = createTokenTally();
  let usage: AnthropicUsage | null = null;
  let open = 0;
  let oversizedChars = 0;

  const merge = (value: unknown) => {
    usage = mergeUsage(usage, value);
  };

  const parser = createParser({
    onEvent: (event) => {
      let data: unknown;
      try {
        data = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!isRecord(data)) return;
      if (data.type === 'message_start' && isRecord(data.message)) merge(data.message.usage);
      else if (data.type === 'message_delta') merge(data.usage);
      else if (data.type === 'content_block_start' && isRecord(data.content_block) && typeof data.content_block.name === 'string') {
        text.add(data.content_block.name);
      } else if (data.type === 'content_block_delta' && isRecord(data.delta)) {
        const d = data.delta;
        for (const piece of [d.text, d.partial_json, d.thinking]) if (typeof piece === 'string') text.add(piece);
      }
    },
  });

  /** Reads the text, unless its open event has grown past the cap: then that event is dropped (and counted). */
  const feed = (text: string) => {
    open = openEventChars(open, text);
    if (open > MAX_FILTERED_EVENT_CHARS) {
      oversizedChars += open;
      open = 0;
      parser.reset();
      return;
    }
    parser.feed(text);
  };

  return {
    push(chunk) {
      feed(decoder.decode(chunk, { stream: true }));
    },
    pushText: feed,
    get usage() {
      return usage;
    },
    get completionTokens() {
      return text.tokens;
    },
    get oversizedChars() {
      return oversizedChars;
    },
  };
}
