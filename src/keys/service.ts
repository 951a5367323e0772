// API key records: creation (the secret shown once), listing, revocation, verification.
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { generateApiKey } from './api-keys';
import { isUuid } from '../db/uuid';
import type { Config } from '../config';
import { rowsOf, type Database, type Executor } from '../db/client';
import { users } from '../accounts/tables';
import { apiKeys } from './tables';
import { AppError } from '../http/errors';
import { keysMessages } from './texts';
import { nanoToUnits } from '../money';
import { periodStart, type LimitReset, type MemberLimitRef } from './limits';
import type { KeyCacheMode, KeyScope } from './types';
import { notifyMemberKeys, writeMemberLimit } from './member-limits';

/** A key's limit and expiry as its owner sets them (nano-units; null removes). */
export interface KeyLimits {
  spendLimitNano?: bigint | null;
  limitReset?: LimitReset;
  expiresAt?: Date | null;
  /** The key's own rate limits; null: the config's default. */
  rpm?: number | null;
  tpm?: number | null;
  rpd?: number | null;
}

/** A key's own rate limits (null: the operator's default for keys). */
export interface KeyRates {
  rpm: number | null;
  tpm: number | null;
  rpd: number | null;
}

export interface ListedKey extends KeyRates {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  isActive: boolean;
  /** In the balance currency; null: no limit of its own. */
  spendLimit: number | null;
  limitReset: LimitReset;
  expiresAt: string | null;
  expired: boolean;
  /** What the key spent since its period began (all time for a limit that never resets). */
  spentThisPeriod: number;
  /**
   * The period's limit is used up: its spend reached the limit, or its newest call was refused for the limit
   * (since the limit last changed). Calls with the key get 402 until the period ends or the limit is raised.
   */
  limitReached: boolean;
  periodStart: string;
  /** key: the key reads its own usage only; account: the whole account's, as the dashboard does. */
  scope: KeyScope;
  /** Which of the key's chat requests the response cache answers. */
  cache: KeyCacheMode;
  /** In an organisation: the member who created the key; null for a person's own key. */
  createdBy: string | null;
}

export interface CreatedKey extends ListedKey {
  key: string;
  warning: string;
}

/** What the gateway needs to know about a presented key. */
export interface VerifiedKey {
  keyId: string;
  userId: string;
  isActive: boolean;
  /** Milliseconds since the epoch; null: never expires. */
  expiresAt: number | null;
  /** The reset of the key's spend limit; null when the key has no limit. */
  limitReset: LimitReset | null;
  /** An organisation's key whose creator has a monthly limit in it: that limit holds too; else null. */
  memberLimit: MemberLimitRef | null;
  /** The owner was blocked by an operator: every key of theirs is refused. */
  userBlocked: boolean;
  /** Which usage the key may read (keys/scope.ts). */
  scope: KeyScope;
  /** The key's response cache mode. */
  cache: KeyCacheMode;
  /** The key's own rate limits, as the gateway's limiter reads them. */
  rates: KeyRates;
  /** The owner is an organisation (organizations/): the key belongs to it and names its creator. */
  organization: boolean;
  /** In an organisation: the member who created the key (null: the account's own key). */
  createdBy: string | null;
  /** The owner's price group (pricing/): what the key's requests are priced at and may call. */
  priceGroup: string;
}

/** NOTIFY channel on which a key's revocation or changed limits reach every instance (payload: key id). */
export const KEY_REVOKED_CHANNEL = 'conduit_key_revoked';
/** NOTIFY channel for a user whose keys all changed standing (blocked, unblocked); payload: user id. */
export const USER_KEYS_CHANGED_CHANNEL = 'conduit_user_keys_changed';

const keyColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  keyPrefix: apiKeys.keyPrefix,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
  expiresAt: apiKeys.expiresAt,
  spendLimitNano: apiKeys.spendLimitNano,
  limitReset: apiKeys.limitReset,
  limitChangedAt: apiKeys.limitChangedAt,
  scope: apiKeys.scope,
  cache: apiKeys.cache,
  rpm: apiKeys.rpm,
  tpm: apiKeys.tpm,
  rpd: apiKeys.rpd,
  createdBy: apiKeys.createdBy,
};
export interface KeyRow extends KeyRates {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  spendLimitNano: bigint | null;
  limitReset: string;
  limitChangedAt: Date | null;
  scope: string;
  cache: string;
  createdBy: string | null;
}

