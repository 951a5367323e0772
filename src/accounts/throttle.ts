// Attempt counters behind the abuse limits, kept in PostgreSQL (throttle_counters) so that every instance
// counts together. Each check is one atomic statement that counts the attempt and answers whether it may
// go on, so a burst of parallel requests cannot slip through before any of them is counted.
import { and, eq, sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import { throttleCounters } from './tables';

export type ThrottleScope =
  | 'register_address'
  | 'login_address'
  | 'login_pair'
  | 'login_account'
  | 'verification_mail'
  | 'taken_address_mail'
  | 'password_reset_email'
  | 'password_reset_address'
  | 'password_change_user'
  | 'two_factor_code'
  | 'email_change'
  | 'password_reset_confirm_address'
  | 'email_change_taken_mail'
  // Promo code attempts (promotions/): per account, per client address.
  | 'promo_account'
  | 'promo_address';

export type ThrottleVerdict = { allowed: true; hits: number } | { allowed: false; retryAfterSeconds: number };

export interface GrowingDelay {
  /** Attempts a key gets before each further one must wait. */
  freeAttempts: number;
  /** The wait starts at 1 s and doubles per attempt up to this. */
  maxDelaySeconds: number;
  /** Every wait is maxDelaySeconds at once (a lock), not a growing one. */
  fixed?: boolean;
  /** The count starts over this long after the attempt that opened it. */
  windowSeconds: number;
}

export function createThrottle(db: Database) {
  const counter = (scope: ThrottleScope, key: string) => and(eq(throttleCounters.scope, scope), eq(throttleCounters.key, key));

  async function secondsUntilNext(scope: ThrottleScope, key: string): Promise<number> {
    const [row] = rowsOf<{ seconds: number | string | null }>(
      await db.execute(sql`
        select ceil(extract(epoch from (${throttleCounters.nextAttemptAt} - clock_timestamp()))) as seconds
        from ${throttleCounters} where ${counter(scope, key)}`),
    );
    return Math.max(1, Number(row?.seconds ?? 1));
  }

  return {
    /**
     * Counts one attempt in a fixed window that opens with the first attempt; attempts past `limit` in
     * the window are refused (and still counted, which changes nothing: the window does not move).
     */
    async hit(scope: ThrottleScope, key: string, limit: number, windowSeconds: number): Promise<ThrottleVerdict> {
      const expired = sql`t.window_started_at <= now() - make_interval(secs => ${windowSeconds})`;
      const [row] = rowsOf<{ hits: number; retry_after: number | string }>(
        await db.execute(sql`
          insert into throttle_counters as t (scope, key, hits, window_started_at, updated_at)
          values (${scope}, ${key}, 1, now(), now())
          on conflict (scope, key) do update set
            hits = case when ${expired} then 1 else t.hits + 1 end,
            window_started_at = case when ${expired} then now() else t.window_started_at end,
            updated_at = now()
          returning t.hits,
            ceil(extract(epoch from (t.window_started_at + make_interval(secs => ${windowSeconds}) - now()))) as retry_after`),
      );
      const hits = Number(row!.hits);
      return hits <= limit ? { allowed: true, hits } : { allowed: false, retryAfterSeconds: Math.max(1, Number(row!.retry_after)) };
    },

    /**
     * Reserves an attempt before its outcome is known, as if it were going to fail: the first
     * `freeAttempts` in a window go through at once, and from then on every attempt makes the next one
     * wait 2^k seconds (capped). While a wait is running nothing is counted and the answer is "refused".
     * The row lock of the upsert orders parallel reservations, and each one re-reads the wait the one
     * before it set (clock_timestamp, not the statement's start), so no burst gets past the free attempts.
     */
    async reserve(scope: ThrottleScope, key: string, delay: GrowingDelay): Promise<ThrottleVerdict> {
      const fresh = sql`t.window_started_at <= now() - make_interval(secs => ${delay.windowSeconds})`;
      const seconds = (hits: ReturnType<typeof sql>) =>
        delay.fixed ? sql`${delay.maxDelaySeconds}` : sql`least(power(2, least(${hits} - ${delay.freeAttempts}, 30)), ${delay.maxDelaySeconds})`;
      const waitAfter = (hits: ReturnType<typeof sql>) => sql`
        case when ${hits} >= ${delay.freeAttempts}
          then clock_timestamp() + make_interval(secs => ${seconds(hits)})
        end`;
      const hitsAfter = sql`case when ${fresh} then 1 else t.hits + 1 end`;
      const [row] = rowsOf<{ hits: number }>(
        await db.execute(sql`
          insert into throttle_counters as t (scope, key, hits, window_started_at, next_attempt_at, updated_at)
          values (${scope}, ${key}, 1, now(), ${waitAfter(sql`1`)}, now())
          on conflict (scope, key) do update set
            hits = ${hitsAfter},
            window_started_at = case when ${fresh} then now() else t.window_started_at end,
            next_attempt_at = ${waitAfter(hitsAfter)},
            updated_at = now()
          where t.next_attempt_at is null or t.next_attempt_at <= clock_timestamp()
          returning t.hits`),
      );
      if (row) return { allowed: true, hits: Number(row.hits) };
      return { allowed: false, retryAfterSeconds: await secondsUntilNext(scope, key) };
    },

    /**
     * Gives back a reservation that turned out to be a success, so only failures add up. Below the free
     * attempts again, the wait that reservation set is lifted too.
     */
    async refund(scope: ThrottleScope, key: string, freeAttempts: number): Promise<void> {
      await db.execute(sql`
        update throttle_counters set
          hits = greatest(hits - 1, 0),
          next_attempt_at = case when hits - 1 < ${freeAttempts} then null else next_attempt_at end,
          updated_at = now()
        where scope = ${scope} and key = ${key}`);
    },

    /** Forgets a key's count (the account's owner proved who they are). */
    async reset(scope: ThrottleScope, key: string): Promise<void> {
      await db.delete(throttleCounters).where(counter(scope, key));
    },

    /** Drops counters whose window ended long ago and whose wait is over: the next attempt starts afresh anyway. */
    async prune(olderThanSeconds: number): Promise<number> {
      const gone = await db
        .delete(throttleCounters)
        .where(
          sql`${throttleCounters.updatedAt} < now() - make_interval(secs => ${olderThanSeconds})
            and (${throttleCounters.nextAttemptAt} is null or ${throttleCounters.nextAttemptAt} < now())`,
        )
        .returning({ scope: throttleCounters.scope });
      return gone.length;
    },
  };
}

export type Throttle = ReturnType<typeof createThrottle>;
