// Reads an OpenAI chat-completion SSE stream on the side, for billing: the usage figures if the upstream
// sends them, and the completion text to count when it does not. It is fed the same chunks the client
// gets, reads them without keeping or changing them, and never throws: a malformed event is skipped.
//
// Events are framed by eventsource-parser, the SSE parser the OpenAI ecosystem's clients use (lines end in
// LF, CRLF or CR; `data:` lines are joined with LF; an event ends at a blank line; `:` lines are
// comments), so the meter counts what a client could have read; an event cut off before its blank line is
// not counted. It replaced a hand-written byte scanner after both were measured in the real stream path
// (bench/RESULTS.md): the parser works on decoded text with native string search and was faster at every
// chunk size. The 1 MiB cap per event is ours: an event that outgrows it is dropped from the parser's
// buffer, skipped to its end, and billed by its length.
import { createParser } from 'eventsource-parser';
import { createTokenTally } from './tokens';

export interface SseUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** The prompt's parts priced apart (usage-details.ts), when the upstream named them. */
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  /** The completion's reasoning, when the upstream named it. */
  completion_tokens_details?: { reasoning_tokens?: number };
}

export interface SseStreamError {
  message: string;
  type: string | null;
  code: string | null;
}

export interface SseMeter {
  /** Feeds the next bytes of the stream, split anywhere. */
  push(chunk: Uint8Array): void;
  /** The same, for text the caller decoded already (with a streaming decoder); not to be mixed with push(). */
  pushText(text: string): void;
  /** The last usage object seen (providers that report running totals send one per chunk). */
  readonly usage: SseUsage | null;
  /** Generated text: content, refusal and reasoning deltas and tool-call names and arguments; of a long
   * answer only the part not yet counted (completionTokens counts all of it without keeping it). */
  readonly completionText: string;
  /** Tokens of all the generated text. */
  readonly completionTokens: number;
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
  const usage: SseUsage = {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: total ?? (prompt ?? 0) + (completion ?? 0),
  };
  // The details billing prices apart; the others (image, audio tokens: inside prompt_tokens) are not kept.
  const promptDetails = value.prompt_tokens_details;
  if (isRecord(promptDetails)) {
    const cached = tokenCount(promptDetails.cached_tokens);
    const written = tokenCount(promptDetails.cache_write_tokens);
    if (cached !== null || written !== null) {
      usage.prompt_tokens_details = {};
      if (cached !== null) usage.prompt_tokens_details.cached_tokens = cached;
      if (written !== null) usage.prompt_tokens_details.cache_write_tokens = written;
    }
  }
  const completionDetails = value.completion_tokens_details;
  if (isRecord(completionDetails)) {
    const reasoning = tokenCount(completionDetails.reasoning_tokens);
    if (reasoning !== null) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  }
  return usage;
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

/** Where the text's last blank line (the end of an event) ends, or -1 when it has none. */
function lastEventEnd(text: string): number {
  for (let i = text.length - 1; i > 0; i--) {
    const c = text.charCodeAt(i);
    if (c !== 0x0a && c !== 0x0d) continue;
    const p = text.charCodeAt(i - 1);
    // LF LF, CR CR, or CRLF CRLF (seen from its last LF).
    if (p === c || (c === 0x0a && p === 0x0a)) return i + 1;
    if (c === 0x0a && p === 0x0d && i >= 3 && text.charCodeAt(i - 2) === 0x0a && text.charCodeAt(i - 3) === 0x0d) return i + 1;
    if (c === 0x0a && p === 0x0d && i >= 2 && text.charCodeAt(i - 2) === 0x0a) return i + 1;
  }
  return -1;
}

/** Where the first blank line ends, `after` telling whether the text before this one ended a line; -1 when none. */
function firstEventEnd(text: string, afterLineEnd: boolean): number {
  const first = text.charCodeAt(0);
  if (afterLineEnd && (first === 0x0a || first === 0x0d)) return first === 0x0d && text.charCodeAt(1) === 0x0a ? 2 : 1;
  const match = /\r\n\r\n|\n\n|\r\r|\n\r\n|\r\n\n/.exec(text);
  return match ? match.index + match[0].length : -1;
}

const byteLength = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * One stream's meter. A class, not a closure: a meter is made for every streamed request, and its methods and
 * getters then live once on the prototype instead of being made again each time (issue 46's profile of the
 * stream path: making the meter was 40 % of its cost on a short answer). The decoder and the tally are made
 * on first need: the relay feeds decoded text, and the tally counts only when usage is missing.
 */
class StreamMeter implements SseMeter {
  // Not fatal: bytes that are not UTF-8 become U+FFFD instead of an exception.
  private decoder: TextDecoder | null = null;
  /** Characters of the event being read (since the last blank line), for the size cap. */
  private pending = 0;
  /** An event outgrew the cap: its text is skipped (and counted) up to its blank line. */
  private skipping = false;
  /** The last text fed ended in a line break (a blank line may begin across two chunks). */
  private endedInLineBreak = false;
  private seenUsage: SseUsage | null = null;
  /**
   * Payloads not parsed yet. Billing usually needs only the usage figures, which come in one chunk, so
   * the others are parsed only when something else is asked for (or when they outgrow DEFER_BYTES).
   */
  private deferred: string[] = [];
  private deferredBytes = 0;
  private tally: ReturnType<typeof createTokenTally> | null = null;
  private seenDone = false;
  private seenModel: string | null = null;
  private seenFinishReason: string | null = null;
  private seenError: SseStreamError | null = null;
  private seenEvents = 0;
  private seenOversizedBytes = 0;
  private readonly parser = createParser({ onEvent: (event) => this.dispatch(event.data) });