/**
 * What keys spent in their current periods, by key id: a sum of the keys' daily usage rollups, kept with
 * the usage rows. A period starts at a UTC midnight, so its days are whole.
 */
async function spentInPeriods(executor: Executor, keys: { id: string; periodStart: Date }[]): Promise<Map<string, bigint>> {
  const spent = new Map<string, bigint>();
  if (keys.length === 0) return spent;
  const values = sql.join(
    keys.map((k) => sql`(${k.id}::uuid, ${k.periodStart.toISOString()}::timestamptz)`),
    sql`, `,
  );
  const rows = rowsOf<{ id: string; spent: unknown }>(
    await executor.execute(sql`
      select v.id, coalesce(sum(u.cost_nano), 0)::text as spent
      from (values ${values}) as v(id, since)
      left join usage_rollups_daily u on u.api_key_id is not null and u.api_key_id = v.id and u.bucket >= v.since
      group by v.id`),
  );
  for (const row of rows) spent.set(row.id, BigInt(row.spent as string));
  return spent;
}

/** A key's newest usage row: when, and how it ended (usage_records.status). */
interface LastUsage {
  at: Date;
  status: string;
}

/**
 * The newest usage row of each key, by key id. api_keys.last_used_at is written in batches every ~10 s
 * (verifier.ts), so right after paid calls it lags the usage rows the same page shows; a row is written
 * with its settlement, on whichever instance served it. One backward step of the (api_key_id, created_at)
 * index per partition and key.
 */
async function lastUsageRows(executor: Executor, ids: string[]): Promise<Map<string, LastUsage>> {
  const times = new Map<string, LastUsage>();
  if (ids.length === 0) return times;
  const values = sql.join(
    ids.map((id) => sql`(${id}::uuid)`),
    sql`, `,
  );
  const rows = rowsOf<{ id: string; at: string; status: string }>(
    await executor.execute(sql`
      select v.id, to_char(m.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, m.status
      from (values ${values}) as v(id)
      cross join lateral (
        select u.created_at, u.status from usage_records u where u.api_key_id = v.id
        order by u.created_at desc limit 1
      ) m`),
  );
  for (const row of rows) times.set(row.id, { at: new Date(row.at), status: row.status });
  return times;
}

/** The later of the batched last-use time and the newest usage row. */
function latest(a: Date | null, b: Date | undefined): Date | null {
  if (!b) return a;
  return a === null || a.getTime() < b.getTime() ? b : a;
}

/**
 * Whether the key's limit for this period is used up: spent to the limit, or its newest call was refused
 * for the limit in this period, after the limit was last changed (a refusal comes before the spend reaches
 * the limit when what is left cannot cover one more request's reservation).
 */
function limitReached(row: KeyRow, spent: bigint, since: Date, lastUsage: LastUsage | undefined): boolean {
  if (row.spendLimitNano === null) return false;
  if (spent >= row.spendLimitNano) return true;
  if (lastUsage?.status !== 'refused_key_limit') return false;
  const at = lastUsage.at.getTime();
  return at >= since.getTime() && (row.limitChangedAt === null || at >= row.limitChangedAt.getTime());
}

function listed(row: KeyRow, spent: bigint, now: number, lastUsage?: LastUsage): ListedKey {
  const reset = row.limitReset as LimitReset;
  const lastUsedAt = latest(row.lastUsedAt, lastUsage?.at);
  const since = periodStart(reset, now);
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: lastUsedAt ? lastUsedAt.toISOString() : null,
    isActive: row.revokedAt === null,
    spendLimit: row.spendLimitNano === null ? null : nanoToUnits(row.spendLimitNano),
    limitReset: reset,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    expired: row.expiresAt !== null && row.expiresAt.getTime() <= now,
    spentThisPeriod: nanoToUnits(spent),
    limitReached: limitReached(row, spent, since, lastUsage),
    periodStart: since.toISOString(),
    scope: row.scope as KeyScope,
    cache: row.cache as KeyCacheMode,
    rpm: row.rpm,
    tpm: row.tpm,
    rpd: row.rpd,
    createdBy: row.createdBy,
  };
}

