// The operator audit log: every admin action leaves a row (who, what, which record, before and after),
// written in the transaction of the change itself so that a change without its row cannot commit.
import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { AdminPrincipal } from '../auth/authenticate';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import type { Database, Executor } from '../db/client';
import { adminAudit } from '../db/schema';

export type AuditAction =
  | 'user.credit'
  | 'user.block'
  | 'user.unblock'
  | 'user.password_reset_sent'
  | 'user.sessions_ended'
  | 'price.upsert'
  | 'price.delete'
  | 'price.import'
  | 'provider.create'
  | 'provider.update'
  | 'provider.delete'
  | 'route.upsert'
  | 'route.delete'
  | 'requisites.update';

/** What JSON can hold. Money goes in as decimal strings: a bigint would not serialise, a float would round. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface AuditEntry {
  action: AuditAction;
  targetType: 'user' | 'price' | 'provider' | 'route' | 'requisites';
  targetId: string | null;
  before: JsonObject | null;
  after: JsonObject | null;
}

export type AuditActor = Pick<AdminPrincipal, 'userId' | 'email'>;

/** Writes the row with `tx`, the transaction that makes the change. */
export async function recordAudit(tx: Executor, actor: AuditActor, entry: AuditEntry): Promise<void> {
  await tx.insert(adminAudit).values({
    adminId: actor.userId,
    // Kept beside the id: the id goes null if the operator's account is ever deleted, the address stays.
    adminEmail: actor.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    before: entry.before,
    after: entry.after,
  });
}

export interface AuditQuery {
  limit: number;
  cursor?: string | undefined;
  targetId?: string | undefined;
}

export function createAuditLog(db: Database) {
  return {
    /** Newest first, paged by an opaque cursor; optionally one record's history. */
    async list(query: AuditQuery) {
      const filters: SQL[] = [];
      if (query.targetId) filters.push(eq(adminAudit.targetId, query.targetId));
      if (query.cursor) {
        filters.push(afterCursor(adminAudit.createdAt, adminAudit.id, decodeCursor(query.cursor, /^\d{1,19}$/), 'desc'));
      }
      const rows = await db
        .select({ entry: adminAudit, cursorAt: cursorTime(adminAudit.createdAt) })
        .from(adminAudit)
        .where(filters.length > 0 ? and(...filters) : undefined)
        .orderBy(desc(adminAudit.createdAt), desc(adminAudit.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.entry.id);
      return {
        data: page.map(({ entry: e }) => ({
          id: e.id.toString(),
          createdAt: e.createdAt.toISOString(),
          adminId: e.adminId,
          adminEmail: e.adminEmail,
          action: e.action,
          targetType: e.targetType,
          targetId: e.targetId,
          before: (e.before ?? null) as JsonObject | null,
          after: (e.after ?? null) as JsonObject | null,
        })),
        nextCursor,
      };
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
