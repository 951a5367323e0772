// Referrals: each account's invitation code, who invited whom, and the payouts its top-ups earned.
import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { users } from '../accounts/tables';
import { createdAt } from '../db/columns';
import { ledgerEntries } from '../gateway/tables';

/** An account's invitation code, made the first time its owner opens the referral page; never changes. */
export const referralCodes = pgTable(
  'referral_codes',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Lower case, of codes.ts's alphabet. */
    code: text('code').notNull().unique('referral_codes_code_unique'),
    createdAt: createdAt(),
  },
  (t) => [check('referral_codes_code_shape', sql`${t.code} ~ '^[a-z0-9]{6,32}$'`)],
);

/** Who invited an account: written in its registration's transaction, once (the account is the key). */
export const referrals = pgTable(
  'referrals',
  {
    referredId: uuid('referred_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    referrerId: uuid('referrer_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('referrals_referrer_idx').on(t.referrerId, t.createdAt), check('referrals_not_self', sql`${t.referredId} <> ${t.referrerId}`)],
);

/**
 * One payout per top-up: the referred account's `topup` ledger row is the key, so the payout happens once
 * however often the top-up's credit is attempted; `ledgerEntryId` is the referrer's `referral` ledger row
 * (its reference `topup:<topupEntryId>`) that carries the money.
 */
export const referralPayouts = pgTable(
  'referral_payouts',
  {
    topupEntryId: bigint('topup_entry_id', { mode: 'bigint' })
      .primaryKey()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    ledgerEntryId: bigint('ledger_entry_id', { mode: 'bigint' })
      .notNull()
      .references(() => ledgerEntries.id, { onDelete: 'cascade' }),
    referrerId: uuid('referrer_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    referredId: uuid('referred_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The top-up it was paid on, and the payout (both nano-units). */
    topupNano: bigint('topup_nano', { mode: 'bigint' }).notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('referral_payouts_referrer_idx').on(t.referrerId, t.referredId), check('referral_payouts_amount_positive', sql`${t.amountNano} > 0`)],
);