/**
 * Sets a key's unclaimed budget for the current period from its limit: limit − spent − claimed by
 * instances, never below zero (see key_leases in gateway/tables.ts). Runs in the transaction that changed the
 * limit, with the key's row locked.
 */
async function resetBudget(tx: Executor, keyId: string, limitNano: bigint | null, reset: LimitReset): Promise<void> {
  if (limitNano === null) {
    await tx.update(apiKeys).set({ budgetNano: 0n, budgetPeriodStart: null }).where(eq(apiKeys.id, keyId));
    return;
  }
  const since = periodStart(reset);
  const spent = (await spentInPeriods(tx, [{ id: keyId, periodStart: since }])).get(keyId) ?? 0n;
  const [claimed] = rowsOf<{ total: unknown }>(
    await tx.execute(sql`
      select coalesce(sum(amount_nano), 0)::text as total from key_leases
      where key_id = ${keyId} and period_start = ${since.toISOString()}::timestamptz`),
  );
  const left = limitNano - spent - BigInt((claimed?.total as string) ?? '0');
  await tx
    .update(apiKeys)
    .set({ budgetNano: left > 0n ? left : 0n, budgetPeriodStart: since })
    .where(eq(apiKeys.id, keyId));
}

/** An operator's change writes its audit row with `tx`, the transaction that makes the change. */
export type KeyAudit = (tx: Executor, change: { before: KeyRow; after: KeyRow }) => Promise<void>;

export interface KeyServiceDeps {
  db: Database;
  config: Pick<Config, 'maxKeysPerUser'>;
  /** Called on the revoking instance at once, before any notification round trip. */
  onRevoked?: (keyId: string) => void;
}

/**
 * Whose keys a call reaches: the account's (`userId`), narrowed in an organisation to the keys one member
 * created (`onlyCreatedBy`: a developer sees and changes only their own).
 */
export interface KeyOwner {
  userId: string;
  onlyCreatedBy?: string | undefined;
}

const ownerOf = (owner: string | KeyOwner): KeyOwner => (typeof owner === 'string' ? { userId: owner } : owner);
const ownedBy = (owner: KeyOwner) =>
  owner.onlyCreatedBy === undefined ? eq(apiKeys.userId, owner.userId) : and(eq(apiKeys.userId, owner.userId), eq(apiKeys.createdBy, owner.onlyCreatedBy))!;

