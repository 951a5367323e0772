// What the gateway sells a model for: the price table admins edit.
import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { updatedAt } from '../db/columns';

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
