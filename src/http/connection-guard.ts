// What one client can hold open: a deadline for a request to arrive, and a cap on the requests one
// address has in flight. Bun.serve has neither a "connection opened/closed" hook nor a body deadline of
// our choosing, so both are built from what it does offer: the per-request idle timer
// (server.timeout) and the fetch call itself. Measured on Bun 1.4 (its uWebSockets core):
//
// - Headers. A new connection whose first request's headers are not complete 8–12 s after it opened is
//   closed by Bun itself (a fixed guard, not configurable, not re-armed by bytes trickling in). On a
//   kept-alive connection the next request's headers have whatever idle timer the previous answer left:
//   `afterAnswer` sets it to the receive deadline.
// - Body. `whileReceiving` arms the request's idle timer with the receive deadline when its headers
//   arrive. A body trickling in does not re-arm it (uWebSockets re-arms only after 16 KiB/s over the
//   period) and its last byte disarms it, so a slow body is cut at the deadline while the time the app
//   then takes (an upstream slow to answer) is not bounded by it. "Cut" means closed without an answer:
//   the timer fires inside Bun, where no 408 can be written. An upload faster than 16 KiB/s is not a
//   slow body; it is bounded by BODY_LIMIT_BYTES.
// - Timer precision. Bun checks its timers every 4 s and fires one at the ceil(seconds / 4)-th check, so
//   up to 4 s early. The timers here are set 4 s longer: nobody is cut before the deadline, a slow body
//   at most 8 s after it.
// - Answer. A streamed answer (SSE) may be quiet for STREAM_IDLE_SECONDS between events: model answers
//   pause, and UPSTREAM_TIMEOUT_MS ends a quiet upstream first. Any other answer gets the receive
//   deadline as its idle timer, which then also bounds the connection's idle time before its next request.
// - In flight per address. Without connection events the cap counts requests, from the arrival of their
//   headers until the app hands back its response: that covers a slow body, the case it is for. A
//   streamed answer stops counting once its headers go out: following it to its end would put a JS stream
//   around every answer, the hot path's largest cost (bench/RESULTS.md); streams are paid for and are
//   bounded by the idle timer instead.
import type { Server } from 'bun';
import { AppError, renderError } from './errors';
import { errorMessages } from './messages';

/** Bun's longest idle timeout: how long a streamed answer may be quiet between events. */
export const STREAM_IDLE_SECONDS = 255;
/** How often Bun checks its timers. */
const TIMER_TICK_SECONDS = 4;

export interface ConnectionGuardOptions {
  receiveTimeoutMs: number;
  /** 0: no cap. */
  maxPerAddress: number;
}

export interface ConnectionGuard {
  /** Called as soon as a request's headers are in: bounds the time its body may take. */
  whileReceiving(server: Server<unknown>, request: Request, declaredLength: string | null): void;
  /** Called with the answer the app gave: sets the idle timer for sending it and for what follows. */
  afterAnswer(server: Server<unknown>, request: Request, response: Response): void;
  /** Counts a request from this address in; false when the address is at its cap (then nothing is counted). */
  enter(addressKey: string): boolean;
  leave(addressKey: string): void;
  /** Whether requests are counted at all (MAX_CONNECTIONS_PER_ADDRESS above 0). */
  readonly counting: boolean;
}

export function createConnectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  // Whole seconds, as Bun's timers count, and one timer tick longer (see "Timer precision" above).
  const receiveSeconds = Math.min(STREAM_IDLE_SECONDS, Math.ceil(options.receiveTimeoutMs / 1000) + TIMER_TICK_SECONDS);
  const max = options.maxPerAddress;
  const counts = new Map<string, number>();

  return {
    counting: max > 0,
    whileReceiving(server, request, declaredLength) {
      // Headers only: touching request.body would make a JS stream of it (bench/RESULTS.md).
      const hasBody = (declaredLength !== null && declaredLength !== '0') || request.headers.has('transfer-encoding');
      if (hasBody) server.timeout(request, receiveSeconds);
    },
    afterAnswer(server, request, response) {
      const streamed = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
      server.timeout(request, streamed ? STREAM_IDLE_SECONDS : receiveSeconds);
    },
    enter(addressKey) {
      const current = counts.get(addressKey) ?? 0;
      if (current >= max) return false;
      counts.set(addressKey, current + 1);
      return true;
    },
    leave(addressKey) {
      const current = counts.get(addressKey) ?? 0;
      if (current <= 1) counts.delete(addressKey);
      else counts.set(addressKey, current - 1);
    },
  };
}

/**
 * The answer to a request over its address's cap: 429 with Retry-After, and the connection closed after
 * it, so a body still arriving stops holding it (Bun closes on `Connection: close` at once).
 */
/** `request` decides the body's shape: OpenAI's on /v1, ours on the dashboard API. */
export function tooManyConnectionsResponse(request: Request): Response {
  return renderError(new AppError('rate_limit_exceeded', errorMessages.tooManyConnections), request, { 'retry-after': '1', connection: 'close' });
}

/**
 * Whether a request failed only because its client is gone: a body cut at the receive deadline (or a
 * hang-up) rejects the read of the body with an AbortError, possibly wrapped, once the request's signal fired.
 */
export function failedByClientLeaving(error: unknown, request: Request): boolean {
  if (!request.signal.aborted) return false;
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if ((current as { name?: unknown }).name === 'AbortError') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
