// One upstream call's cancellation (src/gateway/upstream-call.ts): the sweep that times every call in flight and
// notices a client gone, as the /v1 routes use it. Driven directly: the routes' own tests cover it over HTTP.
import { describe, expect, test } from 'bun:test';
import { ABORT_CLIENT_CLOSED, ABORT_TIMEOUT } from '../../src/gateway/upstream';
import { upstreamCall } from '../../src/gateway/upstream-call';

/** Resolves with the signal's reason when it aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });

describe('upstreamCall', () => {
  test('an upstream silent past the timeout is aborted as a timeout', async () => {
    const call = upstreamCall(null, 100);
    expect(await aborted(call.signal)).toBe(ABORT_TIMEOUT);
    call.cleanup();
  });

  test('every restart times the silence from then: a call that keeps hearing from the upstream runs on', async () => {
    const call = upstreamCall(null, 300);
    const started = performance.now();
    // Three times the timeout, restarted every 30 ms.
    while (performance.now() - started < 900) {
      call.restartTimer();
      await Bun.sleep(30);
      expect(call.signal.aborted).toBe(false);
    }
    // Then silence: the timeout ends it.
    expect(await aborted(call.signal)).toBe(ABORT_TIMEOUT);
    call.cleanup();
  });

  test('a client that leaves aborts the call as closed by the client', async () => {
    const client = new AbortController();
    const call = upstreamCall(client.signal, 60_000);
    client.abort();
    expect(await aborted(call.signal)).toBe(ABORT_CLIENT_CLOSED);
    call.cleanup();
  });

  test('a call cleaned up is neither timed out nor aborted for its client any more', async () => {
    const client = new AbortController();
    const call = upstreamCall(client.signal, 50);
    call.cleanup();
    client.abort();
    await Bun.sleep(300);
    expect(call.signal.aborted).toBe(false);
  });

  test('after stopTimer the call has no timeout, and a client leaving still aborts it', async () => {
    const client = new AbortController();
    const call = upstreamCall(client.signal, 50);
    call.stopTimer();
    await Bun.sleep(300);
    expect(call.signal.aborted).toBe(false);
    client.abort();
    expect(await aborted(call.signal)).toBe(ABORT_CLIENT_CLOSED);
    call.cleanup();
  });

  test('stopTimer then cleanup: the client leaving later aborts nothing', async () => {
    const client = new AbortController();
    const call = upstreamCall(client.signal, 50);
    call.stopTimer();
    call.cleanup();
    client.abort();
    await Bun.sleep(100);
    expect(call.signal.aborted).toBe(false);
  });
});