  private get text() {
    this.tally ??= createTokenTally();
    return this.tally;
  }

  private readChoices(choices: unknown) {
    if (!Array.isArray(choices)) return;
    for (const choice of choices) {
      if (!isRecord(choice)) continue;
      if (typeof choice.finish_reason === 'string') this.seenFinishReason = choice.finish_reason;
      this.text.add(generatedText(choice.delta));
    }
  }

  private dispatch(payload: string) {
    // The SDK stops reading at [DONE]; whatever an upstream sends after it, no client sees.
    if (this.seenDone) return;
    this.seenEvents += 1;
    // As the OpenAI SDK does: anything starting [DONE] ends the stream.
    if (payload.startsWith('[DONE]')) {
      this.seenDone = true;
      return;
    }
    this.deferred.push(payload);
    this.deferredBytes += payload.length;
    if (this.deferredBytes > DEFER_BYTES) {
      this.parseDeferred();
    } else if (USAGE_OBJECT.test(payload)) {
      // Kept current at once: the usage figures are what billing reads. The full parse comes later, in order.
      try {
        const chunk = JSON.parse(payload) as ChunkShape;
        const seen = isRecord(chunk) ? readUsage(chunk.usage) : null;
        if (seen) this.seenUsage = seen;
      } catch {
        // Malformed: skipped, as the full parse will skip it.
      }
    }
  }

  private parseDeferred() {
    if (this.deferred.length === 0) return;
    const payloads = this.deferred;
    this.deferred = [];
    this.deferredBytes = 0;
    for (const payload of payloads) this.parsePayload(payload);
  }

  private parsePayload(payload: string) {
    let chunk: ChunkShape;
    try {
      chunk = JSON.parse(payload) as ChunkShape;
    } catch {
      return;
    }
    if (!isRecord(chunk)) return;
    if (this.seenModel === null && typeof chunk.model === 'string') this.seenModel = chunk.model;
    const seen = readUsage(chunk.usage);
    if (seen) this.seenUsage = seen;
    if (chunk.error !== undefined && chunk.error !== null) this.seenError = readError(chunk.error) ?? this.seenError;
    this.readChoices(chunk.choices);
  }

  private feed(input: string) {
    if (input.length === 0) return;
    const parser = this.parser;
    let rest = input;
    if (this.skipping) {
      const end = firstEventEnd(rest, this.endedInLineBreak);
      if (end < 0) {
        this.seenOversizedBytes += byteLength(rest);
        this.endedInLineBreak = /[\r\n]$/.test(rest);
        return;
      }
      this.seenOversizedBytes += byteLength(rest.slice(0, end));
      this.skipping = false;
      this.pending = 0;
      rest = rest.slice(end);
    }
    let end = lastEventEnd(rest);
    if (end >= 0 && this.pending + end > MAX_EVENT_BYTES) {
      // A chunk this large may hold a whole event over the cap: its events are taken one by one.
      for (let next = firstEventEnd(rest, this.endedInLineBreak); next >= 0 && next <= end; next = firstEventEnd(rest, false)) {
        const event = rest.slice(0, next);
        if (this.pending + event.length > MAX_EVENT_BYTES) {
          parser.reset();
          this.seenOversizedBytes += this.pending + byteLength(event);
        } else {
          parser.feed(event);
        }
        this.pending = 0;
        rest = rest.slice(next);
        end -= next;
        if (end === 0) break;
      }
      end = lastEventEnd(rest) >= 0 && end > 0 ? end : -1;
    }
    const open = end >= 0 ? rest.length - end : this.pending + rest.length;
    if (open <= MAX_EVENT_BYTES) {
      parser.feed(rest);
      this.pending = open;
    } else {
      // The open event outgrew the cap: what is complete before it is read, the event itself is dropped
      // (with what the parser had buffered of it) and skipped to its end, billed by its length.
      const complete = end >= 0 ? rest.slice(0, end) : '';
      if (complete) parser.feed(complete);
      parser.reset();
      const tail = end >= 0 ? rest.slice(end) : rest;
      this.seenOversizedBytes += (end >= 0 ? 0 : this.pending) + byteLength(tail);
      this.pending = 0;
      this.skipping = true;
    }
    const last = rest.charCodeAt(rest.length - 1);
    this.endedInLineBreak = last === 0x0a || last === 0x0d;
  }

  push(chunk: Uint8Array) {
    if (chunk.length === 0) return;
    this.decoder ??= new TextDecoder();
    this.feed(this.decoder.decode(chunk, { stream: true }));
  }

  pushText(text: string) {
    this.feed(text);
  }

  get usage() {
    // Usage in a form the quick test missed (an escaped key, say) is still found by the full parse.
    if (this.seenUsage === null) this.parseDeferred();
    return this.seenUsage;
  }

  get completionText() {
    this.parseDeferred();
    return this.tally?.uncounted ?? '';
  }

  get completionTokens() {
    this.parseDeferred();
    return this.tally?.tokens ?? 0;
  }

  get done() {
    return this.seenDone;
  }

  get model() {
    this.parseDeferred();
    return this.seenModel;
  }

  get finishReason() {
    this.parseDeferred();
    return this.seenFinishReason;
  }

  get error() {
    this.parseDeferred();
    return this.seenError;
  }

  get events() {
    return this.seenEvents;
  }

  get oversizedBytes() {
    return this.seenOversizedBytes;
  }
}

export function createSseMeter(): SseMeter {
  return new StreamMeter();
}
