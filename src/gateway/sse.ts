// Reads an OpenAI chat-completion SSE stream on the side, for billing: the usage figures if the upstream
// sends them, and the completion text to count when it does not. It is fed the same chunks the client
// gets, reads them without keeping or changing them, and never throws: a malformed event is skipped.
//
// Events are framed as the OpenAI SDK frames them (lines end in LF, CRLF or CR; `data:` lines are joined
// with LF; an event ends at a blank line; `:` lines are comments), so the meter counts what a client
// could have read. For the same reason an event cut off before its blank line is not counted.

export interface SseUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface SseStreamError {
  message: string;
  type: string | null;
  code: string | null;
}

export interface SseMeter {
  /** Feeds the next bytes of the stream, split anywhere. */
  push(chunk: Uint8Array): void;
  /** The last usage object seen (providers that report running totals send one per chunk). */
  readonly usage: SseUsage | null;
  /** Generated text: content, refusal and reasoning deltas and tool-call names and arguments. */
  readonly completionText: string;
  /** `data: [DONE]` was seen. */
  readonly done: boolean;
  /** The model named by the first chunk that names one. */
  readonly model: string | null;
  /** The last finish_reason seen, null while the answer is unfinished. */
  readonly finishReason: string | null;
  /** An error the upstream sent as an event after the stream had started. */
  readonly error: SseStreamError | null;
  /** Events with data, [DONE] included. */
  readonly events: number;
  /** Bytes of data in events too large to parse: still generated, so still billed (by their length). */
  readonly oversizedBytes: number;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

/**
 * A longer line or event is dropped rather than buffered: OpenAI's chunks are a few hundred bytes, and
 * an upstream that never ends a line must not grow our memory.
 */
const MAX_EVENT_BYTES = 1024 * 1024;

/** Unparsed payloads kept at most (characters) before they are parsed anyway. */
const DEFER_BYTES = 64 * 1024;

/** A payload that may carry usage figures (not `"usage":null`). */
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

interface ChunkShape {
  model?: unknown;
  usage?: unknown;
  error?: unknown;
  choices?: unknown;
}

interface DeltaShape {
  content?: unknown;
  refusal?: unknown;
  reasoning?: unknown;
  reasoning_content?: unknown;
  tool_calls?: unknown;
  function_call?: unknown;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : null;
}

function readUsage(value: unknown): SseUsage | null {
  if (!isRecord(value)) return null;
  const prompt = tokenCount(value.prompt_tokens);
  const completion = tokenCount(value.completion_tokens);
  const total = tokenCount(value.total_tokens);
  if (prompt === null && completion === null && total === null) return null;
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: total ?? (prompt ?? 0) + (completion ?? 0),
  };
}

function readError(value: unknown): SseStreamError | null {
  if (typeof value === 'string') return { message: value, type: null, code: null };
  if (!isRecord(value)) return null;
  return {
    message: typeof value.message === 'string' ? value.message : 'upstream error',
    type: typeof value.type === 'string' ? value.type : null,
    code: typeof value.code === 'string' || typeof value.code === 'number' ? String(value.code) : null,
  };
}

/**
 * The generated text of a message or a stream delta (the same fields): content, refusal, reasoning
 * (OpenRouter's `reasoning`, DeepSeek's `reasoning_content`, both billed as output), and tool-call and
 * legacy function-call names and arguments. Whatever a model generated is counted when usage is missing.
 */
export function generatedText(message: unknown): string {
  if (!isRecord(message)) return '';
  const m = message as DeltaShape;
  let text = '';
  const add = (value: unknown) => {
    if (typeof value === 'string' && value) text += value;
  };
  if (Array.isArray(m.content)) {
    // A content array (some providers answer in parts): its text parts.
    for (const part of m.content) if (isRecord(part)) add(part.text);
  } else add(m.content);
  add(m.refusal);
  add(m.reasoning);
  add(m.reasoning_content);
  if (Array.isArray(m.tool_calls)) {
    for (const call of m.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      add(call.function.name);
      add(call.function.arguments);
    }
  }
  if (isRecord(m.function_call)) {
    add(m.function_call.name);
    add(m.function_call.arguments);
  }
  return text;
}

