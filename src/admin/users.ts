// Operators' view of the accounts: the list with search and paging, one account in detail, credits and
// corrections of the balance, blocking.
//
// A user's money is users.balance_nano plus what balance leases hold for in-flight requests (see
// gateway/billing/), so every balance shown here is that sum. Writes follow the project's lock order:
// users rows are changed with a plain UPDATE, never read FOR UPDATE, because the billing writer holds
// KEY SHARE locks on them (the foreign key of ledger rows) while it works.
import { and, desc, eq, ilike, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { isUuid } from '../db/uuid';
import { endSessions } from '../accounts';
import type { Config } from '../config';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { rowsOf, type Database, type Executor } from '../db/client';
import { users } from '../accounts/tables';
import { ledgerEntries, usageRollupsAccountDaily as accountDaily } from '../gateway/tables';
import { type Billing, gatewayMessages } from '../gateway';
import { AppError } from '../http/errors';
import { adminMessages } from './texts';
import { USER_KEYS_CHANGED_CHANNEL, type KeyService } from '../keys';
import { formatMoneyText, nanoToDecimalString, nanoToUnits } from '../money';
import { recordAudit, type AuditActor } from './audit';
import { likeContains } from '../db/like';

/** How many ledger rows the detail view shows, newest first. */
export const DETAIL_LEDGER_ROWS = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface UserListQuery {
  limit: number;
  cursor?: string | undefined;
  search?: string | undefined;
}

export interface CreditInput {
  userId: string;
  amountNano: bigint;
  reason: string;
  reference: string;
}

// Written out rather than built from the column objects: in a one-table select Drizzle leaves columns
// unqualified, and inside these subqueries "id" would name the subquery's own table.
/** Balance plus leases: what the user owns, wherever it sits at the moment. */
const ownedNano = sql<string>`("users"."balance_nano" + coalesce(
  (select sum(b.amount_nano) from balance_leases b where b.user_id = "users"."id"), 0))::text`;

/**
 * Charged usage since the start of the current calendar month in UTC: whole UTC days, so the account's
 * daily sums alone (per model and provider: a few rows a day, however many keys and endpoints it uses).
 */
const spendThisMonthNano = sql<string>`coalesce(
  (select sum(r.cost_nano) from usage_rollups_account_daily r
   where r.user_id = "users"."id"
     and r.bucket >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'), 0)::text`;

const userColumns = {
  id: users.id,
  email: users.email,
  role: users.role,
  kind: users.kind,
  createdAt: users.createdAt,
  blockedAt: users.blockedAt,
  priceGroup: users.priceGroup,
  ownedNano,
  spendThisMonthNano,
};

type UserRow = {
  id: string;
  email: string;
  role: string;
  kind: string;
  createdAt: Date;
  blockedAt: Date | null;
  priceGroup: string;
  ownedNano: string;
  spendThisMonthNano: string;
};

function userView(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    role: row.role === 'admin' ? ('admin' as const) : ('user' as const),
    /** An organisation's account (organizations/) is listed with the people: its balance is the operator's business too. */
    kind: row.kind === 'organization' ? ('organization' as const) : ('person' as const),
    balance: nanoToUnits(BigInt(row.ownedNano)),
    createdAt: row.createdAt.toISOString(),
    blocked: row.blockedAt !== null,
    blockedAt: row.blockedAt ? row.blockedAt.toISOString() : null,
    spendThisMonth: nanoToUnits(BigInt(row.spendThisMonthNano)),
    /** The price group the account pays by (issue 45). */
    priceGroup: row.priceGroup,
  };
}

export type AdminUserView = ReturnType<typeof userView>;

export interface AdminUsersDeps {
  db: Database;
  billing: Pick<Billing, 'flush' | 'balanceNano' | 'returnIdleLeases'>;
  config: Pick<Config, 'balanceCurrency'>;
  /** The owner's key listing, limits and the period's spend included. */
  listKeys: KeyService['list'];
  /** Told after a block's commit: this instance's token cache forgets the user at once (others by NOTIFY). */
  onSessionsEnded?: (userId: string) => void;
  /** Told after a block or unblock commits: this instance's key cache drops the user's keys at once. */
  onUserKeysChanged?: (userId: string) => void;
}

