// Requests per minute per API key (RATE_LIMIT_PER_MINUTE), and optionally per user across all the user's
// keys (RATE_LIMIT_PER_USER_PER_MINUTE), in fixed one-minute windows counted across every instance: the
// count of a key's (a user's) window lives in PostgreSQL (rate_limit_windows, rate_limit_user_windows), and
// an instance claims allowance from it in blocks (a twentieth of the limit, at most 100), so the hot path
// asks the database once per block rather than once per request, and N instances together never let
// through more than the limit. What a block leaves unspent when its window ends is lost: the shared limit
// can only be stricter than the number, by less than a block per instance. While the database cannot be
// asked, each instance counts alone (the limit is then per instance) rather than refusing every request.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import type { Logger } from '../logger';

export interface RateDecision {
  allowed: boolean;
  retryAfterSeconds: number;
  /** The window's allowance, what is left of it after this request, and when it starts over. */
  limit: number;
  remaining: number;
  resetMs: number;
}

interface Window {
  minute: number;
  /** Allowance claimed from the shared count and not yet spent by this instance. */
  held: number;
  /** The shared count after this instance's last claim (what every instance had claimed then). */
  sharedUsed: number;
  /** The shared count reached the limit: nothing more to claim in this window. */
  exhausted: boolean;
  claiming: Promise<void> | null;
  /** Counted here alone while the database was unreachable. */
  localOnly: number;
}

export interface RateLimiterOptions {
  /** Per API key; 0 = no per-key limit. */
  perMinute: number;
  /** Per user, all the user's keys together; 0 (the default) = none, and the per-key path does nothing more. */
  perUserPerMinute?: number;
  db: Database;
  logger: Logger;
  now?: () => number;
}

/** Where one kind of window is counted: its table and the column naming whose window it is. */
type WindowTable = { table: 'rate_limit_windows'; owner: 'api_key_id' } | { table: 'rate_limit_user_windows'; owner: 'user_id' };

interface WindowCounterOptions {
  perMinute: number;
  where: WindowTable;
  db: Database;
  logger: Logger;
  now: () => number;
}

