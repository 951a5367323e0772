// The operator audit log: every admin action leaves a row (who, what, which record, before and after),
// written in the transaction of the change itself so that a change without its row cannot commit.
import { and, desc, eq, gte, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { AdminPrincipal } from '../auth';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import type { Database, Executor } from '../db/client';
import { users } from '../accounts/tables';
import { adminAudit } from './tables';
import { AppError } from '../http/errors';
import { adminMessages } from './texts';
import { AUDIT_ACTIONS, type AuditAction, type JsonObject, type JsonValue } from './audit-actions';
import { likeContains } from '../db/like';
import { modelRoutes, providers } from '../gateway/tables';
import { modelPrices } from '../pricing/tables';
import { DEFAULT_PROVIDER_ID } from '../gateway';
import { describeAudit, type AuditNames } from './audit-view';

export { AUDIT_ACTIONS, type AuditAction, type JsonObject, type JsonValue };

export interface AuditEntry {
  action: AuditAction;
  targetType:
    | 'user'
    | 'price'
    | 'provider'
    | 'route'
    | 'requisites'
    | 'document'
    | 'invoice'
    | 'bank_statement'
    | 'bank_payment'
    | 'organization'
    | 'promo_campaign'
    | 'price_group';
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
  action?: AuditAction | undefined;
  /** Part of an e-mail: rows the matching accounts did (as operators) or underwent (as targets). */
  email?: string | undefined;
  /** UTC days, both included. */
  from?: string | undefined;
  to?: string | undefined;
}

/** How many accounts an e-mail filter may match before the operator is asked to type more of it. */
const EMAIL_FILTER_MAX_USERS = 100;

const DAY_MS = 86_400_000;

/**
 * What still exists of the providers, routes and prices a page of rows names: one query per kind, only for
 * the ids on the page. A route's targets name providers too.
 */
async function namesFor(db: Database, rows: readonly { targetType: string; targetId: string | null; before: unknown; after: unknown }[]): Promise<AuditNames> {
  const providerIds = new Set<string>();
  const routePatterns = new Set<string>();
  const pricePatterns = new Set<string>();
  const targetsOf = (side: unknown) => {
    const targets = side && typeof side === 'object' && 'targets' in side ? (side as { targets: unknown }).targets : null;
    if (!Array.isArray(targets)) return;
    for (const t of targets) if (t && typeof t === 'object' && typeof t.providerId === 'string') providerIds.add(t.providerId);
  };
  for (const row of rows) {
    if (row.targetId !== null && row.targetType === 'provider') providerIds.add(row.targetId);
    if (row.targetId !== null && row.targetType === 'route') routePatterns.add(row.targetId);
    if (row.targetId !== null && row.targetType === 'price') pricePatterns.add(row.targetId);
    targetsOf(row.before);
    targetsOf(row.after);
  }
  const [providerRows, routeRows, priceRows] = await Promise.all([
    providerIds.size > 0
      ? db
          .select({ id: providers.id, name: providers.name })
          .from(providers)
          .where(inArray(providers.id, [...providerIds]))
      : [],
    routePatterns.size > 0
      ? db
          .select({ pattern: modelRoutes.pattern })
          .from(modelRoutes)
          .where(inArray(modelRoutes.pattern, [...routePatterns]))
      : [],
    pricePatterns.size > 0
      ? db
          .select({ pattern: modelPrices.pattern })
          .from(modelPrices)
          .where(inArray(modelPrices.pattern, [...pricePatterns]))
      : [],
  ]);
  // The built-in provider has no row: it always exists, under its id.
  const providerNames = new Map<string, string>([[DEFAULT_PROVIDER_ID, DEFAULT_PROVIDER_ID], ...providerRows.map((p) => [p.id, p.name] as const)]);
  return { providers: providerNames, routes: new Set(routeRows.map((r) => r.pattern)), prices: new Set(priceRows.map((r) => r.pattern)) };
}

/** `currency`: the balance currency, in which the Russian view writes the sums. */
export function createAuditLog(db: Database, currency: string) {
  /** Target accounts by id: the log names users by e-mail, the way operators know them. */
  const targetUser = alias(users, 'target_user');

  return {
    /**
     * Newest first, paged by an opaque cursor; optionally one record's history, one action, the rows of the
     * accounts whose e-mail contains `email` (as operator or as target), and a period of UTC days. Each
     * filter walks an index that starts with its column and ends with (created_at, id).
     */
    async list(query: AuditQuery) {
      const filters: SQL[] = [];
      if (query.targetId) filters.push(eq(adminAudit.targetId, query.targetId));
      if (query.action) filters.push(eq(adminAudit.action, query.action));
      if (query.email) {
        const matched = await db
          .select({ id: users.id })
          .from(users)
          .where(ilike(users.email, likeContains(query.email.toLowerCase())))
          .limit(EMAIL_FILTER_MAX_USERS + 1);
        if (matched.length > EMAIL_FILTER_MAX_USERS) throw new AppError('invalid_request_error', adminMessages.auditEmailTooBroad, { param: 'email' });
        if (matched.length === 0) return { data: [], nextCursor: null };
        const ids = matched.map((m) => m.id);
        filters.push(or(inArray(adminAudit.targetId, ids), inArray(adminAudit.adminId, ids))!);
      }
      if (query.from) filters.push(gte(adminAudit.createdAt, new Date(`${query.from}T00:00:00Z`)));
      if (query.to) filters.push(lt(adminAudit.createdAt, new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS)));
      if (query.cursor) {
        filters.push(afterCursor(adminAudit.createdAt, adminAudit.id, decodeCursor(query.cursor, /^\d{1,19}$/), 'desc'));
      }
      const rows = await db
        .select({ entry: adminAudit, targetEmail: targetUser.email, cursorAt: cursorTime(adminAudit.createdAt) })
        .from(adminAudit)
        .leftJoin(targetUser, and(eq(adminAudit.targetType, 'user'), eq(sql`${targetUser.id}::text`, adminAudit.targetId)))
        .where(filters.length > 0 ? and(...filters) : undefined)
        .orderBy(desc(adminAudit.createdAt), desc(adminAudit.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.entry.id);
      const names = await namesFor(
        db,
        page.map((r) => r.entry),
      );
      return {
        data: page.map(({ entry: e, targetEmail }) => {
          const raw = {
            action: e.action,
            targetType: e.targetType,
            targetId: e.targetId,
            targetEmail: targetEmail ?? null,
            before: (e.before ?? null) as JsonObject | null,
            after: (e.after ?? null) as JsonObject | null,
          };
          return {
            id: e.id.toString(),
            createdAt: e.createdAt.toISOString(),
            adminId: e.adminId,
            adminEmail: e.adminEmail,
            ...raw,
            ...describeAudit(raw, names, currency),
          };
        }),
        nextCursor,
      };
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
