// OpenAI's rate-limit contract on /v1: requests per minute (rpm), tokens per minute (tpm) and requests per
// UTC day (rpd), per API key (its own numbers, else RATE_LIMIT_PER_MINUTE, RATE_LIMIT_TOKENS_PER_MINUTE,
// RATE_LIMIT_PER_DAY) and per account, all its keys together (RATE_LIMIT_PER_USER_*). Each is counted
// across instances by rate-window.ts. A request is admitted when every limit that applies has room: its
// requests are counted on admission, its tokens when it settles (rate-window.ts says why). The answer's
// x-ratelimit-* headers show the tightest request limit and the tightest token limit.
import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Logger } from '../logger';
import { createWindowCounter, DAY_MS, giveBack, MINUTE_MS, readWindow, type RateWindow, type WindowCounter, type WindowReading } from './rate-window';
import type { RateLimitWords } from './texts';

/** A key's own numbers (null: the default); see keys' KeyRates. */
export interface KeyRateLimits {
  rpm: number | null;
  tpm: number | null;
  rpd: number | null;
}

/** The limit that refused a request, and when it starts over. */
export interface RateRefusal extends RateLimitWords {
  limit: number;
  retryAfterSeconds: number;
}

/** Where a request stands with every limit that applies to it (kept beside the request for its headers). */
export interface RateStanding {
  refused: RateRefusal | null;
  /** The windows of the limits that apply, request limits first. */
  windows: RateWindow[];
}

/** What the headers say of a kind no limit applies to: a number every client parses, and nothing to wait for. */
export const UNLIMITED = 2_147_483_647;
const UNLIMITED_READING: WindowReading = { limit: UNLIMITED, remaining: UNLIMITED, resetMs: 0 };

export type RateLimitDefaults = Pick<
  Config,
  'rateLimitPerMinute' | 'rateLimitTokensPerMinute' | 'rateLimitPerDay' | 'rateLimitPerUserPerMinute' | 'rateLimitPerUserTokensPerMinute' | 'rateLimitPerUserPerDay'
>;

export interface RateLimiterOptions {
  defaults: RateLimitDefaults;
  db: Database;
  logger: Logger;
  now?: () => number;
}

interface Check extends RateLimitWords {
  counter: WindowCounter;
  amount: 0 | 1;
}