export function createSseMeter(): SseMeter {
  // Not fatal: bytes that are not UTF-8 become U+FFFD instead of an exception.
  const decoder = new TextDecoder();
  /** Bytes of a line begun in earlier chunks, copied because the caller may reuse its buffers. */
  const carry: Uint8Array[] = [];
  let carrySize = 0;
  /** The line being read outgrew the limit; its bytes are ignored up to its end. */
  let skipLine = false;
  /** The previous chunk ended in CR, so an LF starting this one ends no further line. */
  let pendingLf = false;
  /** The data lines of the event being read, joined with LF; null before its first data line. */
  let data: string | null = null;
  let eventBytes = 0;
  /** Part of the current event was dropped for size; the whole event is then skipped. */
  let dropEvent = false;

  let usage: SseUsage | null = null;
  /**
   * Payloads not parsed yet. Billing usually needs only the usage figures, which come in one chunk, so
   * the others are parsed only when something else is asked for (or when they outgrow DEFER_BYTES).
   */
  let deferred: string[] = [];
  let deferredBytes = 0;
  let text = '';
  let done = false;
  let model: string | null = null;
  let finishReason: string | null = null;
  let error: SseStreamError | null = null;
  let events = 0;

  let oversizedBytes = 0;

  function readChoices(choices: unknown) {
    if (!Array.isArray(choices)) return;
    for (const choice of choices) {
      if (!isRecord(choice)) continue;
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      text += generatedText(choice.delta);
    }
  }

  function dispatch() {
    const payload = data;
    const dropped = dropEvent;
    const size = eventBytes;
    data = null;
    eventBytes = 0;
    dropEvent = false;
    // The SDK stops reading at [DONE]; whatever an upstream sends after it, no client sees.
    if (done) return;
    if (dropped) {
      // Too large to keep, but the client got it: billed by its length when usage is missing.
      oversizedBytes += size;
      return;
    }
    if (payload === null) return;
    events += 1;
    // As the OpenAI SDK does: anything starting [DONE] ends the stream.
    if (payload.startsWith('[DONE]')) {
      done = true;
      return;
    }
    deferred.push(payload);
    deferredBytes += payload.length;
    if (deferredBytes > DEFER_BYTES) {
      parseDeferred();
    } else if (USAGE_OBJECT.test(payload)) {
      // Kept current at once: the usage figures are what billing reads. The full parse comes later, in order.
      try {
        const chunk = JSON.parse(payload) as ChunkShape;
        const seen = isRecord(chunk) ? readUsage(chunk.usage) : null;
        if (seen) usage = seen;
      } catch {
        // Malformed: skipped, as the full parse will skip it.
      }
    }
  }

  function parseDeferred() {
    if (deferred.length === 0) return;
    const payloads = deferred;
    deferred = [];
    deferredBytes = 0;
    for (const payload of payloads) parsePayload(payload);
  }

  function parsePayload(payload: string) {
    let chunk: ChunkShape;
    try {
      chunk = JSON.parse(payload) as ChunkShape;
    } catch {
      return;
    }
    if (!isRecord(chunk)) return;
    if (model === null && typeof chunk.model === 'string') model = chunk.model;
    const seen = readUsage(chunk.usage);
    if (seen) usage = seen;
    if (chunk.error !== undefined && chunk.error !== null) error = readError(chunk.error) ?? error;
    readChoices(chunk.choices);
  }

  /** One complete line, `bytes[start, end)` without its terminator. */
  function onLine(bytes: Uint8Array, start: number, end: number) {
    if (start === end) {
      dispatch();
      return;
    }
    // Only the `data` field matters here; comments, `event`, `id` and `retry` are skipped unread.
    if (
      end - start < 4 ||
      bytes[start] !== 0x64 ||
      bytes[start + 1] !== 0x61 ||
      bytes[start + 2] !== 0x74 ||
      bytes[start + 3] !== 0x61
    ) {
      return;
    }
    let from = start + 4;
    if (from < end) {
      if (bytes[from] !== COLON) return; // a field such as `datum`
      from += 1;
      if (from < end && bytes[from] === SPACE) from += 1;
    }
    eventBytes += end - from + 1;
    if (eventBytes > MAX_EVENT_BYTES) dropEvent = true;
    if (dropEvent) return;
    const value = from < end ? decoder.decode(bytes.subarray(from, end)) : '';
    data = data === null ? value : `${data}\n${value}`;
  }

  function endLine(chunk: Uint8Array, start: number, end: number) {
    if (skipLine) {
      eventBytes += end - start;
      skipLine = false;
      carry.length = 0;
      carrySize = 0;
      return;
    }
    if (carrySize === 0) {
      onLine(chunk, start, end);
      return;
    }
    const joined = new Uint8Array(carrySize + (end - start));
    let offset = 0;
    for (const part of carry) {
      joined.set(part, offset);
      offset += part.length;
    }
    joined.set(chunk.subarray(start, end), offset);
    carry.length = 0;
    carrySize = 0;
    onLine(joined, 0, joined.length);
  }

  function keepTail(chunk: Uint8Array, start: number) {
    if (skipLine) {
      eventBytes += chunk.length - start;
      return;
    }
    carrySize += chunk.length - start;
    if (carrySize > MAX_EVENT_BYTES) {
      eventBytes += carrySize;
      // Whatever the line was, the event it belongs to can no longer be read whole.
      skipLine = true;
      dropEvent = true;
      carry.length = 0;
      carrySize = 0;
      return;
    }
    carry.push(chunk.slice(start));
  }

  return {
    push(chunk) {
      const length = chunk.length;
      if (length === 0) return;
      let i = 0;
      if (pendingLf) {
        pendingLf = false;
        if (chunk[0] === LF) i = 1;
      }
      let lineStart = i;
      for (; i < length; i++) {
        const byte = chunk[i];
        if (byte !== LF && byte !== CR) continue;
        endLine(chunk, lineStart, i);
        if (byte === CR) {
          if (i + 1 === length) pendingLf = true;
          else if (chunk[i + 1] === LF) i += 1;
        }
        lineStart = i + 1;
      }
      if (lineStart < length) keepTail(chunk, lineStart);
    },
    get usage() {
      // Usage in a form the quick test missed (an escaped key, say) is still found by the full parse.
      if (usage === null) parseDeferred();
      return usage;
    },
    get completionText() {
      parseDeferred();
      return text;
    },
    get done() {
      return done;
    },
    get model() {
      parseDeferred();
      return model;
    },
    get finishReason() {
      parseDeferred();
      return finishReason;
    },
    get error() {
      parseDeferred();
      return error;
    },
    get events() {
      return events;
    },
    get oversizedBytes() {
      return oversizedBytes;
    },
  };
}
