// Relays an upstream SSE stream to the client as its bytes arrive, for every streamed /v1 route (chat
// completions, responses). The routes differ in how they read the stream (their meters) and bill it; what
// happens to the bytes is the same and lives here: each chunk restarts the upstream timer, passes the meter
// (and the usage filter, decoded once for both), and goes out; the end, a break, a client leaving and a
// server shutting down each settle the answer exactly once and end the client's stream cleanly.
import type { Logger } from '../logger';
import type { ErrorType } from '../http/errors';
import { errorMessages } from '../http/messages';
import { gatewayMessages } from './texts';
import { costText } from './answer-cost';
import { usageCost, type Billing, type Reservation, type UsageStatus } from './billing';
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT } from './upstream';
import { createUsageFilter, SseEventTooLarge } from './usage-filter';
import type { StreamRewrite } from './anthropic/sse-events';
import { settleAnswer, type RequestFacts } from './settlement';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const encoder = new TextEncoder();

export function sseError(message: string, type: string): Uint8Array {
  return new TextEncoder().encode(`data: ${JSON.stringify({ error: { message, type } })}\n\n`);
}

const NOT_YET = Symbol('not yet');
/** What a stream's first reads may gather before the relay hands the rest to the client's pace. */
const HEAD_MAX_BYTES = 1024 * 1024;
/** A few microtask turns: long enough for a read of bytes already received to resolve, too short to wait for the network. */
const MICROTASK_TURNS = 4;

/** The read's result if it is already available, NOT_YET if it would have to wait for the upstream. */
function alreadySettled<T>(promise: Promise<T>): Promise<T | typeof NOT_YET> {
  let timer: Promise<typeof NOT_YET> = Promise.resolve(NOT_YET);
  for (let i = 1; i < MICROTASK_TURNS; i++) timer = timer.then((v) => v);
  return Promise.race([promise, timer]);
}

/** A route's reader of the stream on the side (usage, generated text); it never throws. */
export interface RelayMeter {
  push(chunk: Uint8Array): void;
  /** The same bytes decoded already (with a streaming decoder), when the filter needs the text too. */
  pushText(text: string): void;
}

/** Token counts of an answer, as a usage row holds them (the parts priced or shown apart: usage-details.ts). */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of promptTokens, read from the provider's cache. */
  cachedTokens?: number;
  /** Of promptTokens, written to the provider's cache. */
  cacheWriteTokens?: number;
  /** Of completionTokens, the model's reasoning. */
  reasoningTokens?: number;
}

export interface StreamRelay {
  /** The route, as the time-to-first-token metric names it. */
  endpoint: 'chat' | 'responses' | 'messages';
  base: RequestFacts;
  started: number;
  billing: Pick<Billing, 'settle'>;
  reservation: Reservation;
  meter: RelayMeter;
  /** The usage the upstream reported so far (the meter's figures in the route's field names), or null. */
  reported: () => TokenCounts | null;
  /** What the stream is billed for when the upstream reported no usage: the tokenizer's count of what came. */
  estimated: () => TokenCounts;
  /**
   * strip: take out the usage Conduit asked for; cost: the client asked for usage, add its cost to it;
   * null: the bytes pass as they came.
   */
  filter: 'strip' | 'cost' | null;
  /**
   * The upstream's stream in the client's protocol (a provider of the other protocol, gateway/anthropic/): run
   * on each chunk's text before the meter and the filter see it; null: the bytes are the client's already.
   */
  rewrite?: StreamRewrite | null;
  /** The error event the client's protocol sends when the stream breaks off (default: chat's `data: {"error": …}`). */
  errorEvent?: (message: string, type: ErrorType) => Uint8Array;
  /** Takes the answering provider's key out of error events (Upstream.redact). */
  redact: (text: string) => string;
  /** The upstream call: aborted with ABORT_CLIENT_CLOSED when the client goes, with ABORT_TIMEOUT by its timer. */
  call: { abort: AbortController; restartTimer: () => void; cleanup: () => void };
  /** How an event over the filter's cap is recorded (the stream ends there either way). */
  tooLargeStatus: UsageStatus;
  /**
   * After each chunk has passed the meter, before its bytes reach the client: a promise to wait for, or null
   * (the responses route records a new response id here so that a GET the client makes at once finds it).
   */
  afterChunk?: () => Promise<void> | null;
  /** Registers the shutdown ending of a running stream; returns its removal. */
  track: (end: () => void) => () => void;
  logger: Logger;
  observer?: { upstreamDropped(): void; firstToken(endpoint: string, seconds: number): void };
}

