// One kind of rate limit (a key's requests per minute, a user's tokens per minute, …) counted across every
// instance in fixed windows: the count of an owner's window lives in PostgreSQL, and an instance claims
// allowance from it in blocks (a twentieth of the limit; at most 100 requests), so the hot path asks the
// database once per block rather than once per request, and N instances together never let through more
// than the limit. What a block leaves unspent when its window ends is lost: the shared limit can only be
// stricter than the number, by less than a block per instance. While the database cannot be asked, an
// instance counts the window alone (the limit is then per instance) rather than refusing every request.
//
// Tokens are known only when a request settles: an answer's tokens are spent from what the instance holds
// and what it holds no more of is added to the shared count at once (one statement, off the request's
// path). A request is admitted while the window has tokens left, so the request that crosses the limit is
// served in full and the ones after it are refused until the window ends.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import type { Logger } from '../logger';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
/** How long a window is remembered after it ends: longer than a stream is expected to run. */
const KEEP_MS = 15 * MINUTE_MS;

/** Where one kind of window is counted: its table, whose window a row is, the window's column, what it counts. */
export interface WindowPlace {
  table: 'rate_limit_windows' | 'rate_limit_user_windows' | 'rate_limit_day_windows' | 'rate_limit_user_day_windows';
  owner: 'api_key_id' | 'user_id';
  window: 'window_minute' | 'window_day';
  count: 'used' | 'tokens';
}

/** An owner's window as this instance knows it. */
export interface RateWindow {
  owner: string;
  /** Windows since the epoch (minutes or UTC days): which window this is. */
  index: number;
  spanMs: number;
  /** Counts tokens (settled after the answer) rather than requests (counted on admission). */
  tokens: boolean;
  limit: number;
  /** Allowance claimed from the shared count and not yet spent by this instance. */
  held: number;
  /** The shared count as this instance last saw it (its own claims and everyone's before them). */
  sharedUsed: number;
  /** The shared count reached the limit: nothing more to claim in this window. */
  exhausted: boolean;
  claiming: Promise<void> | null;
  /**
   * Tokens spent past what was held, still being added to the shared count: a claim waits for them, or the
   * count it reads back would leave them out and the window would look fuller of allowance than it is.
   */
  recording: Promise<void> | null;
  /** The database could not be asked in this window: counted here alone. */
  local: boolean;
}

/** What a window says in the x-ratelimit-* headers. */
export interface WindowReading {
  limit: number;
  remaining: number;
  resetMs: number;
}

export interface WindowCounterOptions {
  place: WindowPlace;
  spanMs: number;
  db: Database;
  logger: Logger;
  now: () => number;
}

