// One upstream call's cancellation and timeout, every call in flight looked over by one sweep.
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT } from './upstream';

/** How often the upstream calls in flight are looked over: a timeout fires, and a client gone is seen, this late at most. */
const UPSTREAM_SWEEP_MS = 50;

interface WatchedCall {
  abort: AbortController;
  client: AbortSignal | null;
  /** performance.now() past which the upstream has been silent too long. */
  deadline: number;
}

/**
 * Every upstream call in flight in this process, looked over by one timer instead of a timer and an abort
 * listener each: creating, clearing and firing those was ~3 % of a plain request's CPU, and a stream
 * moves its deadline with every chunk. The timer runs only while calls are in flight.
 */
const watched = new Set<WatchedCall>();
let sweeper: ReturnType<typeof setInterval> | null = null;

function sweepUpstreamCalls() {
  if (watched.size === 0) {
    clearInterval(sweeper!);
    sweeper = null;
    return;
  }
  const now = performance.now();
  for (const call of watched) {
    if (call.client?.aborted) {
      watched.delete(call);
      call.abort.abort(ABORT_CLIENT_CLOSED);
    } else if (now >= call.deadline) {
      watched.delete(call);
      call.abort.abort(ABORT_TIMEOUT);
    }
  }
}

/**
 * One upstream call's cancellation: the client leaving aborts it, and so does silence longer than the
 * upstream timeout (restartable, so a stream is timed per chunk, not as a whole), both within
 * UPSTREAM_SWEEP_MS. cleanup() when the call is over; a call nobody cleans up leaves the sweep at its
 * deadline at the latest.
 */
export function upstreamCall(clientSignal: AbortSignal | null, timeoutMs: number) {
  const abort = new AbortController();
  const call: WatchedCall = { abort, client: clientSignal, deadline: performance.now() + timeoutMs };
  watched.add(call);
  if (!sweeper) {
    sweeper = setInterval(sweepUpstreamCalls, UPSTREAM_SWEEP_MS);
    sweeper.unref?.();
  }
  let onClientGone: (() => void) | null = null;
  return {
    abort,
    signal: abort.signal,
    /**
     * The answer has come and the client times the rest: the call leaves the sweep, which would otherwise
     * hold it for as long as nothing ends it, and a client leaving still aborts it, through a listener that
     * lives as long as the request does (a rare path: a stored response fetched back).
     */
    stopTimer() {
      if (!watched.delete(call) || !clientSignal) return;
      onClientGone = () => abort.abort(ABORT_CLIENT_CLOSED);
      clientSignal.addEventListener('abort', onClientGone, { once: true });
    },
    /** The upstream spoke: its silence is timed from now. */
    restartTimer() {
      call.deadline = performance.now() + timeoutMs;
    },
    cleanup() {
      watched.delete(call);
      if (onClientGone) clientSignal?.removeEventListener('abort', onClientGone);
    },
  };
}
