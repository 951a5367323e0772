// Requests per minute per API key, counted in fixed one-minute windows on this instance.
export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

export function createRateLimiter(perMinute: number, now: () => number = () => Date.now()) {
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();
  return {
    check(id: string): RateDecision {
      const t = now();
      const windowStart = t - (t % 60_000);
      if (t - lastSweep > 60_000) {
        for (const [k, w] of windows) if (w.start < windowStart) windows.delete(k);
        lastSweep = t;
      }
      let w = windows.get(id);
      if (!w || w.start !== windowStart) {
        w = { start: windowStart, count: 0 };
        windows.set(id, w);
      }
      if (w.count >= perMinute) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + 60_000 - t) / 1000)) };
      }
      w.count += 1;
      return { allowed: true, retryAfterSeconds: 0 };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
