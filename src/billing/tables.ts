// Top-ups: a user's payments through YooKassa that add to the balance.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
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
    /** Charged to the saved card by auto top-up (auto-topup.ts), not paid on YooKassa's page. */
    auto: boolean('auto').notNull().default(false),
    /** The buyer asked to keep the card for auto top-up (save_payment_method). */
    saveCard: boolean('save_card').notNull().default(false),
    /** Who asked for it when not the account itself (an organisation's member): the saved card's receipts go to them. */
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('topups_user_idx').on(t.userId, t.createdAt, t.id),
    index('topups_pending_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
    index('topups_auto_idx').on(t.userId, t.createdAt).where(sql`${t.auto}`),
    check('topups_status_known', sql`${t.status} in ('pending', 'succeeded', 'canceled')`),
    check('topups_amount_positive', sql`${t.amountNano} > 0`),
  ],
);

/**
 * The card an account keeps for auto top-up: one per account (a newly saved card replaces it). YooKassa's
 * payment method id is what charges it, so it is stored sealed and never shown; the rest is what the
 * dashboard shows.
 */
export const savedCards = pgTable('saved_cards', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  methodIdSealed: text('method_id_sealed').notNull(),
  title: text('title').notNull(),
  cardType: text('card_type'),
  last4: text('last4'),
  expiryMonth: text('expiry_month'),
  expiryYear: text('expiry_year'),
  /** Who saved it (the member paying, in an organisation): receipts and failure mails go to them. */
  savedBy: uuid('saved_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
});

/**
 * Auto top-up: «пополнять на amount, когда баланс ниже threshold», at most monthly_limit per Moscow calendar
 * month. `armed` is the once-per-crossing latch: a charge claims it (armed → false) in the statement that
 * records the payment, so any number of instances fire once; a credit that brings the money back to the
 * threshold re-arms it (the migration's trigger on ledger_entries), as does a successful auto top-up.
 */
export const autoTopups = pgTable(
  'auto_topups',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    enabled: boolean('enabled').notNull().default(false),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    thresholdNano: bigint('threshold_nano', { mode: 'bigint' }).notNull(),
    monthlyLimitNano: bigint('monthly_limit_nano', { mode: 'bigint' }).notNull(),
    armed: boolean('armed').notNull().default(true),
    /** Auto payments canceled in a row; the third switches auto top-up off. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('auto_topups_amount_positive', sql`${t.amountNano} > 0`),
    check('auto_topups_threshold_not_negative', sql`${t.thresholdNano} >= 0`),
    check('auto_topups_limit_covers_amount', sql`${t.monthlyLimitNano} >= ${t.amountNano}`),
  ],
);
