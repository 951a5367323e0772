// Reads an OpenAI chat-completion SSE stream on the side, for billing: the usage figures if the upstream
// sends them, and the completion text to count when it does not. It sees copies of the bytes the client
// gets; it never changes them and never throws on malformed input.
interface ChunkShape {
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  choices?: { delta?: { content?: unknown; tool_calls?: { function?: { arguments?: unknown } }[] } }[];
}

export interface SseMeter {
  push(chunk: Uint8Array): void;
  readonly usage: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
  readonly completionText: string;
  readonly done: boolean;
}

export function createSseMeter(): SseMeter {
  const decoder = new TextDecoder();
  let line = '';
  let usage: SseMeter['usage'] = null;
  const pieces: string[] = [];
  let done = false;

  function onData(data: string) {
    if (data === '[DONE]') {
      done = true;
      return;
    }
    let parsed: ChunkShape;
    try {
      parsed = JSON.parse(data) as ChunkShape;
    } catch {
      return;
    }
    if (parsed.usage && typeof parsed.usage === 'object') usage = parsed.usage;
    if (!Array.isArray(parsed.choices)) return;
    for (const choice of parsed.choices) {
      const delta = choice?.delta;
      if (!delta) continue;
      if (typeof delta.content === 'string') pieces.push(delta.content);
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          const args = call?.function?.arguments;
          if (typeof args === 'string') pieces.push(args);
        }
      }
    }
  }

  function onLine(raw: string) {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.startsWith('data:')) onData(text.slice(text[5] === ' ' ? 6 : 5));
  }

  return {
    push(chunk) {
      const text = decoder.decode(chunk, { stream: true });
      let start = 0;
      for (;;) {
        const newline = text.indexOf('\n', start);
        if (newline < 0) break;
        onLine(line + text.slice(start, newline));
        line = '';
        start = newline + 1;
      }
      line += text.slice(start);
    },
    get usage() {
      return usage;
    },
    get completionText() {
      return pieces.join('');
    },
    get done() {
      return done;
    },
  };
}