/** One kind of limit (per key or per user): allowance claimed in blocks from the shared count. */
function createWindowCounter({ perMinute, where, db, logger, now }: WindowCounterOptions) {
  const table = sql.raw(`"${where.table}"`);
  const owner = sql.raw(`"${where.owner}"`);
  const block = Math.max(1, Math.min(100, Math.floor(perMinute / 20)));
  const windows = new Map<string, Window>();
  let lastSweep = now();
  let warned = false;

  function decision(w: Window, allowed: boolean, t: number): RateDecision {
    const resetMs = (w.minute + 1) * 60_000 - t;
    // Others' claims count as used; what this instance holds is still to spend.
    const remaining = allowed || w.held > 0 ? Math.max(0, perMinute - w.sharedUsed + w.held) : 0;
    return {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(resetMs / 1000)),
      limit: perMinute,
      remaining,
      resetMs,
    };
  }

  /**
   * Takes a block from the shared count: `used` grows by a whole block (it may pass the limit by less
   * than one), and what this instance may spend is the part of the block under the limit.
   */
  async function claim(keyId: string, w: Window) {
    try {
      const result = await db.execute(sql`
        insert into ${table} as w (${owner}, window_minute, used)
        values (${keyId}, ${w.minute}, ${block}::int)
        on conflict (${owner}, window_minute) do update
          set used = w.used + ${block}::int
          where w.used < ${perMinute}::int
        returning used`);
      const rows = rowsOf<{ used: unknown }>(result);
      if (rows.length === 0) {
        w.exhausted = true;
        w.sharedUsed = perMinute;
        return;
      }
      const used = Number(rows[0]!.used);
      w.held += Math.max(0, Math.min(block, perMinute - (used - block)));
      w.sharedUsed = Math.min(used, perMinute);
      if (used >= perMinute) w.exhausted = true;
    } catch (error) {
      if (!warned) {
        warned = true;
        logger.warn('the shared request limit could not be read; counting on this instance alone', { error });
      }
      w.localOnly = Math.max(w.localOnly, 1);
    }
  }

  function windowOf(keyId: string, t: number): Window {
    const minute = Math.floor(t / 60_000);
    if (t - lastSweep > 60_000) {
      for (const [k, w] of windows) if (w.minute < minute) windows.delete(k);
      lastSweep = t;
    }
    let w = windows.get(keyId);
    if (!w || w.minute !== minute) {
      w = { minute, held: 0, sharedUsed: 0, exhausted: false, claiming: null, localOnly: 0 };
      windows.set(keyId, w);
    }
    return w;
  }

  return {
    /** Counts one request of a key (a user); resolves at once while this instance holds allowance. */
    take(keyId: string): RateDecision | Promise<RateDecision> {
      const t = now();
      const w = windowOf(keyId, t);
      if (w.held > 0) {
        w.held -= 1;
        return decision(w, true, t);
      }
      if (w.exhausted) return decision(w, false, t);
      return (async () => {
        while (w.held === 0 && !w.exhausted && w.localOnly === 0) {
          w.claiming ??= claim(keyId, w).finally(() => {
            w.claiming = null;
          });
          await w.claiming;
        }
        const at = now();
        if (w.held > 0) {
          w.held -= 1;
          return decision(w, true, at);
        }
        if (w.localOnly > 0 && !w.exhausted) {
          // The database is away: this instance's own count, as if it were alone.
          if (w.localOnly <= perMinute) {
            w.localOnly += 1;
            return { allowed: true, retryAfterSeconds: 0, limit: perMinute, remaining: perMinute - w.localOnly + 1, resetMs: (w.minute + 1) * 60_000 - at };
          }
        }
        return decision(w, false, at);
      })();
    },

    /** Gives back one request taken in this window (the other limit refused it): it was not served. */
    giveBack(keyId: string): void {
      const w = windows.get(keyId);
      if (w && w.minute === Math.floor(now() / 60_000) && w.localOnly === 0) w.held += 1;
    },

    /** Deletes the counts of windows that are over. */
    async purge(): Promise<void> {
      const minute = Math.floor(now() / 60_000);
      await db.execute(sql`delete from ${table} where window_minute < ${minute - 1}`);
    },
  };
}

type Counter = ReturnType<typeof createWindowCounter>;

export function createRateLimiter({ perMinute, perUserPerMinute = 0, db, logger, now = () => Date.now() }: RateLimiterOptions) {
  const byKey: Counter | null =
    perMinute > 0 ? createWindowCounter({ perMinute, where: { table: 'rate_limit_windows', owner: 'api_key_id' }, db, logger, now }) : null;
  const byUser: Counter | null =
    perUserPerMinute > 0
      ? createWindowCounter({ perMinute: perUserPerMinute, where: { table: 'rate_limit_user_windows', owner: 'user_id' }, db, logger, now })
      : null;

  /** Both limits allowed or one refused: the refusal, or the one with less left (what the headers show). */
  function withUser(key: RateDecision | null, keyId: string, userId: string): RateDecision | Promise<RateDecision> {
    const combine = (user: RateDecision): RateDecision => {
      if (!user.allowed) {
        // The key's request was not served: the key keeps it for later in its window.
        if (key) byKey!.giveBack(keyId);
        return user;
      }
      return key && key.remaining < user.remaining ? key : user;
    };
    const user = byUser!.take(userId);
    return user instanceof Promise ? user.then(combine) : combine(user);
  }

  return {
    /**
     * Counts one request of a key (and of its user, when the per-user limit is on); resolves at once while
     * this instance holds allowance. A request refused by the key's limit is not counted on the user's.
     */
    check(keyId: string, userId: string): RateDecision | Promise<RateDecision> {
      if (!byUser) return byKey!.take(keyId);
      if (!byKey) return withUser(null, keyId, userId);
      const key = byKey.take(keyId);
      if (key instanceof Promise) return key.then((k) => (k.allowed ? withUser(k, keyId, userId) : k));
      return key.allowed ? withUser(key, keyId, userId) : key;
    },

    /** Deletes the counts of windows that are over. */
    async purge(): Promise<void> {
      await byKey?.purge();
      await byUser?.purge();
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
