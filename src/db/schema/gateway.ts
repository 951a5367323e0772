// The /v1 gateway's own state: idempotent replays, who owns which upstream response, rate-limit windows.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';
import { users } from './users';
import { apiKeys } from './keys';

/**
 * /v1 requests sent with an Idempotency-Key: a repeat within 24 h with the same body gets the stored
 * answer (or 409 while the first is running, or for a stream), never a second upstream call or charge.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of the request body: the same key with another body is refused. */
    bodyHash: text('body_hash').notNull(),
    /** The first request's id, named in a 409. */
    requestId: text('request_id').notNull(),
    /** in_flight | done */
    state: text('state').notNull(),
    stream: boolean('stream').notNull().default(false),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseContentType: text('response_content_type'),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pk', columns: [t.userId, t.key] }),
    index('idempotency_keys_expiry_idx').on(t.expiresAt),
    check('idempotency_keys_state_known', sql`${t.state} in ('in_flight', 'done')`),
  ],
);

/**
 * Which user created which Responses API response id upstream: GET and DELETE /v1/responses/{id} pass
 * through only for the user who created it (the upstream account is shared by every user).
 */
export const upstreamResponses = pgTable(
  'upstream_responses',
  {
    responseId: text('response_id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    apiKeyId: uuid('api_key_id').references(() => apiKeys.id, { onDelete: 'set null' }),
    /** The provider that created it and alone can read it back; null: `default` (ids kept before routing). */
    providerId: text('provider_id'),
    createdAt: createdAt(),
  },
  (t) => [index('upstream_responses_user_idx').on(t.userId, t.createdAt)],
);

/**
 * The per-key request limit (RATE_LIMIT_PER_MINUTE) counted across instances: requests of one key in one
 * minute window. Instances claim allowance from `used` in small blocks (src/gateway/rate-limit.ts), so the
 * hot path reads no row per request. Rows of past windows are swept.
 */
export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    apiKeyId: uuid('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    /** Minutes since the Unix epoch: the window's start. */
    windowMinute: bigint('window_minute', { mode: 'number' }).notNull(),
    used: integer('used').notNull(),
  },
  (t) => [primaryKey({ name: 'rate_limit_windows_pk', columns: [t.apiKeyId, t.windowMinute] })],
);

/** The same count per user, all the user's keys together (RATE_LIMIT_PER_USER_PER_MINUTE). */
export const rateLimitUserWindows = pgTable(
  'rate_limit_user_windows',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Minutes since the Unix epoch: the window's start. */
    windowMinute: bigint('window_minute', { mode: 'number' }).notNull(),
    used: integer('used').notNull(),
  },
  (t) => [primaryKey({ name: 'rate_limit_user_windows_pk', columns: [t.userId, t.windowMinute] })],
);