/** Thrown inside the credit transaction (rolling it back) when a correction asks for more than is there. */
class BelowZero extends Error {
  constructor(readonly availableNano: bigint) {
    super('correction below zero');
  }
}

export function createAdminUsers({ db, billing, config, listKeys, onSessionsEnded, onUserKeysChanged }: AdminUsersDeps) {
  async function findUser(executor: Executor, userId: string): Promise<UserRow | null> {
    if (!isUuid(userId)) return null;
    const [row] = await executor.select(userColumns).from(users).where(eq(users.id, userId)).limit(1);
    return row ?? null;
  }

  async function requireUser(executor: Executor, userId: string): Promise<UserRow> {
    const row = await findUser(executor, userId);
    if (!row) throw new AppError('not_found', gatewayMessages.adminUserNotFound);
    return row;
  }

  /**
   * The user's stored balance plus leases, read in `tx` after our UPDATE: no lease of this user can be
   * taken or returned until we commit (both update the row we hold), so the sum is consistent.
   */
  async function ownedIn(tx: Executor, userId: string): Promise<bigint> {
    const [row] = await tx.select({ ownedNano }).from(users).where(eq(users.id, userId));
    return BigInt(row!.ownedNano);
  }

  /**
   * One attempt at a credit: ledger row, balance, audit row, in one transaction. Null when the reference
   * was used before (nothing written); BelowZero when a correction would take the balance under zero.
   */
  async function applyCredit(actor: AuditActor, input: CreditInput): Promise<bigint | null> {
    const amount = input.amountNano.toString();
    return db.transaction(async (tx) => {
      // The unique index on (kind, reference) makes the reference the credit's idempotency key; a second
      // request with it waits here for the first to commit, then inserts nothing.
      const inserted = await tx
        .insert(ledgerEntries)
        .values({ userId: input.userId, amountNano: input.amountNano, kind: 'admin_credit', reference: input.reference })
        .onConflictDoNothing()
        .returning({ id: ledgerEntries.id });
      if (inserted.length === 0) return null;

      const updated = rowsOf<{ balance_nano: unknown }>(
        await tx.execute(sql`
          update users set balance_nano = balance_nano + ${amount}::bigint
          where id = ${input.userId} and balance_nano + ${amount}::bigint >= 0
          returning balance_nano`),
      );
      if (updated.length === 0) {
        const [row] = await tx.select({ balanceNano: users.balanceNano }).from(users).where(eq(users.id, input.userId));
        throw new BelowZero(row?.balanceNano ?? 0n);
      }
      const after = await ownedIn(tx, input.userId);
      // After the users row, so the audit can carry the balance the credit produced. Its insert only takes
      // a KEY SHARE lock on the operator's own row, which nothing waiting for this user's row holds.
      await recordAudit(tx, actor, {
        action: 'user.credit',
        targetType: 'user',
        targetId: input.userId,
        before: { balance: nanoToDecimalString(after - input.amountNano) },
        after: {
          balance: nanoToDecimalString(after),
          amount: nanoToDecimalString(input.amountNano),
          reason: input.reason,
          reference: input.reference,
          ledgerEntryId: inserted[0]!.id.toString(),
        },
      });
      return after;
    });
  }

  /** A repeated reference must name the same credit; anything else is a mistake worth refusing. */
  async function checkRepeat(input: CreditInput): Promise<void> {
    const [earlier] = await db
      .select({ userId: ledgerEntries.userId, amountNano: ledgerEntries.amountNano })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.kind, 'admin_credit'), eq(ledgerEntries.reference, input.reference)))
      .limit(1);
    if (earlier && (earlier.userId !== input.userId || earlier.amountNano !== input.amountNano)) {
      throw new AppError('conflict', adminMessages.creditReferenceTaken, { param: 'reference' });
    }
  }

  async function setBlocked(actor: AuditActor, userId: string, blocked: boolean): Promise<AdminUserView> {
    if (blocked && userId === actor.userId) throw new AppError('invalid_request_error', adminMessages.adminCannotBlockSelf);
    await billing.flush();
    const view = await db.transaction(async (tx) => {
      const before = await requireUser(tx, userId);
      // Conditional, so that of two concurrent requests one changes the row and writes the audit row.
      const changed = await tx
        .update(users)
        .set({ blockedAt: blocked ? sql`now()` : null })
        .where(and(eq(users.id, userId), blocked ? isNull(users.blockedAt) : isNotNull(users.blockedAt)))
        .returning({ blockedAt: users.blockedAt });
      if (changed.length === 0) return userView(await requireUser(tx, userId));
      // A block ends every dashboard session for good: an unblock later does not bring the old tokens
      // back (the user logs in again), so nobody's stolen token outlives a block.
      if (blocked) await endSessions(tx, userId);
      await recordAudit(tx, actor, {
        action: blocked ? 'user.block' : 'user.unblock',
        targetType: 'user',
        targetId: userId,
        before: { blocked: before.blockedAt !== null, blockedAt: before.blockedAt?.toISOString() ?? null },
        after: { blocked, blockedAt: changed[0]!.blockedAt?.toISOString() ?? null },
      });
      // Delivered at commit to every instance: their key caches drop this user's keys, so the next /v1
      // request with one of them sees the new state.
      await tx.execute(sql`select pg_notify(${USER_KEYS_CHANGED_CHANNEL}, ${userId})`);
      return userView(await requireUser(tx, userId));
    });
    if (blocked) onSessionsEnded?.(userId);
    // This instance drops the user's cached keys now, not when its own NOTIFY comes back: the next request
    // after the answer must already see the block.
    onUserKeysChanged?.(userId);
    return view;
  }

  return {
    /** Newest first, by (created_at, id); `search` is a case-insensitive substring of the e-mail. */
    async list(query: UserListQuery) {
      await billing.flush();
      const filters: SQL[] = [];
      if (query.search) filters.push(ilike(users.email, likeContains(query.search)));
      if (query.cursor) filters.push(afterCursor(users.createdAt, users.id, decodeCursor(query.cursor, UUID), 'desc'));
      const rows = await db
        .select({ ...userColumns, cursorAt: cursorTime(users.createdAt) })
        .from(users)
        .where(filters.length > 0 ? and(...filters) : undefined)
        .orderBy(desc(users.createdAt), desc(users.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.id);
      return { data: page.map(userView), nextCursor };
    },

    async detail(userId: string) {
      await billing.flush();
      const user = await requireUser(db, userId);
      const [keys, usage, ledger, byProvider] = await Promise.all([
        // As the owner's own listing shows them: limits and the current period's spend included.
        listKeys(userId),
        // All of the account's usage: its daily sums per model and provider, summed.
        db
          .select({
            model: accountDaily.model,
            requests: sql<string>`sum(${accountDaily.requests})::text`,
            promptTokens: sql<string>`sum(${accountDaily.promptTokens})::text`,
            completionTokens: sql<string>`sum(${accountDaily.completionTokens})::text`,
            totalTokens: sql<string>`sum(${accountDaily.totalTokens})::text`,
            costNano: sql<string>`sum(${accountDaily.costNano})::text`,
            promptCostNano: sql<string>`sum(${accountDaily.promptCostNano})::text`,
            completionCostNano: sql<string>`sum(${accountDaily.completionCostNano})::text`,
            unpaidNano: sql<string>`sum(${accountDaily.unpaidNano})::text`,
          })
          .from(accountDaily)
          .where(eq(accountDaily.userId, userId))
          .groupBy(accountDaily.model)
          .orderBy(desc(sql`sum(${accountDaily.costNano})`), accountDaily.model),
        db
          .select({
            id: ledgerEntries.id,
            amountNano: ledgerEntries.amountNano,
            kind: ledgerEntries.kind,
            reference: ledgerEntries.reference,
            createdAt: ledgerEntries.createdAt,
          })
          .from(ledgerEntries)
          .where(eq(ledgerEntries.userId, userId))
          .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
          .limit(DETAIL_LEDGER_ROWS),
        // Which providers served the account, and how often a request needed more than one: the operator's
        // view only (the customer's own usage never names providers).
        db
          .select({
            provider: accountDaily.providerId,
            requests: sql<string>`sum(${accountDaily.requests})::text`,
            failedOver: sql<string>`sum(${accountDaily.retriedRequests})::text`,
            attempts: sql<string>`sum(${accountDaily.attempts})::text`,
            costNano: sql<string>`sum(${accountDaily.costNano})::text`,
            // None when no request of the provider had a cost price.
            providerCostNano: sql<string | null>`case when sum(${accountDaily.pricedRequests}) > 0 then sum(${accountDaily.providerCostNano}) end::text`,
          })
          .from(accountDaily)
          .where(eq(accountDaily.userId, userId))
          .groupBy(accountDaily.providerId)
          .orderBy(desc(sql`sum(${accountDaily.requests})`), accountDaily.providerId),
      ]);
      return {
        user: userView(user),
        keys: keys.keys.map((k) => ({
          id: k.id,
          name: k.name,
          keyPrefix: k.keyPrefix,
          createdAt: k.createdAt,
          lastUsedAt: k.lastUsedAt,
          isActive: k.isActive,
          spendLimit: k.spendLimit,
          limitReset: k.limitReset,
          spentThisPeriod: k.spentThisPeriod,
          expired: k.expired,
        })),
        usageByModel: usage.map((u) => ({
          model: u.model,
          requests: Number(u.requests),
          promptTokens: Number(u.promptTokens),
          completionTokens: Number(u.completionTokens),
          totalTokens: Number(u.totalTokens),
          cost: nanoToUnits(BigInt(u.costNano)),
          promptCost: nanoToUnits(BigInt(u.promptCostNano)),
          completionCost: nanoToUnits(BigInt(u.completionCostNano)),
          unpaid: nanoToUnits(BigInt(u.unpaidNano)),
        })),
        usageByProvider: byProvider.map((p) => ({
          provider: p.provider,
          requests: Number(p.requests),
          failedOver: Number(p.failedOver),
          attempts: Number(p.attempts),
          cost: nanoToUnits(BigInt(p.costNano)),
          providerCost: p.providerCostNano === null ? null : nanoToUnits(BigInt(p.providerCostNano)),
        })),
        ledger: ledger.map((l) => ({
          id: l.id.toString(),
          amount: nanoToUnits(l.amountNano),
          kind: l.kind,
          reference: l.reference,
          createdAt: l.createdAt.toISOString(),
        })),
      };
    },

    /**
     * Credits (or, negative, corrects) a balance once per reference and answers the balance after it.
     * A correction takes only what is not leased: money an instance has set aside for in-flight requests
     * comes back to the balance when they end (idle leases within seconds), so the message says to retry.
     * This instance's idle leases are handed back at once before the answer is final; other instances'
     * return on their own schedule.
     */
    async credit(actor: AuditActor, input: CreditInput): Promise<{ balanceNano: bigint }> {
      const [exists] = isUuid(input.userId) ? await db.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).limit(1) : [];
      if (!exists) throw new AppError('not_found', gatewayMessages.adminUserNotFound);
      await billing.flush();
      let shortfall: BelowZero | null = null;
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const after = await applyCredit(actor, input);
          if (after === null) {
            await checkRepeat(input);
            return { balanceNano: await billing.balanceNano(input.userId) };
          }
          return { balanceNano: after };
        } catch (error) {
          if (!(error instanceof BelowZero)) throw error;
          shortfall = error;
          if (attempt === 0) await billing.returnIdleLeases(true);
        }
      }
      throw new AppError('invalid_request_error', adminMessages.creditBelowZero(formatMoneyText(shortfall!.availableNano, config.balanceCurrency)));
    },

    block: (actor: AuditActor, userId: string) => setBlocked(actor, userId, true),
    unblock: (actor: AuditActor, userId: string) => setBlocked(actor, userId, false),
  };
}

export type AdminUsers = ReturnType<typeof createAdminUsers>;