/**
 * The client's response for an upstream stream. Bytes that have already arrived are taken at once, without
 * waiting for more: when that is the whole answer (a short or cached one), it goes out as one body instead
 * of through a relay stream, which costs far more per request. No byte waits for a later one either way.
 */
export async function relayStream(upstreamBody: ReadableStream<Uint8Array>, ctx: StreamRelay): Promise<Response> {
  const { meter, logger, observer, afterChunk, call } = ctx;
  const filter =
    ctx.filter === 'strip'
      ? createUsageFilter({ redact: ctx.redact })
      : ctx.filter === 'cost'
        ? createUsageFilter({
            redact: ctx.redact,
            cost: () => {
              const reported = ctx.reported();
              return reported ? costText(usageCost(ctx.reservation.price, reported).totalNano) : null;
            },
          })
        : null;
  const reader = upstreamBody.getReader();
  const decoder = new TextDecoder();
  const errorEvent = ctx.errorEvent ?? sseError;
  const rewrite = ctx.rewrite ?? null;
  let finished = false;
  let untrack: (() => void) | null = null;

  /** Bills the answer from what the meter read; once, however the stream ends. */
  const finish = (status: UsageStatus, error: string | null = null) => {
    if (finished) return;
    finished = true;
    untrack?.();
    call.cleanup();
    const reported = ctx.reported();
    settleAnswer(ctx.billing, logger, ctx.reservation, {
      ...ctx.base,
      ...(reported ?? ctx.estimated()),
      status,
      usageSource: reported ? 'upstream' : 'tokenizer',
      upstreamStatus: 200,
      error,
      durationMs: Math.round(performance.now() - ctx.started),
    });
  };

  // A client that goes away stops the upstream at once and pays for what it was sent. While the first reads
  // run, the rejected read says so (below); the listener is added only for a stream that outlives them: most
  // short answers end there, and adding it was 1 % of the stream path's CPU (issue 46's profile).
  const signal = call.abort.signal;
  const clientGone = () => {
    if (signal.reason !== ABORT_CLIENT_CLOSED) return false;
    reader.cancel().catch(() => {});
    finish('client_closed', 'client closed the stream');
    return true;
  };

  /** What the client gets of one upstream chunk (possibly nothing yet: the filter holds partial events). */
  const take = (value: Uint8Array): Uint8Array => {
    call.restartTimer();
    if (rewrite) return rewritten(rewrite.push(decoder.decode(value, { stream: true })));
    if (!filter) {
      meter.push(value);
      return value;
    }
    // Decoded once for both readers.
    const text = decoder.decode(value, { stream: true });
    meter.pushText(text);
    return filter.push(text, value);
  };
  /**
   * Rewritten text as the client gets it, past the meter and the filter. Without a filter (which redacts
   * what it passes) the provider's key is taken out here: rewrites release whole events, so a key is never
   * split between two pieces.
   */
  const rewritten = (out: string): Uint8Array => {
    const text = filter || !out.includes('error') ? out : ctx.redact(out);
    meter.pushText(text);
    const bytes = encoder.encode(text);
    return filter ? filter.push(text, bytes) : bytes;
  };
  /** What the shared decoder still holds when the stream ends (a cut character), for both readers. */
  const decoderTail = (): string => {
    // A rewritten stream's cut character is the upstream's, not the client's text.
    if (rewrite) return '';
    const tail = decoder.decode();
    if (tail) meter.pushText(tail);
    return tail;
  };
  /** The upstream ended the stream: bill it, and release what the filter still holds. */
  const ending = (): Uint8Array | null => {
    const last = rewrite ? rewritten(rewrite.push(decoder.decode()) + rewrite.end()) : null;
    const held = filter ? filter.end(decoderTail()) : null;
    const rest = last && held ? Buffer.concat([last, held]) : (last ?? held);
    finish('ok');
    return rest && rest.byteLength > 0 ? rest : null;
  };
  /** The upstream broke off (dropped, timed out, an event over the cap): bill what came, and tell the client. */
  const broken = (error: unknown): Uint8Array[] => {
    const timedOut = signal.reason === ABORT_TIMEOUT;
    const status: UsageStatus = timedOut ? 'upstream_timeout' : error instanceof SseEventTooLarge ? ctx.tooLargeStatus : 'upstream_dropped';
    observer?.upstreamDropped();
    logger.warn('upstream stream ended abnormally', { requestId: ctx.base.requestId, status, error });
    // The upstream may still be sending (an event over the filter's cap): it is stopped.
    reader.cancel().catch(() => {});
    const out: Uint8Array[] = [];
    if (error instanceof SseEventTooLarge && error.before.byteLength > 0) out.push(error.before);
    if (filter) out.push(filter.end(decoderTail()));
    out.push(errorEvent(timedOut ? errorMessages.upstreamTimeout : errorMessages.upstreamError, timedOut ? 'upstream_timeout' : 'upstream_error'));
    finish(status, error instanceof Error ? error.message.slice(0, 200) : 'stream failed');
    return out;
  };

  type ReadResult = Awaited<ReturnType<typeof reader.read>>;
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let next: Promise<ReadResult> | null = reader.read();
  let whole = false;
  try {
    let result = await next;
    for (;;) {
      if (result.done) {
        const rest = ending();
        if (rest) head.push(rest);
        whole = true;
        break;
      }
      const out = take(result.value);
      const pending = afterChunk?.();
      if (pending) await pending;
      if (out.byteLength > 0) head.push(out);
      headBytes += out.byteLength;
      next = reader.read();
      // An upstream faster than the client is read as the client takes it, not held here.
      if (headBytes > HEAD_MAX_BYTES) break;
      const now = await alreadySettled(next);
      if (now === NOT_YET) break;
      result = now;
    }
  } catch (error) {
    if (!finished && !clientGone()) head.push(...broken(error));
    whole = true;
  }
  let firstSent = false;
  const sentFirst = () => {
    if (firstSent) return;
    firstSent = true;
    observer?.firstToken(ctx.endpoint, (performance.now() - ctx.started) / 1000);
  };
  if (whole || head.length > 0) sentFirst();
  if (whole) {
    const bytes = head.length === 1 ? head[0]! : Buffer.concat(head);
    return new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: SSE_HEADERS });
  }
  if (signal.aborted) clientGone();
  else signal.addEventListener('abort', clientGone, { once: true });

  /** The upstream broke off mid-stream: what is left goes to the client, and its stream ends. */
  const endBroken = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    if (finished) return;
    const tail = broken(error);
    try {
      for (const part of tail) controller.enqueue(part);
      controller.close();
    } catch {
      // The client is gone as well.
    }
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of head) controller.enqueue(part);
      // The server is going away with this stream still running: the client gets an SSE error event and
      // a clean end instead of a reset connection, and pays for what it was sent.
      untrack = ctx.track(() => {
        if (finished) return;
        finish('server_shutdown', 'the server shut down during the stream');
        reader.cancel().catch(() => {});
        try {
          if (filter) controller.enqueue(filter.end(decoderTail()));
          controller.enqueue(errorEvent(gatewayMessages.serverShuttingDown, 'service_unavailable'));
          controller.close();
        } catch {
          // The client is gone as well.
        }
      });
    },
    async pull(controller) {
      // Until something reaches the client or the stream ends: a pull that enqueues nothing is not asked again.
      for (;;) {
        let chunk: ReadResult;
        try {
          chunk = await (next ?? reader.read());
          next = null;
        } catch (error) {
          next = null;
          return endBroken(controller, error);
        }
        if (chunk.done) {
          const rest = ending();
          if (rest) controller.enqueue(rest);
          controller.close();
          return;
        }
        let out: Uint8Array;
        try {
          out = take(chunk.value);
        } catch (error) {
          // An event over the filter's cap: the stream ends here, billed for what came.
          return endBroken(controller, error);
        }
        const pending = afterChunk?.();
        if (pending) await pending;
        if (out.byteLength > 0) {
          sentFirst();
          controller.enqueue(out);
          return;
        }
      }
    },
    cancel() {
      call.abort.abort(ABORT_CLIENT_CLOSED);
    },
  });

  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
