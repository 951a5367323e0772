// What the gateway sells a model for: the price table admins edit.
import { bigint, pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from '../db/columns';

/**
 * Prices per model id, or per prefix ending in `*` (the longest match wins), in nano-units of the
 * balance currency per 1M tokens. A model no row matches costs TOKEN_PRICE per token both ways.
 */
export const modelPrices = pgTable('model_prices', {
  pattern: text('pattern').primaryKey(),
  promptNanoPerMillion: bigint('prompt_nano_per_million', { mode: 'bigint' }).notNull(),
  completionNanoPerMillion: bigint('completion_nano_per_million', { mode: 'bigint' }).notNull(),
  updatedAt: updatedAt(),
});