export function createKeyService({ db, config, onRevoked }: KeyServiceDeps) {
  return {
    /** `createdBy`: in an organisation, the member creating the key (it belongs to the organisation, `userId`). */
    async create(
      userId: string,
      name: string,
      limits: KeyLimits = {},
      scope: KeyScope = 'key',
      cache: KeyCacheMode = 'off',
      createdBy: string | null = null,
    ): Promise<CreatedKey> {
      return db.transaction(async (tx) => {
        // Locking the owner's row serialises that user's creations, so parallel ones cannot pass the cap
        // together (NO KEY UPDATE: it must not wait for the billing writer's foreign-key locks).
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
        const [{ value: existing } = { value: 0 }] = await tx
          .select({ value: count() })
          .from(apiKeys)
          .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
        if (Number(existing) >= config.maxKeysPerUser) {
          throw new AppError('invalid_request_error', keysMessages.tooManyKeys(config.maxKeysPerUser));
        }
        const generated = generateApiKey();
        const reset = limits.limitReset ?? 'none';
        const limit = limits.spendLimitNano ?? null;
        const [row] = await tx
          .insert(apiKeys)
          .values({
            userId,
            name,
            createdBy,
            keyPrefix: generated.keyPrefix,
            keyHash: generated.keyHash,
            spendLimitNano: limit,
            limitReset: reset,
            expiresAt: limits.expiresAt ?? null,
            budgetNano: limit ?? 0n,
            budgetPeriodStart: limit === null ? null : periodStart(reset),
            scope,
            cache,
            rpm: limits.rpm ?? null,
            tpm: limits.tpm ?? null,
            rpd: limits.rpd ?? null,
          })
          .returning(keyColumns);
        return { ...listed(row!, 0n, Date.now()), key: generated.key, warning: keysMessages.keyWarning };
      });
    },

    /**
     * Changes a key's name, limit, reset or expiry. A new limit applies to what the key already spent in
     * the period; every instance drops its cached record and its claim on the old limit.
     */
    async update(owner: string | KeyOwner, keyId: string, changes: KeyLimits & { name?: string; cache?: KeyCacheMode }, audit?: KeyAudit): Promise<ListedKey> {
      if (!isUuid(keyId)) throw new AppError('not_found', keysMessages.keyNotFound);
      const row = await db.transaction(async (tx) => {
        const [current] = await tx
          .select(keyColumns)
          .from(apiKeys)
          .where(and(eq(apiKeys.id, keyId), ownedBy(ownerOf(owner))))
          .for('no key update');
        if (!current) throw new AppError('not_found', keysMessages.keyNotFound);
        const limit = changes.spendLimitNano === undefined ? current.spendLimitNano : changes.spendLimitNano;
        const reset = changes.limitReset ?? (current.limitReset as LimitReset);
        const [updated] = await tx
          .update(apiKeys)
          .set({
            ...(changes.name !== undefined ? { name: changes.name } : {}),
            ...(changes.cache !== undefined ? { cache: changes.cache } : {}),
            spendLimitNano: limit,
            limitReset: reset,
            ...(limit !== current.spendLimitNano || reset !== current.limitReset ? { limitChangedAt: new Date() } : {}),
            expiresAt: changes.expiresAt === undefined ? current.expiresAt : changes.expiresAt,
            // The notification below tells every instance's limiter too.
            ...(changes.rpm !== undefined ? { rpm: changes.rpm } : {}),
            ...(changes.tpm !== undefined ? { tpm: changes.tpm } : {}),
            ...(changes.rpd !== undefined ? { rpd: changes.rpd } : {}),
          })
          .where(eq(apiKeys.id, keyId))
          .returning(keyColumns);
        const limitChanged = limit !== current.spendLimitNano || reset !== current.limitReset;
        if (limitChanged) await resetBudget(tx, keyId, limit, reset);
        await audit?.(tx, { before: current, after: updated! });
        await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${keyId})`);
        return updated!;
      });
      onRevoked?.(keyId);
      const now = Date.now();
      const spent = await spentInPeriods(db, [{ id: row.id, periodStart: periodStart(row.limitReset as LimitReset, now) }]);
      const lastUsage = await lastUsageRows(db, [row.id]);
      return listed(row, spent.get(row.id) ?? 0n, now, lastUsage.get(row.id));
    },

    async list(owner: string | KeyOwner): Promise<{ keys: ListedKey[]; count: number }> {
      const rows = await db
        .select(keyColumns)
        .from(apiKeys)
        .where(ownedBy(ownerOf(owner)))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      const now = Date.now();
      const [spent, lastUsage] = await Promise.all([
        spentInPeriods(
          db,
          rows.map((r) => ({ id: r.id, periodStart: periodStart(r.limitReset as LimitReset, now) })),
        ),
        lastUsageRows(
          db,
          rows.map((r) => r.id),
        ),
      ]);
      const keys = rows.map((r) => listed(r, spent.get(r.id) ?? 0n, now, lastUsage.get(r.id)));
      return { keys, count: keys.length };
    },

    /** Writes batched last-use times (key id → epoch ms); a later time never gets overwritten by an earlier one. */
    async recordLastUsed(times: Map<string, number>): Promise<void> {
      if (times.size === 0) return;
      const values = sql.join(
        [...times].map(([id, at]) => sql`(${id}::uuid, ${new Date(at).toISOString()}::timestamptz)`),
        sql`, `,
      );
      await db.execute(sql`
        update api_keys set last_used_at = v.at
        from (values ${values}) as v(id, at)
        where api_keys.id = v.id and (api_keys.last_used_at is null or api_keys.last_used_at < v.at)`);
    },

    /** Revokes a key of the caller; an absent key and another user's key are both 404. */
    async revoke(owner: string | KeyOwner, keyId: string, audit?: KeyAudit): Promise<void> {
      if (!isUuid(keyId)) throw new AppError('not_found', keysMessages.keyNotFound);
      const [row] = await db
        .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), ownedBy(ownerOf(owner))))
        .limit(1);
      if (!row) throw new AppError('not_found', keysMessages.keyNotFound);
      if (row.revokedAt === null) {
        await db.transaction(async (tx) => {
          const [revoked] = await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId)).returning(keyColumns);
          await audit?.(tx, { before: { ...revoked!, revokedAt: null }, after: revoked! });
          // Delivered at commit to every instance, which drop the key from their caches.
          await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${keyId})`);
        });
      }
      onRevoked?.(keyId);
    },

    /**
     * The member's role or limit changes in the caller's transaction (`limitNano` undefined: the limit stays):
     * the new limit applies at once to what the member already spent this month (writeMemberLimit), and every
     * instance drops its cached records of the member's keys at commit; the ids returned go to
     * `afterMemberKeys` once committed.
     */
    async memberUpdate(tx: Executor, organizationId: string, userId: string, limitNano?: bigint | null): Promise<string[]> {
      if (limitNano !== undefined) await writeMemberLimit(tx, organizationId, userId, limitNano);
      return notifyMemberKeys(tx, KEY_REVOKED_CHANNEL, organizationId, userId);
    },

    /**
     * A member leaves an organisation: the keys they created in it are revoked (`to` null) or handed to
     * another member (`to`). Runs in the caller's transaction; every instance drops the keys from its cache at
     * commit (NOTIFY), this one at once through `onRevoked` called by `afterMemberKeys` once committed.
     */
    async memberKeys(tx: Executor, organizationId: string, memberId: string, to: string | null): Promise<string[]> {
      const where = and(eq(apiKeys.userId, organizationId), eq(apiKeys.createdBy, memberId), isNull(apiKeys.revokedAt));
      const rows =
        to === null
          ? await tx.update(apiKeys).set({ revokedAt: new Date() }).where(where).returning({ id: apiKeys.id })
          : await tx.update(apiKeys).set({ createdBy: to }).where(where).returning({ id: apiKeys.id });
      for (const { id } of rows) await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${id})`);
      return rows.map((r) => r.id);
    },

    /** How many keys the member created in the organisation are not revoked. */
    async activeMemberKeys(tx: Executor, organizationId: string, memberId: string): Promise<number> {
      const [row] = await tx
        .select({ held: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.userId, organizationId), eq(apiKeys.createdBy, memberId), isNull(apiKeys.revokedAt)));
      return Number(row?.held ?? 0);
    },

    /** Drops changed keys from this instance's cache at once, after the commit of `memberKeys`. */
    afterMemberKeys(keyIds: readonly string[]): void {
      for (const id of keyIds) onRevoked?.(id);
    },

    /** Looks a key up by the SHA-256 of its full value; null when no such key exists. */
    async findByHash(keyHash: string): Promise<VerifiedKey | null> {
      const [row] = await db
        .select({
          keyId: apiKeys.id,
          userId: apiKeys.userId,
          revokedAt: apiKeys.revokedAt,
          expiresAt: apiKeys.expiresAt,
          spendLimitNano: apiKeys.spendLimitNano,
          limitReset: apiKeys.limitReset,
          scope: apiKeys.scope,
          cache: apiKeys.cache,
          rpm: apiKeys.rpm,
          tpm: apiKeys.tpm,
          rpd: apiKeys.rpd,
          blockedAt: users.blockedAt,
          kind: users.kind,
          priceGroup: users.priceGroup,
          createdBy: apiKeys.createdBy,
          // Whether the creator has a limit in the organisation the key belongs to (raw SQL: the keys
          // feature sits below organizations/ and does not import its tables).
          memberLimited: sql<boolean>`exists (select 1 from organization_members m
            where m.organization_id = ${apiKeys.userId} and m.user_id = ${apiKeys.createdBy} and m.spend_limit_nano is not null)`,
        })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(eq(apiKeys.keyHash, keyHash))
        .limit(1);
      return row
        ? {
            keyId: row.keyId,
            userId: row.userId,
            isActive: row.revokedAt === null,
            expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
            limitReset: row.spendLimitNano === null ? null : (row.limitReset as LimitReset),
            memberLimit: row.memberLimited && row.createdBy ? { keyId: row.keyId, organizationId: row.userId, memberId: row.createdBy } : null,
            userBlocked: row.blockedAt !== null,
            scope: row.scope as KeyScope,
            cache: row.cache as KeyCacheMode,
            rates: { rpm: row.rpm, tpm: row.tpm, rpd: row.rpd },
            organization: row.kind === 'organization',
            createdBy: row.createdBy,
            priceGroup: row.priceGroup,
          }
        : null;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
