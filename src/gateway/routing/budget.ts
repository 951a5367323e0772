// How many times a minute one caller's requests may go on to another provider after a timeout. A timed-out
// attempt may still be generating (and billing us) at the provider it left, so each such failover can
// cost one more generation; ROUTE_MAX_ATTEMPTS bounds it per request, this per caller (an API key, an
// agent, an account) and minute, per instance. Past it the request ends with the timeout it had.

/** Callers remembered at most; past it the expired windows are dropped. */
const KEPT = 50_000;
const WINDOW_MS = 60_000;

export function createFailoverBudget(perMinute: number) {
  const windows = new Map<string, { start: number; used: number }>();
  return {
    /** Takes one failover for `caller`; false when its minute's budget is spent. */
    take(caller: string, now = Date.now()): boolean {
      let window = windows.get(caller);
      if (!window || now - window.start >= WINDOW_MS) {
        if (!window && windows.size >= KEPT) {
          for (const [who, w] of windows) if (now - w.start >= WINDOW_MS) windows.delete(who);
          if (windows.size >= KEPT) windows.clear();
        }
        window = { start: now, used: 0 };
        windows.set(caller, window);
      }
      if (window.used >= perMinute) return false;
      window.used += 1;
      return true;
    },
  };
}

export type FailoverBudget = ReturnType<typeof createFailoverBudget>;
