// The response cache's rows in PostgreSQL: find an owner's live answer, keep one, sweep the expired.
import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { responseCache } from './tables';
import type { CacheOwner } from './request-key';

/**
 * The largest answer kept, in UTF-16 code units of its JSON (about that many bytes for the usual text): a
 * cache of chat answers, not of generated books. A larger answer is served and billed as usual, not kept.
 */
export const MAX_CACHED_ANSWER_CHARS = 1024 * 1024;

export interface CachedAnswer {
  status: number;
  contentType: string;
  /** The answer's JSON without `usage.cost`. */
  body: string;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export function createResponseCacheStore({ db, ttlSeconds }: { db: Database; ttlSeconds: number }) {
  return {
    /** The owner's answer to the request, while it is live; null when there is none. */
    async find(userId: string, requestHash: string): Promise<CachedAnswer | null> {
      const [row] = await db
        .select({
          status: responseCache.status,
          contentType: responseCache.contentType,
          body: responseCache.body,
          promptTokens: responseCache.promptTokens,
          completionTokens: responseCache.completionTokens,
          totalTokens: responseCache.totalTokens,
        })
        .from(responseCache)
        .where(and(eq(responseCache.userId, userId), eq(responseCache.requestHash, requestHash), gt(responseCache.expiresAt, sql`now()`)))
        .limit(1);
      return row ? { ...row, promptTokens: Number(row.promptTokens), completionTokens: Number(row.completionTokens), totalTokens: Number(row.totalTokens) } : null;
    },

    /** Keeps an answer for ttlSeconds; the same request's newer answer replaces an older one. */
    async put(owner: CacheOwner, requestHash: string, model: string, answer: CachedAnswer): Promise<void> {
      const values = { ...answer, model, apiKeyId: owner.keyId, createdAt: sql`now()`, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})` };
      await db
        .insert(responseCache)
        .values({ userId: owner.userId, requestHash, ...values })
        .onConflictDoUpdate({ target: [responseCache.userId, responseCache.requestHash], set: values });
    },

    /** Deletes the answers past their time; resolves how many. */
    async purge(): Promise<number> {
      const gone = await db.delete(responseCache).where(lt(responseCache.expiresAt, sql`now()`)).returning({ userId: responseCache.userId });
      return gone.length;
    },
  };
}

export type ResponseCacheStore = ReturnType<typeof createResponseCacheStore>;
