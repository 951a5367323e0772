// What the gateway sells a model for: the price table admins edit, and the price groups customers are in.
import { bigint, boolean, check, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, updatedAt } from '../db/columns';

/**
 * Prices per model id, or per prefix ending in `*` (the longest match wins), in nano-units of the
 * balance currency per 1M tokens. A model no row matches costs TOKEN_PRICE per token both ways.
 * A `per_second` row (a transcription model) prices seconds of audio instead: `per_second_nano` a
 * second; its token prices are kept but not charged. Prompt tokens the provider reports as read from or
 * written to its own cache have prices of their own (docs/cached-tokens.md).
 */
export const modelPrices = pgTable('model_prices', {
  pattern: text('pattern').primaryKey(),
  promptNanoPerMillion: bigint('prompt_nano_per_million', { mode: 'bigint' }).notNull(),
  completionNanoPerMillion: bigint('completion_nano_per_million', { mode: 'bigint' }).notNull(),
  /** per_token | per_second */
  kind: text('kind').notNull().default('per_token'),
  perSecondNano: bigint('per_second_nano', { mode: 'bigint' }).notNull().default(sql`0`),
  /** Per 1M prompt tokens read from the provider's cache; null: the prompt price × CACHE_READ_PRICE_RATIO. */
  cachedPromptNanoPerMillion: bigint('cached_prompt_nano_per_million', { mode: 'bigint' }),
  /** Per 1M prompt tokens written to the provider's cache; null: the prompt price × CACHE_WRITE_PRICE_RATIO. */
  cacheWriteNanoPerMillion: bigint('cache_write_nano_per_million', { mode: 'bigint' }),
  updatedAt: updatedAt(),
});

/**
 * Price groups (issue 45): every user is in one (users.price_group). A group multiplies the list prices
 * above by `multiplier_ppm` / 1e6 (an integer, so no float ever touches money), may replace them for some
 * models (price_group_prices) and may restrict which models its users may call (`allowed_models`: exact
 * ids or prefixes ending in `*`; null: all). Exactly one group is the default new accounts get; the
 * migration seeds `base` (×1, default, every model).
 */
export const priceGroups = pgTable(
  'price_groups',
  {
    name: text('name').primaryKey(),
    title: text('title').notNull(),
    multiplierPpm: bigint('multiplier_ppm', { mode: 'bigint' }).notNull().default(sql`1000000`),
    allowedModels: text('allowed_models').array(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('price_groups_name_slug', sql`${t.name} ~ '^[a-z0-9][a-z0-9_-]{0,39}$'`),
    check('price_groups_multiplier_not_negative', sql`${t.multiplierPpm} >= 0`),
    // At most one default; the service moves the flag in one transaction, so there is always exactly one.
    uniqueIndex('price_groups_one_default').on(t.isDefault).where(sql`${t.isDefault}`),
  ],
);

/**
 * A group's own price for a model id or prefix (same pattern rules as model_prices; the longest of the
 * group's rows wins): it replaces list price × multiplier for the models it covers.
 */
export const priceGroupPrices = pgTable(
  'price_group_prices',
  {
    groupName: text('group_name')
      .notNull()
      .references(() => priceGroups.name, { onDelete: 'cascade', onUpdate: 'cascade' }),
    pattern: text('pattern').notNull(),
    promptNanoPerMillion: bigint('prompt_nano_per_million', { mode: 'bigint' }).notNull(),
    completionNanoPerMillion: bigint('completion_nano_per_million', { mode: 'bigint' }).notNull(),
    /** per_token | per_second */
    kind: text('kind').notNull().default('per_token'),
    perSecondNano: bigint('per_second_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.groupName, t.pattern] })],
);

/** The group a new account is put in: the current default (`base` should there be none, which the service never leaves). */
export const defaultPriceGroupSql = sql`coalesce((select "name" from "price_groups" where "is_default"), 'base')`;