export function createWindowCounter({ place, spanMs, db, logger, now }: WindowCounterOptions) {
  const table = sql.raw(`"${place.table}"`);
  const owner = sql.raw(`"${place.owner}"`);
  const window = sql.raw(`"${place.window}"`);
  const tokens = place.count === 'tokens';
  const windows = new Map<string, RateWindow>();
  let lastSweep = now();
  let warned = false;

  const blockOf = (limit: number) => Math.max(1, tokens ? Math.floor(limit / 20) : Math.min(100, Math.floor(limit / 20)));

  function warnOnce(error: unknown) {
    if (warned) return;
    warned = true;
    logger.warn('the shared rate limit could not be read; counting on this instance alone', { error, table: place.table });
  }

  /** Grants a block from this instance's own count (the database is away). */
  function claimLocally(w: RateWindow, block: number) {
    const grant = Math.min(block, w.limit - w.sharedUsed);
    if (grant <= 0) {
      w.exhausted = true;
      return;
    }
    w.held += grant;
    w.sharedUsed += grant;
  }

  /**
   * Takes a block from the shared count: the count grows by a whole block (it may pass the limit by less
   * than one), and what this instance may spend is the part of the block under the limit.
   */
  async function claim(w: RateWindow) {
    if (w.recording) await w.recording;
    const block = blockOf(w.limit);
    if (w.local) return claimLocally(w, block);
    try {
      const result = await db.execute(
        tokens
          ? sql`
            insert into ${table} as w (${owner}, ${window}, used, tokens) values (${w.owner}, ${w.index}, 0, ${block})
            on conflict (${owner}, ${window}) do update set tokens = w.tokens + ${block} where w.tokens < ${w.limit}
            returning tokens as n`
          : sql`
            insert into ${table} as w (${owner}, ${window}, used) values (${w.owner}, ${w.index}, ${block}::int)
            on conflict (${owner}, ${window}) do update set used = w.used + ${block}::int where w.used < ${w.limit}::int
            returning used as n`,
      );
      const rows = rowsOf<{ n: unknown }>(result);
      if (rows.length === 0) {
        w.exhausted = true;
        w.sharedUsed = Math.max(w.sharedUsed, w.limit);
        return;
      }
      const used = Number(rows[0]!.n);
      w.held += Math.max(0, Math.min(block, w.limit - (used - block)));
      w.sharedUsed = used;
      if (used >= w.limit) w.exhausted = true;
    } catch (error) {
      warnOnce(error);
      w.local = true;
      claimLocally(w, block);
    }
  }

  /** Adds tokens this instance spent past what it held to the shared count. */
  async function record(w: RateWindow, amount: number) {
    w.sharedUsed += amount;
    if (w.sharedUsed >= w.limit) w.exhausted = true;
    if (w.local) return;
    try {
      const result = await db.execute(sql`
        insert into ${table} as w (${owner}, ${window}, used, tokens) values (${w.owner}, ${w.index}, 0, ${amount})
        on conflict (${owner}, ${window}) do update set tokens = w.tokens + ${amount}
        returning tokens as n`);
      const used = Number(rowsOf<{ n: unknown }>(result)[0]?.n ?? 0);
      w.sharedUsed = Math.max(w.sharedUsed, used);
      if (used >= w.limit) w.exhausted = true;
    } catch (error) {
      warnOnce(error);
      w.local = true;
    }
  }

  function fresh(ownerId: string, index: number, limit: number): RateWindow {
    const w: RateWindow = { owner: ownerId, index, spanMs, tokens, limit, held: 0, sharedUsed: 0, exhausted: false, claiming: null, recording: null, local: false };
    windows.set(ownerId, w);
    return w;
  }

  /**
   * Forgets windows that ended a while ago. Not at once: a stream admitted in one window settles its
   * tokens later, under the limit that window remembers, so windows are kept KEEP_MS past their end.
   */
  function sweep(t: number) {
    if (t - lastSweep <= MINUTE_MS) return;
    for (const [k, w] of windows) if ((w.index + 1) * spanMs < t - KEEP_MS) windows.delete(k);
    lastSweep = t;
  }

  return {
    /** The owner's current window under `limit` (a new limit voids what this instance held of the old one). */
    windowOf(ownerId: string, limit: number, t: number): RateWindow {
      const index = Math.floor(t / spanMs);
      sweep(t);
      const w = windows.get(ownerId);
      if (!w || w.index !== index) return fresh(ownerId, index, limit);
      if (w.limit !== limit) {
        // Held allowance was claimed under the old number; tokens spent and not yet recorded stay owed.
        w.limit = limit;
        w.held = Math.min(w.held, 0);
        w.exhausted = false;
      }
      return w;
    },

    /**
     * Admits one request: counts it (`amount` 1, requests) or only asks that the window has some left
     * (`amount` 0, tokens, spent when the request settles). Answers at once while this instance holds
     * allowance; a Promise only when it must claim a block.
     */
    take(w: RateWindow, amount: 0 | 1): boolean | Promise<boolean> {
      if (w.held >= 1) {
        w.held -= amount;
        return true;
      }
      if (w.exhausted) return false;
      return (async () => {
        while (w.held < 1 && !w.exhausted) {
          w.claiming ??= claim(w).finally(() => {
            w.claiming = null;
          });
          await w.claiming;
        }
        if (w.held < 1) return false;
        w.held -= amount;
        return true;
      })();
    },

    /** Spends a settled request's tokens in the owner's current window; nothing when no limit of this kind applies. */
    spend(ownerId: string, amount: number): void {
      if (amount <= 0) return;
      const last = windows.get(ownerId);
      if (!last) return;
      const t = now();
      const index = Math.floor(t / spanMs);
      // The tokens count in the window they were spent in, under the limit the request was admitted with.
      const w = last.index === index ? last : fresh(ownerId, index, last.limit);
      w.held -= amount;
      if (w.held < 0) {
        const owed = -w.held;
        w.held = 0;
        const recorded = record(w, owed);
        const before = w.recording;
        const all: Promise<void> = (before ? Promise.all([before, recorded]).then(() => {}) : recorded).finally(() => {
          if (w.recording === all) w.recording = null;
        });
        w.recording = all;
      }
    },

    /** Deletes the counts of windows that are over. */
    async purge(): Promise<void> {
      const index = Math.floor(now() / spanMs);
      await db.execute(sql`delete from ${table} where ${window} < ${index - 1}`);
    },
  };
}

export type WindowCounter = ReturnType<typeof createWindowCounter>;

/** Gives back a request counted in this window that was not served (another limit refused it). */
export function giveBack(w: RateWindow): void {
  w.held += 1;
}

/** What the window says at `t`: its limit, what is left of it, and when it starts over. */
export function readWindow(w: RateWindow, t: number): WindowReading {
  const index = Math.floor(t / w.spanMs);
  if (w.index < index) return { limit: w.limit, remaining: w.limit, resetMs: (index + 1) * w.spanMs - t };
  // Others' claims count as used; what this instance holds is still to spend.
  return { limit: w.limit, remaining: Math.max(0, Math.min(w.limit, w.limit - w.sharedUsed + w.held)), resetMs: (w.index + 1) * w.spanMs - t };
}
