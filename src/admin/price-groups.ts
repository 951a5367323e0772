// Operators' side of the price groups (issue 45): the groups (multiplier, allowed models, the default for
// new accounts), each group's own prices, and moving an account from one group to another. Each change and
// its audit row are one transaction; a change of a group or its prices announces itself to every
// instance's price book (NOTIFY on the prices channel, delivered at commit) and this instance reloads at
// once after the commit; a move drops the account's cached keys everywhere (the keys carry the group).
//
// Lock order: a delete locks its group row (FOR UPDATE) before counting its accounts; a move takes the
// row's KEY SHARE (the foreign key) and waits, then fails the key check and is answered 404.
import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { users } from '../accounts/tables';
import type { Database, Executor } from '../db/client';
import { isUuid } from '../db/uuid';
import { gatewayMessages } from '../gateway';
import { AppError, isUniqueViolation } from '../http/errors';
import { USER_KEYS_CHANGED_CHANNEL } from '../keys';
import { nanoToDecimalString } from '../money';
import { PRICES_CHANGED_CHANNEL, type GroupPriceRow, type PriceBook, type PriceGroup, type PriceKind } from '../pricing/prices';
import { priceGroupPrices, priceGroups } from '../pricing/tables';
import { recordAudit, type AuditActor, type JsonObject } from './audit';
import { priceRowView } from './prices';
import { adminMessages } from './texts';

export interface NewPriceGroup {
  name: string;
  title: string;
  multiplierPpm: bigint;
  allowedModels: string[] | null;
  isDefault: boolean;
}

export interface PriceGroupPatch {
  title?: string | undefined;
  multiplierPpm?: bigint | undefined;
  allowedModels?: string[] | null | undefined;
  isDefault?: true | undefined;
}

export interface GroupPriceInput {
  pattern: string;
  kind: PriceKind;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  perSecondNano: bigint;
}

/** A multiplier in parts per million as the exact decimal it is ("1.25"). */
const multiplierText = (ppm: bigint) => nanoToDecimalString(ppm * 1000n);

const groupPriceView = (row: GroupPriceRow) => priceRowView(row);

function groupView(group: PriceGroup, users: number, prices: GroupPriceRow[]) {
  return {
    name: group.name,
    title: group.title,
    multiplier: Number(multiplierText(group.multiplierPpm)),
    allowedModels: group.allowedModels,
    isDefault: group.isDefault,
    users,
    prices: prices.map(groupPriceView),
  };
}

export type PriceGroupView = ReturnType<typeof groupView>;

/** A group as the audit log keeps it. */
function auditedGroup(group: PriceGroup): JsonObject {
  return { title: group.title, multiplier: multiplierText(group.multiplierPpm), allowedModels: group.allowedModels, isDefault: group.isDefault };
}

/** A group's price as the audit log keeps it: exact decimal strings per 1M tokens (or a second of audio). */
function auditedPrice(row: Pick<GroupPriceRow, 'pattern' | 'promptNanoPerMillion' | 'completionNanoPerMillion' | 'kind' | 'perSecondNano'>): JsonObject {
  return {
    pattern: row.pattern,
    promptPerMillion: nanoToDecimalString(row.promptNanoPerMillion),
    completionPerMillion: nanoToDecimalString(row.completionNanoPerMillion),
    ...(row.kind === 'per_second' ? { kind: 'per_second', perSecond: nanoToDecimalString(row.perSecondNano) } : {}),
  };
}

const groupColumns = {
  name: priceGroups.name,
  title: priceGroups.title,
  multiplierPpm: priceGroups.multiplierPpm,
  allowedModels: priceGroups.allowedModels,
  isDefault: priceGroups.isDefault,
};

/** True when a database error (possibly wrapped) is a foreign-key violation. */
function isForeignKeyViolation(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === '23503') return true;
  }
  return false;
}

