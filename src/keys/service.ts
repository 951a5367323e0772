// API key records: creation (the secret shown once), listing, revocation, verification.
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { generateApiKey } from '../auth/api-keys';
import { isUuid } from '../accounts/service';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { apiKeys, users } from '../db/schema';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';

export interface ListedKey {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  isActive: boolean;
}

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  createdAt: string;
  warning: string;
}

/** What the gateway needs to know about a presented key. */
export interface VerifiedKey {
  keyId: string;
  userId: string;
  isActive: boolean;
}

/** NOTIFY channel on which revocations reach every instance. */
export const KEY_REVOKED_CHANNEL = 'conduit_key_revoked';

export interface KeyServiceDeps {
  db: Database;
  config: Pick<Config, 'maxKeysPerUser'>;
  /** Called on the revoking instance at once, before any notification round trip. */
  onRevoked?: (keyId: string) => void;
}

export function createKeyService({ db, config, onRevoked }: KeyServiceDeps) {
  return {
    async create(userId: string, name: string): Promise<CreatedKey> {
      return db.transaction(async (tx) => {
        // Locking the owner's row serialises that user's creations, so parallel ones cannot pass the cap together.
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
        const [{ value: existing } = { value: 0 }] = await tx
          .select({ value: count() })
          .from(apiKeys)
          .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
        if (Number(existing) >= config.maxKeysPerUser) {
          throw new AppError('invalid_request_error', errorMessages.tooManyKeys(config.maxKeysPerUser));
        }
        const generated = generateApiKey();
        const [row] = await tx
          .insert(apiKeys)
          .values({ userId, name, keyPrefix: generated.keyPrefix, keyHash: generated.keyHash })
          .returning({ id: apiKeys.id, createdAt: apiKeys.createdAt });
        return {
          id: row!.id,
          name,
          key: generated.key,
          keyPrefix: generated.keyPrefix,
          createdAt: row!.createdAt.toISOString(),
          warning: errorMessages.keyWarning,
        };
      });
    },

    async list(userId: string): Promise<{ keys: ListedKey[]; count: number }> {
      const rows = await db
        .select({
          id: apiKeys.id,
          name: apiKeys.name,
          keyPrefix: apiKeys.keyPrefix,
          createdAt: apiKeys.createdAt,
          lastUsedAt: apiKeys.lastUsedAt,
          revokedAt: apiKeys.revokedAt,
        })
        .from(apiKeys)
        .where(eq(apiKeys.userId, userId))
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
      const keys = rows.map((r) => ({
        id: r.id,
        name: r.name,
        keyPrefix: r.keyPrefix,
        createdAt: r.createdAt.toISOString(),
        lastUsedAt: r.lastUsedAt ? r.lastUsedAt.toISOString() : null,
        isActive: r.revokedAt === null,
      }));
      return { keys, count: keys.length };
    },

    /** Writes batched last-use times; a later time never gets overwritten by an earlier one. */
    async recordLastUsed(times: Map<string, Date>): Promise<void> {
      if (times.size === 0) return;
      const values = sql.join(
        [...times].map(([id, at]) => sql`(${id}::uuid, ${at.toISOString()}::timestamptz)`),
        sql`, `,
      );
      await db.execute(sql`
        update api_keys set last_used_at = v.at
        from (values ${values}) as v(id, at)
        where api_keys.id = v.id and (api_keys.last_used_at is null or api_keys.last_used_at < v.at)`);
    },

    /** Revokes a key of the caller; an absent key and another user's key are both 404. */
    async revoke(userId: string, keyId: string): Promise<void> {
      if (!isUuid(keyId)) throw new AppError('not_found', errorMessages.keyNotFound);
      const [row] = await db
        .select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)))
        .limit(1);
      if (!row) throw new AppError('not_found', errorMessages.keyNotFound);
      if (row.revokedAt === null) {
        await db.transaction(async (tx) => {
          await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId));
          // Delivered at commit to every instance, which drop the key from their caches.
          await tx.execute(sql`select pg_notify(${KEY_REVOKED_CHANNEL}, ${keyId})`);
        });
      }
      onRevoked?.(keyId);
    },

    /** Looks a key up by the SHA-256 of its full value; null when no such key exists. */
    async findByHash(keyHash: string): Promise<VerifiedKey | null> {
      const [row] = await db
        .select({ keyId: apiKeys.id, userId: apiKeys.userId, revokedAt: apiKeys.revokedAt })
        .from(apiKeys)
        .where(eq(apiKeys.keyHash, keyHash))
        .limit(1);
      return row ? { keyId: row.keyId, userId: row.userId, isActive: row.revokedAt === null } : null;
    },
  };
}

export type KeyService = ReturnType<typeof createKeyService>;
