// The booking system's cached answers (administrator token, specialists, services, free times), kept in
// the database so every app instance sees the same copy and a token one instance obtained serves all.
import { and, eq, like, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { likePrefix } from '../../db/like';
import { bookingCache } from './tables';

export interface CachedValue<T> {
  value: T;
  expiresAt: Date;
}

export function createBookingCache(db: Database) {
  return {
    /** The value under `key` while it is fresh; null when absent or expired. */
    async get<T>(agentId: string, key: string): Promise<T | null> {
      const [row] = await db
        .select({ value: bookingCache.value })
        .from(bookingCache)
        .where(and(eq(bookingCache.agentId, agentId), eq(bookingCache.key, key), sql`${bookingCache.expiresAt} > now()`));
      return row ? (row.value as T) : null;
    },

    async set(agentId: string, key: string, value: unknown, ttlSeconds: number): Promise<void> {
      const expiresAt = sql`now() + make_interval(secs => ${ttlSeconds})`;
      await db
        .insert(bookingCache)
        .values({ agentId, key, value, expiresAt })
        .onConflictDoUpdate({ target: [bookingCache.agentId, bookingCache.key], set: { value, expiresAt } });
    },

    async delete(agentId: string, key: string): Promise<void> {
      await db.delete(bookingCache).where(and(eq(bookingCache.agentId, agentId), eq(bookingCache.key, key)));
    },

    /** Every entry whose key starts with `prefix` (e.g. the free times of one specialist on one day). */
    async deletePrefix(agentId: string, prefix: string): Promise<void> {
      await db.delete(bookingCache).where(and(eq(bookingCache.agentId, agentId), like(bookingCache.key, likePrefix(prefix))));
    },

    /** Everything cached for an agent: its settings changed, so none of it can be trusted. */
    async clear(agentId: string): Promise<void> {
      await db.delete(bookingCache).where(eq(bookingCache.agentId, agentId));
    },

    /** Drops what expired long ago, so the table holds only what might still be read. */
    async prune(olderThanSeconds: number): Promise<number> {
      const gone = await db
        .delete(bookingCache)
        .where(lt(bookingCache.expiresAt, sql`now() - make_interval(secs => ${olderThanSeconds})`))
        .returning({ key: bookingCache.key });
      return gone.length;
    },
  };
}

export type BookingCache = ReturnType<typeof createBookingCache>;