export function createAdminPriceGroups({
  db,
  prices,
  onUserKeysChanged,
}: {
  db: Database;
  prices: Pick<PriceBook, 'reload'>;
  /** Drops the user's cached keys on this instance at once (the NOTIFY reaches the others, and this one later). */
  onUserKeysChanged?: (userId: string) => void;
}) {
  async function findGroup(executor: Executor, name: string, lock = false): Promise<PriceGroup | null> {
    const query = executor.select(groupColumns).from(priceGroups).where(eq(priceGroups.name, name)).limit(1);
    const [row] = lock ? await query.for('update') : await query;
    return row ?? null;
  }

  async function requireGroup(executor: Executor, name: string, lock = false): Promise<PriceGroup> {
    const group = await findGroup(executor, name, lock);
    if (!group) throw new AppError('not_found', adminMessages.priceGroupNotFound);
    return group;
  }

  async function usersIn(executor: Executor, name: string): Promise<number> {
    const [row] = await executor.select({ n: sql<string>`count(*)::text` }).from(users).where(eq(users.priceGroup, name));
    return Number(row?.n ?? 0);
  }

  async function pricesOf(executor: Executor, name: string): Promise<GroupPriceRow[]> {
    return executor.select().from(priceGroupPrices).where(eq(priceGroupPrices.groupName, name)).orderBy(asc(priceGroupPrices.pattern));
  }

  async function viewOf(executor: Executor, name: string): Promise<PriceGroupView> {
    const group = await requireGroup(executor, name);
    return groupView(group, await usersIn(executor, name), await pricesOf(executor, name));
  }

  /** Makes `name` the one default: the flag leaves the old default first (the partial unique index). */
  async function moveDefault(tx: Executor, name: string) {
    await tx
      .update(priceGroups)
      .set({ isDefault: false, updatedAt: sql`now()` })
      .where(and(eq(priceGroups.isDefault, true), ne(priceGroups.name, name)));
    await tx.update(priceGroups).set({ isDefault: true, updatedAt: sql`now()` }).where(eq(priceGroups.name, name));
  }

  const announce = (tx: Executor) => tx.execute(sql`select pg_notify(${PRICES_CHANGED_CHANNEL}, '')`);

  /** Runs a change of the groups, then reloads this instance's book (the others hear the NOTIFY). */
  async function change<T>(work: (tx: Executor) => Promise<T>): Promise<T> {
    const result = await db.transaction(async (tx) => {
      const out = await work(tx);
      await announce(tx);
      return out;
    });
    await prices.reload();
    return result;
  }

  return {
    /** Every group with its accounts counted and its own prices, the default first. */
    async list(): Promise<PriceGroupView[]> {
      const [groups, counts, rows] = await Promise.all([
        db.select(groupColumns).from(priceGroups).orderBy(sql`${priceGroups.isDefault} desc`, asc(priceGroups.name)),
        db.select({ group: users.priceGroup, n: sql<string>`count(*)::text` }).from(users).groupBy(users.priceGroup),
        db.select().from(priceGroupPrices).orderBy(asc(priceGroupPrices.groupName), asc(priceGroupPrices.pattern)),
      ]);
      const count = new Map(counts.map((c) => [c.group, Number(c.n)]));
      return groups.map((g) =>
        groupView(
          g,
          count.get(g.name) ?? 0,
          rows.filter((r) => r.groupName === g.name),
        ),
      );
    },

    get: (name: string) => viewOf(db, name),

    async create(actor: AuditActor, input: NewPriceGroup): Promise<PriceGroupView> {
      try {
        return await change(async (tx) => {
          await tx.insert(priceGroups).values({ ...input, isDefault: false });
          if (input.isDefault) await moveDefault(tx, input.name);
          const created = await requireGroup(tx, input.name);
          await recordAudit(tx, actor, { action: 'price_group.create', targetType: 'price_group', targetId: input.name, before: null, after: auditedGroup(created) });
          return groupView(created, 0, []);
        });
      } catch (error) {
        if (isUniqueViolation(error, 'price_groups_pkey')) throw new AppError('conflict', adminMessages.priceGroupExists, { param: 'name' });
        throw error;
      }
    },

    async update(actor: AuditActor, name: string, patch: PriceGroupPatch): Promise<PriceGroupView> {
      return change(async (tx) => {
        const before = await requireGroup(tx, name, true);
        const set: Partial<typeof priceGroups.$inferInsert> = {};
        if (patch.title !== undefined) set.title = patch.title;
        if (patch.multiplierPpm !== undefined) set.multiplierPpm = patch.multiplierPpm;
        if (patch.allowedModels !== undefined) set.allowedModels = patch.allowedModels;
        if (Object.keys(set).length > 0)
          await tx
            .update(priceGroups)
            .set({ ...set, updatedAt: sql`now()` })
            .where(eq(priceGroups.name, name));
        if (patch.isDefault && !before.isDefault) await moveDefault(tx, name);
        const after = await requireGroup(tx, name);
        await recordAudit(tx, actor, {
          action: 'price_group.update',
          targetType: 'price_group',
          targetId: name,
          before: auditedGroup(before),
          after: auditedGroup(after),
        });
        return groupView(after, await usersIn(tx, name), await pricesOf(tx, name));
      });
    },

    /** 409 while the group is the default or has accounts. */
    async remove(actor: AuditActor, name: string): Promise<void> {
      try {
        await change(async (tx) => {
          const before = await requireGroup(tx, name, true);
          if (before.isDefault) throw new AppError('conflict', adminMessages.priceGroupIsDefault);
          const count = await usersIn(tx, name);
          if (count > 0) throw new AppError('conflict', adminMessages.priceGroupHasUsers(count));
          const overrides = await pricesOf(tx, name);
          await tx.delete(priceGroups).where(eq(priceGroups.name, name));
          await recordAudit(tx, actor, {
            action: 'price_group.delete',
            targetType: 'price_group',
            targetId: name,
            before: { ...auditedGroup(before), prices: overrides.map(auditedPrice) },
            after: null,
          });
        });
      } catch (error) {
        // An account moved in between the count and the delete: the key refuses the delete.
        if (isForeignKeyViolation(error)) throw new AppError('conflict', adminMessages.priceGroupHasUsers(1));
        throw error;
      }
    },

    /** Sets the group's own price for a model id or prefix (it replaces list price × multiplier there). */
    async putPrice(actor: AuditActor, name: string, input: GroupPriceInput) {
      return change(async (tx) => {
        await requireGroup(tx, name);
        const [before] = await tx
          .select()
          .from(priceGroupPrices)
          .where(and(eq(priceGroupPrices.groupName, name), eq(priceGroupPrices.pattern, input.pattern)));
        const values = { ...input, updatedAt: sql`now()` };
        const [after] = await tx
          .insert(priceGroupPrices)
          .values({ groupName: name, ...values })
          .onConflictDoUpdate({ target: [priceGroupPrices.groupName, priceGroupPrices.pattern], set: values })
          .returning();
        await recordAudit(tx, actor, {
          action: 'price_group.price_upsert',
          targetType: 'price_group',
          targetId: name,
          before: before ? auditedPrice(before) : null,
          after: auditedPrice(after!),
        });
        return groupPriceView(after!);
      });
    },

    async removePrice(actor: AuditActor, name: string, pattern: string): Promise<void> {
      await change(async (tx) => {
        await requireGroup(tx, name);
        const [before] = await tx
          .delete(priceGroupPrices)
          .where(and(eq(priceGroupPrices.groupName, name), eq(priceGroupPrices.pattern, pattern)))
          .returning();
        if (!before) throw new AppError('not_found', adminMessages.groupPriceNotFound);
        await recordAudit(tx, actor, { action: 'price_group.price_delete', targetType: 'price_group', targetId: name, before: auditedPrice(before), after: null });
      });
    },

    /**
     * Moves an account (a person or an organisation) to a group: from its next request on every instance,
     * since the move drops the account's cached keys everywhere (NOTIFY at commit).
     */
    async moveUser(actor: AuditActor, userId: string, group: string): Promise<{ id: string; priceGroup: string }> {
      const [found] = isUuid(userId) ? await db.select({ priceGroup: users.priceGroup }).from(users).where(eq(users.id, userId)).limit(1) : [];
      if (!found) throw new AppError('not_found', gatewayMessages.adminUserNotFound);
      try {
        await db.transaction(async (tx) => {
          await requireGroup(tx, group);
          const [moved] = await tx
            .update(users)
            .set({ priceGroup: group })
            .where(and(eq(users.id, userId), ne(users.priceGroup, group)))
            .returning({ id: users.id });
          if (!moved) return;
          await recordAudit(tx, actor, {
            action: 'user.price_group',
            targetType: 'user',
            targetId: userId,
            before: { priceGroup: found.priceGroup },
            after: { priceGroup: group },
          });
          await tx.execute(sql`select pg_notify(${USER_KEYS_CHANGED_CHANNEL}, ${userId})`);
        });
      } catch (error) {
        // The group was deleted between the check and the update.
        if (isForeignKeyViolation(error)) throw new AppError('not_found', adminMessages.priceGroupNotFound);
        throw error;
      }
      // The keys carry the group: the next request after this answer is priced in the new one here too.
      onUserKeysChanged?.(userId);
      return { id: userId, priceGroup: group };
    },
  };
}

export type AdminPriceGroups = ReturnType<typeof createAdminPriceGroups>;
