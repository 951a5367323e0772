// Money: the ledger every balance change is written to, top-ups through YooKassa, and the balance leases
// /v1 calls reserve.
import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';
import { users } from './users';

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
  (t) => [
    index('ledger_entries_user_idx').on(t.userId, t.createdAt),
    // Money that comes in is credited once per outside reference (a payment id, an operator's reference).
    uniqueIndex('ledger_entries_credit_reference_unique').on(t.kind, t.reference).where(sql`${t.kind} in ('topup', 'admin_credit')`),
    // One registration bonus per user, whether credited at registration or when the e-mail is verified.
    uniqueIndex('ledger_entries_registration_bonus_unique').on(t.userId).where(sql`${t.kind} = 'registration_bonus'`),
    index('ledger_entries_day_idx').on(t.createdAt),
  ],
);

/**
 * A balance top-up through the payment provider. Created pending with the provider's payment; credited
 * once (the ledger's unique reference), when a re-read of the payment says it succeeded.
 */
export const topups = pgTable(
  'topups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    /** pending | succeeded | canceled */
    status: text('status').notNull().default('pending'),
    paymentId: text('payment_id').unique('topups_payment_id_unique'),
    confirmationUrl: text('confirmation_url'),
    /** Why the provider canceled it, as it said (English codes such as insufficient_funds). */
    cancellationReason: text('cancellation_reason'),
    creditedAt: timestamp('credited_at', { withTimezone: true, mode: 'date' }),
    checkedAt: timestamp('checked_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('topups_user_idx').on(t.userId, t.createdAt, t.id),
    index('topups_pending_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
    check('topups_status_known', sql`${t.status} in ('pending', 'succeeded', 'canceled')`),
    check('topups_amount_positive', sql`${t.amountNano} > 0`),
  ],
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
