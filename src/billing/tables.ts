// Top-ups: a user's payments through YooKassa that add to the balance.
import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { users } from '../accounts/tables';

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
