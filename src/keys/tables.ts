// API keys (cdt-…): the spend leases they claim are the gateway's (gateway/tables.ts, written by its billing).
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { users } from '../accounts/tables';

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** In an organisation: the member who created the key (null: the account's own key, or a creator since deleted). */
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    keyPrefix: text('key_prefix').notNull(),
    /** SHA-256 of the full key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_unique'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** After this moment the key is refused with 401. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** What the key may spend per period (null: no limit of its own, only the balance). */
    spendLimitNano: bigint('spend_limit_nano', { mode: 'bigint' }),
    /** none | day | week | month (UTC): when the spend limit starts again. */
    limitReset: text('limit_reset').notNull().default('none'),
    /**
     * When the owner last changed the limit or its period (null: as created). A call refused for the
     * limit before this no longer says the limit is used up (keys/service.ts, limitReached).
     */
    limitChangedAt: timestamp('limit_changed_at', { withTimezone: true, mode: 'date' }),
    /**
     * The part of the limit no instance has claimed yet in the current period (like users.balance_nano
     * for the balance): limit = budget + Σ key_leases + spent in the period.
     */
    budgetNano: bigint('budget_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** Start of the period the budget belongs to; a later period starts with the whole limit. */
    budgetPeriodStart: timestamp('budget_period_start', { withTimezone: true, mode: 'date' }),
    /** key | account: which usage the key may read, its own or the whole account's (keys/scope.ts). */
    scope: text('scope').notNull().default('key'),
    /** off | on | any: which of the key's requests the response cache answers (gateway/response-cache). */
    cache: text('cache').notNull().default('off'),
    /** The key's own requests per minute, tokens per minute, requests per UTC day (null: the config's default). */
    rpm: integer('rpm'),
    tpm: integer('tpm'),
    rpd: integer('rpd'),
  },
  (t) => [
    index('api_keys_user_idx').on(t.userId, t.createdAt),
    index('api_keys_created_by_idx').on(t.createdBy).where(sql`${t.createdBy} is not null`),
    check('api_keys_limit_reset_known', sql`${t.limitReset} in ('none', 'day', 'week', 'month')`),
    check('api_keys_scope_known', sql`${t.scope} in ('key', 'account')`),
    check('api_keys_cache_known', sql`${t.cache} in ('off', 'on', 'any')`),
  ],
);
