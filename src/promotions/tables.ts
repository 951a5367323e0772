// Promo codes (src/promotions/): the operator's campaigns, their codes — stored as a hash to find them and
// sealed (secret box) so the console can export them again — and every redemption, one per account and
// campaign. The limits are the database's: a code's uses are raised by one conditional UPDATE, a second
// redemption of one campaign by one account is refused by a unique index.
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { users } from '../accounts/tables';

/**
 * A campaign: what each redemption credits, until when, to whom. `kind` unique: `codeCount` codes of one use
 * each; shared: one code of `usesPerCode` uses. Stopped (stopped_at) or past expires_at, nothing more is credited.
 */
export const promoCampaigns = pgTable(
  'promo_campaigns',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    /** unique | shared */
    kind: text('kind').notNull(),
    codeCount: integer('code_count').notNull(),
    usesPerCode: integer('uses_per_code').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Only accounts created after this moment may redeem; null: any account. */
    registeredAfter: timestamp('registered_after', { withTimezone: true, mode: 'date' }),
    stoppedAt: timestamp('stopped_at', { withTimezone: true, mode: 'date' }),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('promo_campaigns_created_idx').on(t.createdAt),
    check('promo_campaigns_kind_known', sql`${t.kind} in ('unique', 'shared')`),
    check('promo_campaigns_amount_positive', sql`${t.amountNano} > 0`),
    check('promo_campaigns_counts_positive', sql`${t.codeCount} > 0 and ${t.usesPerCode} > 0`),
  ],
);

/**
 * One code. `codeHash` is SHA-256 of the normalised code (upper case, no spaces or dashes), unique across
 * campaigns: a redemption finds the code by it. `codeSealed` is the code as the operator hands it out,
 * sealed with ENCRYPTION_KEY. `uses` never passes `maxUses` (the check, and the UPDATE's condition).
 */
export const promoCodes = pgTable(
  'promo_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => promoCampaigns.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull().unique('promo_codes_hash_unique'),
    codeSealed: text('code_sealed').notNull(),
    maxUses: integer('max_uses').notNull(),
    uses: integer('uses').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [index('promo_codes_campaign_idx').on(t.campaignId, t.createdAt), check('promo_codes_uses_within', sql`${t.uses} >= 0 and ${t.uses} <= ${t.maxUses}`)],
);

/** A credited redemption: who, which code, how much, the ledger row that carries it. One per account and campaign. */
export const promoRedemptions = pgTable(
  'promo_redemptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    campaignId: uuid('campaign_id')
      .notNull()
      .references(() => promoCampaigns.id, { onDelete: 'cascade' }),
    codeId: uuid('code_id')
      .notNull()
      .references(() => promoCodes.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The person who typed the code, when an organisation's member redeemed for the organisation. */
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    ledgerEntryId: bigint('ledger_entry_id', { mode: 'bigint' }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('promo_redemptions_campaign_user_unique').on(t.campaignId, t.userId),
    index('promo_redemptions_campaign_idx').on(t.campaignId, t.createdAt),
    index('promo_redemptions_code_idx').on(t.codeId),
    index('promo_redemptions_user_idx').on(t.userId),
  ],
);
