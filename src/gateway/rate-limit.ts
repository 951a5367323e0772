// Requests per minute per API key, counted in fixed one-minute windows on this instance.
export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
  /** The window's allowance, what is left of it after this request, and when it starts over. */
  limit: number;
  remaining: number;
  resetMs: number;
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
      const resetMs = windowStart + 60_000 - t;
      if (w.count >= perMinute) {
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)), limit: perMinute, remaining: 0, resetMs };
      }
      w.count += 1;
      return { allowed: true, retryAfterSeconds: 0, limit: perMinute, remaining: perMinute - w.count, resetMs };
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * A duration as OpenAI writes it in x-ratelimit-reset-*: `1s`, `6m0s`, `1h2m3s`, `250ms`. The SDKs and
 * tools that pace themselves by it parse exactly this Go-style form.
 */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const total = Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/** The request-limit headers OpenAI sends, for a decision of the per-key limiter. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(decision.limit),
    'x-ratelimit-remaining-requests': String(decision.remaining),
    'x-ratelimit-reset-requests': formatResetDuration(decision.resetMs),
  };
}

// The decision is made deep in authentication; the headers go on whatever answer the route gives at the
// end (the server adds them to every /v1 response), so it is kept beside the request until then.
const decisions = new WeakMap<Request, RateDecision>();

export function rememberRateDecision(request: Request, decision: RateDecision): void {
  decisions.set(request, decision);
}

export function rateDecisionOf(request: Request): RateDecision | undefined {
  return decisions.get(request);
}
