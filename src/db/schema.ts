// Tables. Money columns are bigint nano-units (1e-9 of the currency).
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull().unique('users_email_unique'),
    passwordHash: text('password_hash').notNull(),
    role: text('role').notNull().default('user'),
    balanceNano: bigint('balance_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    failedLogins: integer('failed_logins').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [check('users_balance_not_negative', sql`${t.balanceNano} >= 0`)],
);

/** Every change of a balance, so that the sum of a user's entries always equals the balance. */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    kind: text('kind').notNull(),
    reference: text('reference'),
    createdAt: createdAt(),
  },
  (t) => [index('ledger_entries_user_idx').on(t.userId, t.createdAt)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    /** SHA-256 of the full key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_unique'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('api_keys_user_idx').on(t.userId, t.createdAt)],
);

/**
 * Balance an instance has set aside from users.balance_nano to reserve requests against without a
 * database round trip. users.balance_nano + Σ leases = Σ ledger at every commit; a lease whose instance
 * died is returned to the balance once it expires.
 */
export const balanceLeases = pgTable(
  'balance_leases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('balance_leases_user_idx').on(t.userId),
    index('balance_leases_expiry_idx').on(t.expiresAt),
    check('balance_leases_amount_not_negative', sql`${t.amountNano} >= 0`),
  ],
);

/** One row per model request: what was asked, what it cost, how it ended. */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    apiKeyId: uuid('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /** Set when an assistant, not an API key, made the request (charged to the agent's owner). */
    agentId: uuid('agent_id'),
    requestId: text('request_id'),
    model: text('model').notNull(),
    stream: boolean('stream').notNull().default(false),
    promptTokens: integer('prompt_tokens').notNull().default(0),
    completionTokens: integer('completion_tokens').notNull().default(0),
    totalTokens: integer('total_tokens').notNull().default(0),
    costNano: bigint('cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** ok | client_closed | upstream_error | upstream_timeout | upstream_rejected | upstream_dropped */
    status: text('status').notNull(),
    /** Where the token counts came from: the upstream's usage, or our tokenizer when it sent none. */
    usageSource: text('usage_source').notNull().default('upstream'),
    upstreamStatus: integer('upstream_status'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index('usage_records_user_idx').on(t.userId, t.createdAt, t.id),
    index('usage_records_key_idx').on(t.apiKeyId, t.createdAt),
  ],
);
