// The response cache's answers (gateway/response-cache): one row per owner and request, kept until it expires.
import { bigint, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../../db/columns';
import { users } from '../../accounts/tables';

/**
 * A 2xx answer to a non-stream chat request, as its client received it (without `usage.cost`, which every
 * hit writes anew), served to the same owner's identical request until `expires_at`. The owner is the
 * user, and within it the API key when that key is key-scoped: request_hash covers both (request-key.ts).
 * Expired rows are never served and are swept every few minutes.
 */
export const responseCache = pgTable(
  'response_cache',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** SHA-256 (hex) of the owner and the request's canonical form. */
    requestHash: text('request_hash').notNull(),
    /** The key-scoped key the answer belongs to; null: the account's (its account-scoped keys share it). */
    apiKeyId: uuid('api_key_id'),
    /** The model id as priced and sent upstream. */
    model: text('model').notNull(),
    status: integer('status').notNull(),
    contentType: text('content_type').notNull(),
    body: text('body').notNull(),
    /** The answer's usage: a hit is billed for these tokens at the model's price then. */
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
    totalTokens: bigint('total_tokens', { mode: 'number' }).notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ name: 'response_cache_pk', columns: [t.userId, t.requestHash] }), index('response_cache_expiry_idx').on(t.expiresAt)],
);
