// Who a dashboard token belongs to, as stored now, without a database read per request: an in-memory
// cache per instance, emptied of a user the moment the row changes — here at once (the writer calls
// forget), on every instance through the users trigger's NOTIFY (migration 0026_sessions). Role,
// blocking, e-mail, the sessions generation and the sessions ended one by one are what is cached; a change of any of them reaches every
// instance's cache at the writer's commit.
import { and, eq, gt, isNotNull, sql } from 'drizzle-orm';
import type { DatabaseHandle, Executor } from '../db/client';
import { userSessions, users } from './tables';
import type { Logger } from '../logger';
import { voidLinks } from './links';
import { JWT_LIFETIME_SECONDS } from './jwt';

/**
 * Sent by the users trigger (role, blocked_at, email, sessions_generation changed, or the row deleted),
 * and by sessions.ts when the owner ends single sessions.
 */
export const TOKEN_USER_CHANGED_CHANNEL = 'conduit_token_user_changed';

/** Rows younger than a token's life: an older one cannot be in use, whatever it says. */
export const stillValid = () => gt(userSessions.createdAt, sql`now() - make_interval(secs => ${JWT_LIFETIME_SECONDS})`);

/**
 * The ids of the user's sessions ended one by one within a token's life, for the token user cache:
 * a token naming one of them is refused.
 */
export async function endedSessionIds(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ id: userSessions.id })
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), isNotNull(userSessions.endedAt), stillValid()));
  return rows.map((row) => row.id);
}

export interface TokenUserRow {
  id: string;
  email: string;
  role: string;
  blocked: boolean;
  sessionsGeneration: number;
  /** Sessions ended one by one (sessions.ts): a token naming one is refused. */
  endedSessions: ReadonlySet<string>;
}

interface Entry {
  row: TokenUserRow | null;
  expiresAt: number;
}

export interface TokenUserCacheOptions {
  database: DatabaseHandle;
  logger: Logger;
  /** A safety net should a notification be lost; a reconnected listener empties the cache anyway. */
  ttlMs?: number;
  maxEntries?: number;
}

export function createTokenUserCache({ database, logger, ttlMs = 30_000, maxEntries = 100_000 }: TokenUserCacheOptions) {
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<TokenUserRow | null>>();
  /**
   * Bumped by every invalidation: a read that started before one may have seen the row as it was, so
   * its answer is not cached and later callers do not join it (the same rule as keys/verifier.ts).
   */
  let generation = 0;
  let unlisten: (() => Promise<void>) | null = null;

  async function read(userId: string): Promise<TokenUserRow | null> {
    const [row] = await database.db
      .select({
        id: users.id,
        email: users.email,
        role: users.role,
        blockedAt: users.blockedAt,
        sessionsGeneration: users.sessionsGeneration,
      })
      .from(users)
      .where(eq(users.id, userId))
      .limit(1);
    if (!row) return null;
    const endedSessions = new Set(await endedSessionIds(database.db, userId));
    return { id: row.id, email: row.email, role: row.role, blocked: row.blockedAt !== null, sessionsGeneration: row.sessionsGeneration, endedSessions };
  }

  function remember(userId: string, row: TokenUserRow | null) {
    if (cache.size >= maxEntries) {
      let drop = Math.ceil(maxEntries / 10);
      for (const id of cache.keys()) {
        cache.delete(id);
        if (--drop === 0) break;
      }
    }
    cache.set(userId, { row, expiresAt: Date.now() + ttlMs });
  }

  function forget(userId: string) {
    generation += 1;
    inFlight.clear();
    cache.delete(userId);
  }

  function forgetAll() {
    generation += 1;
    inFlight.clear();
    cache.clear();
  }

  return {
    /** The user's row as the cache holds it (read once, then kept until it changes or ttlMs passes). */
    async get(userId: string): Promise<TokenUserRow | null> {
      const entry = cache.get(userId);
      if (entry && entry.expiresAt > Date.now()) return entry.row;
      const startedAt = generation;
      let lookup = inFlight.get(userId);
      if (!lookup) {
        lookup = read(userId).finally(() => {
          if (inFlight.get(userId) === lookup) inFlight.delete(userId);
        });
        inFlight.set(userId, lookup);
      }
      const row = await lookup;
      if (generation !== startedAt) return read(userId);
      remember(userId, row);
      return row;
    },

    /**
     * Reads the row now and caches it: for operator routes, where the role must be the stored one at this
     * moment (a grant or revocation by `npm run admin:grant` or SQL applies to the very next request).
     */
    async getFresh(userId: string): Promise<TokenUserRow | null> {
      const startedAt = generation;
      const row = await read(userId);
      if (generation === startedAt) remember(userId, row);
      return row;
    },

    /** Called by a writer on this instance right after its commit, so its own next request sees the change. */
    forget,

    async start() {
      unlisten = await database.listen(
        TOKEN_USER_CHANGED_CHANNEL,
        (userId) => forget(userId),
        // Changes may have passed while the listener was away: trust nothing cached before it.
        () => forgetAll(),
      );
    },

    async stop() {
      await unlisten?.().catch((error) => logger.warn('token user listener not closed', { error }));
      unlisten = null;
      forgetAll();
    },
  };
}

export type TokenUserCache = ReturnType<typeof createTokenUserCache>;

/**
 * Ends every dashboard session of the user issued so far, in the caller's transaction: the generation
 * goes up, and tokens carrying an older one are refused from the commit on (the trigger tells every
 * instance). Every mailed link issued before dies with them (links.ts). Returns the new generation,
 * which the caller's fresh token carries.
 */
export async function endSessions(tx: Executor, userId: string): Promise<number> {
  const [row] = await tx
    .update(users)
    .set({ sessionsGeneration: sql`${users.sessionsGeneration} + 1` })
    .where(eq(users.id, userId))
    .returning({ generation: users.sessionsGeneration });
  if (!row) throw new Error(`endSessions: no user ${userId}`);
  await voidLinks(tx, userId);
  return row.generation;
}
