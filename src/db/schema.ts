// Tables. Money columns are bigint nano-units (1e-9 of the currency).
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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