export function createRateLimiter({ defaults, db, logger, now = () => Date.now() }: RateLimiterOptions) {
  const counter = (table: Parameters<typeof createWindowCounter>[0]['place']['table'], count: 'used' | 'tokens') => {
    const day = table.includes('day');
    return createWindowCounter({
      place: { table, owner: table.includes('user') ? 'user_id' : 'api_key_id', window: day ? 'window_day' : 'window_minute', count },
      spanMs: day ? DAY_MS : MINUTE_MS,
      db,
      logger,
      now,
    });
  };
  const keyMinute = counter('rate_limit_windows', 'used');
  const keyDay = counter('rate_limit_day_windows', 'used');
  const keyTokens = counter('rate_limit_windows', 'tokens');
  const userMinute = counter('rate_limit_user_windows', 'used');
  const userDay = counter('rate_limit_user_day_windows', 'used');
  const userTokens = counter('rate_limit_user_windows', 'tokens');
  // Requests first (counted, given back if a later limit refuses), tokens last (only asked).
  const checks: Check[] = [
    { counter: keyMinute, amount: 1, name: 'rpm', scope: 'key' },
    { counter: keyDay, amount: 1, name: 'rpd', scope: 'key' },
    { counter: userMinute, amount: 1, name: 'rpm', scope: 'account' },
    { counter: userDay, amount: 1, name: 'rpd', scope: 'account' },
    { counter: keyTokens, amount: 0, name: 'tpm', scope: 'key' },
    { counter: userTokens, amount: 0, name: 'tpm', scope: 'account' },
  ];
  const NO_LIMITS: RateStanding = Object.freeze({ refused: null, windows: Object.freeze([]) as unknown as RateWindow[] });

  function limitOf(i: number, rates: KeyRateLimits): number {
    switch (i) {
      case 0:
        return rates.rpm ?? defaults.rateLimitPerMinute;
      case 1:
        return rates.rpd ?? defaults.rateLimitPerDay;
      case 2:
        return defaults.rateLimitPerUserPerMinute;
      case 3:
        return defaults.rateLimitPerUserPerDay;
      case 4:
        return rates.tpm ?? defaults.rateLimitTokensPerMinute;
      default:
        return defaults.rateLimitPerUserTokensPerMinute;
    }
  }

  /** The refusal of check `i` in window `w`; the requests already counted for this request are given back. */
  function refuse(standing: RateStanding, i: number, w: RateWindow, t: number): RateStanding {
    const check = checks[i]!;
    for (const taken of standing.windows) if (taken !== w && !taken.tokens) giveBack(taken);
    const { resetMs } = readWindow(w, t);
    standing.refused = { name: check.name, scope: check.scope, limit: w.limit, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
    return standing;
  }

  function run(standing: RateStanding, from: number, keyId: string, userId: string, rates: KeyRateLimits): RateStanding | Promise<RateStanding> {
    for (let i = from; i < checks.length; i++) {
      const limit = limitOf(i, rates);
      if (limit <= 0) continue;
      const check = checks[i]!;
      const t = now();
      const w = check.counter.windowOf(check.scope === 'key' ? keyId : userId, limit, t);
      standing.windows.push(w);
      const admitted = check.counter.take(w, check.amount);
      if (admitted === true) continue;
      if (admitted === false) return refuse(standing, i, w, t);
      return admitted.then((ok) => (ok ? run(standing, i + 1, keyId, userId, rates) : refuse(standing, i, w, now())));
    }
    return standing;
  }

  return {
    /**
     * Admits one request of a key (and its account) against every limit that applies; resolves at once
     * while this instance holds allowance. A refused request counts against none of them.
     */
    check(keyId: string, userId: string, rates: KeyRateLimits): RateStanding | Promise<RateStanding> {
      let any = false;
      for (let i = 0; i < checks.length && !any; i++) any = limitOf(i, rates) > 0;
      if (!any) return NO_LIMITS;
      return run({ refused: null, windows: [] }, 0, keyId, userId, rates);
    },

    /** Spends a settled request's tokens from its key's and account's tokens per minute. */
    spendTokens(keyId: string, userId: string, tokens: number): void {
      keyTokens.spend(keyId, tokens);
      userTokens.spend(userId, tokens);
    },

    /** Deletes the counts of windows that are over. */
    async purge(): Promise<void> {
      await keyMinute.purge();
      await keyDay.purge();
      await userMinute.purge();
      await userDay.purge();
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

/** The tightest request limit and the tightest token limit at `t`: the smallest remaining of each kind. */
function tightest(standing: RateStanding, t: number): { requests: WindowReading; tokens: WindowReading } {
  let requests = UNLIMITED_READING;
  let tokens = UNLIMITED_READING;
  for (const w of standing.windows) {
    const reading = readWindow(w, t);
    if (w.tokens) {
      if (reading.remaining < tokens.remaining) tokens = reading;
    } else if (reading.remaining < requests.remaining) requests = reading;
  }
  return { requests, tokens };
}

/**
 * OpenAI's six x-ratelimit-* headers for a request's standing, as it is when the answer's headers leave
 * (a plain answer's tokens are spent by then; a stream's are not yet).
 */
export function setRateLimitHeaders(headers: Headers, standing: RateStanding, t: number = Date.now()): void {
  const { requests, tokens } = tightest(standing, t);
  headers.set('x-ratelimit-limit-requests', String(requests.limit));
  headers.set('x-ratelimit-remaining-requests', String(requests.remaining));
  headers.set('x-ratelimit-reset-requests', formatResetDuration(requests.resetMs));
  headers.set('x-ratelimit-limit-tokens', String(tokens.limit));
  headers.set('x-ratelimit-remaining-tokens', String(tokens.remaining));
  headers.set('x-ratelimit-reset-tokens', formatResetDuration(tokens.resetMs));
}

// The standing is found deep in authentication; the headers go on whatever answer the route gives at the
// end (the server adds them to every /v1 response), so it is kept beside the request until then.
const standings = new WeakMap<Request, RateStanding>();

export function rememberRateStanding(request: Request, standing: RateStanding): void {
  standings.set(request, standing);
}

export function rateStandingOf(request: Request): RateStanding | undefined {
  return standings.get(request);
}
