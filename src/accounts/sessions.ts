// The owner's list of dashboard sessions: each sign-in is a row its token names (`sid`), so one can be
// ended without ending the rest. Ending one marks the row and tells every instance through the token user
// cache's channel (token-users.ts), whose row carries the user's ended session ids: a dashboard request
// still reads no table of its own.
import { and, desc, eq, isNull, lt, ne, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client';
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import { describeDevice } from './devices';
import { userSessions, users } from './tables';
import { accountsMessages } from './texts';
import { TOKEN_USER_CHANGED_CHANNEL, stillValid } from './token-users';

/** Last use is written at most this often per session: a page polls several queries a minute. */
const TOUCH_INTERVAL_MS = 60_000;
const MAX_TOUCHED = 50_000;
/** How long a device counts as seen before for the new-device mail. */
const DEVICE_MEMORY_DAYS = 180;

export interface SessionView {
  id: string;
  device: string;
  address: string;
  createdAt: string;
  lastUsedAt: string;
  current: boolean;
}

export interface SessionsDeps {
  db: Database;
  /** This instance forgets the user's cached row at once; the others hear the commit's notification. */
  forget: (userId: string) => void;
}

export function createSessions({ db, forget }: SessionsDeps) {
  const touched = new Map<string, number>();

  function liveOf(userId: string) {
    return and(
      eq(userSessions.userId, userId),
      isNull(userSessions.endedAt),
      stillValid(),
      eq(userSessions.generation, sql`(select ${users.sessionsGeneration} from ${users} where ${users.id} = ${userId})`),
    );
  }

  async function endWhere(userId: string, which: ReturnType<typeof and>): Promise<number> {
    const ended = await db.transaction(async (tx) => {
      const rows = await tx.update(userSessions).set({ endedAt: new Date() }).where(which).returning({ id: userSessions.id });
      if (rows.length > 0) await tx.execute(sql`select pg_notify(${TOKEN_USER_CHANGED_CHANNEL}, ${userId})`);
      return rows.length;
    });
    if (ended > 0) forget(userId);
    return ended;
  }

  return {
    /**
     * Records a sign-in in the caller's transaction (or alone); `newDevice` says that no earlier session of
     * the user, ended or not, came from this device (the first session of an account is not new).
     */
    async open(
      executor: Executor,
      session: { userId: string; generation: number; userAgent: string | null; address: string },
    ): Promise<{ id: string; device: string; newDevice: boolean }> {
      const device = describeDevice(session.userAgent);
      const earlier = await executor
        .select({ device: userSessions.device })
        .from(userSessions)
        .where(eq(userSessions.userId, session.userId))
        .orderBy(sql`${userSessions.device} = ${device} desc`)
        .limit(1);
      const [row] = await executor
        .insert(userSessions)
        .values({ userId: session.userId, generation: session.generation, device, address: session.address })
        .returning({ id: userSessions.id });
      return { id: row!.id, device, newDevice: earlier.length > 0 && earlier[0]!.device !== device };
    },

    /** The user's live sessions, the caller's first and marked, then the most recently used. */
    async list(userId: string, currentId: string | null): Promise<SessionView[]> {
      const rows = await db
        .select()
        .from(userSessions)
        .where(liveOf(userId))
        .orderBy(sql`${userSessions.id} = ${currentId ?? null} desc nulls last`, desc(userSessions.lastUsedAt), desc(userSessions.createdAt));
      return rows.map((row) => ({
        id: row.id,
        device: row.device,
        address: row.address,
        createdAt: row.createdAt.toISOString(),
        lastUsedAt: row.lastUsedAt.toISOString(),
        current: row.id === currentId,
      }));
    },

    /** Ends one live session of the user; someone else's, or one already over, is not found. */
    async end(userId: string, sessionId: string): Promise<void> {
      if (!isUuid(sessionId)) throw new AppError('not_found', accountsMessages.sessionNotFound);
      const ended = await endWhere(userId, and(liveOf(userId), eq(userSessions.id, sessionId)));
      if (ended === 0) throw new AppError('not_found', accountsMessages.sessionNotFound);
    },

    /** Ends every live session of the user but the caller's; answers how many. */
    endOthers: (userId: string, currentId: string | null) => endWhere(userId, currentId ? and(liveOf(userId), ne(userSessions.id, currentId)) : liveOf(userId)),

    /**
     * Forgets sign-ins older than the new-device check looks back: a device unused for that long is
     * mailed about again, which is what its owner would want.
     */
    async prune(): Promise<void> {
      await db.delete(userSessions).where(lt(userSessions.createdAt, sql`now() - make_interval(days => ${DEVICE_MEMORY_DAYS})`));
    },

    /** Notes that the session was used now, written at most once a minute per session and instance. */
    touch(sessionId: string): void {
      const now = Date.now();
      const last = touched.get(sessionId);
      if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
      if (touched.size >= MAX_TOUCHED) touched.clear();
      touched.set(sessionId, now);
      void db
        .update(userSessions)
        .set({ lastUsedAt: new Date(now) })
        .where(eq(userSessions.id, sessionId))
        // A lost write only makes «last used» a minute older; the next request tries again.
        .catch(() => touched.delete(sessionId));
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
