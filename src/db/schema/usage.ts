// Usage: one record per model request, and the per-quarter-hour and per-day sums every period's figures read.
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns';

/**
 * One row per model request: what was asked, what it cost, how it ended. An append-only log written in
 * batches of thousands of rows, so it has no foreign keys: a key's check is a locking look-up per row per
 * key, 4.4 of the ~11 µs PostgreSQL spent on each row in the benchmark (bench/RESULTS.md). The rows
 * reference users and keys all the same: the batch writer writes only ids it took from a verified key
 * or an agent of an existing user, and neither users nor keys are ever deleted (a key is revoked).
 * Whatever deletes an account one day deletes its usage rows itself.
 *
 * Partitioned by month of created_at (UTC), which drizzle cannot declare: migration 0022_usage_partitions
 * made the table, src/gateway/usage-partitions.ts keeps the coming months' partitions and drops expired
 * ones. A partitioned table's primary key must hold the partition key, hence (id, created_at); id alone
 * is still unique, the identity hands each row its own.
 */
export const usageRecords = pgTable(
  'usage_records',
  {
    id: bigint('id', { mode: 'bigint' }).notNull().generatedAlwaysAsIdentity(),
    userId: uuid('user_id').notNull(),
    apiKeyId: uuid('api_key_id'),
    /** Set when an assistant, not an API key, made the request (charged to the agent's owner). */
    agentId: uuid('agent_id'),
    requestId: text('request_id'),
    model: text('model').notNull(),
    stream: boolean('stream').notNull().default(false),
    promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull().default(sql`0`),
    completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull().default(sql`0`),
    totalTokens: bigint('total_tokens', { mode: 'number' }).notNull().default(sql`0`),
    /** What was charged: prompt_cost_nano + completion_cost_nano - unpaid_nano. */
    costNano: bigint('cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    promptCostNano: bigint('prompt_cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    completionCostNano: bigint('completion_cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** The part of the price the whole balance could not cover (the balance went to zero). */
    unpaidNano: bigint('unpaid_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** Which /v1 endpoint: chat | embeddings | responses. */
    endpoint: text('endpoint').notNull().default('chat'),
    /**
     * ok | client_closed | upstream_error | upstream_timeout | upstream_rejected | upstream_dropped |
     * server_shutdown | refused_balance | refused_key_limit (402 before any model was asked: no tokens, no cost)
     */
    status: text('status').notNull(),
    /** Where the token counts came from: the upstream's usage, or our tokenizer when it sent none. */
    usageSource: text('usage_source').notNull().default('upstream'),
    upstreamStatus: integer('upstream_status'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull().default(0),
    /** The provider that gave the answer (or the last one tried); null on rows older than routing. */
    providerId: text('provider_id'),
    /** Providers tried for this request, the answering one included; null on rows older than routing. */
    attempts: integer('attempts'),
    /** What the answering provider charges us for the request, at its route target's cost price; null: no cost price given. */
    providerCostNano: bigint('provider_cost_nano', { mode: 'bigint' }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index('usage_records_user_idx').on(t.userId, t.createdAt, t.id),
    index('usage_records_key_idx').on(t.apiKeyId, t.createdAt),
    // The newest hour across all users (providers' health figures); the user index cannot bound that range.
    index('usage_records_created_idx').on(t.createdAt),
    index('usage_records_agent_idx').on(t.agentId, t.createdAt).where(sql`${t.agentId} is not null`),
    index('usage_records_agent_request_idx').on(t.agentId, t.requestId).where(sql`${t.agentId} is not null`),
  ],
);

/**
 * The usage rows summed per user, key, agent, model, endpoint, provider and UTC quarter of an hour, kept
 * by the statement that writes the rows (gateway/billing/rows.ts), so every read over a period sums
 * these instead of the rows. A quarter of an hour because every UTC offset in use (+05:30, +05:45,
 * +08:45, +12:45 …) is a multiple of it: a day in any time zone is a whole number of buckets, and only
 * the edges of an arbitrary from/to need the raw rows (usage-rollups.ts); usage_rollups_daily holds the
 * same per UTC day. Whatever deletes usage rows deletes their rollups with them (retention drops raw rows
 * only: the sums stay). No foreign keys, like
 * usage_records. The unique key treats nulls as equal, so a row without key, agent or provider has one
 * sum per bucket and the upsert finds it.
 */
/** The sums both rollup tables keep per key and bucket (fresh column builders for each table). */
const rollupColumns = () => ({
  userId: uuid('user_id').notNull(),
  /** Start of the bucket the rows' created_at fell in: a UTC quarter hour, or a UTC day (usage_rollups_daily). */
  bucket: timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull(),
  apiKeyId: uuid('api_key_id'),
  agentId: uuid('agent_id'),
  model: text('model').notNull(),
  endpoint: text('endpoint').notNull(),
  providerId: text('provider_id'),
  requests: integer('requests').notNull(),
  /** Rows whose status is not ok (client_closed included). */
  failedRequests: integer('failed_requests').notNull(),
  /** Rows that needed more than one provider (attempts > 1). */
  retriedRequests: integer('retried_requests').notNull(),
  /** Σ attempts (null, on rows older than routing, counts 0). */
  attempts: integer('attempts').notNull(),
  promptTokens: bigint('prompt_tokens', { mode: 'number' }).notNull(),
  completionTokens: bigint('completion_tokens', { mode: 'number' }).notNull(),
  totalTokens: bigint('total_tokens', { mode: 'number' }).notNull(),
  costNano: bigint('cost_nano', { mode: 'bigint' }).notNull(),
  promptCostNano: bigint('prompt_cost_nano', { mode: 'bigint' }).notNull(),
  completionCostNano: bigint('completion_cost_nano', { mode: 'bigint' }).notNull(),
  unpaidNano: bigint('unpaid_nano', { mode: 'bigint' }).notNull(),
  /** Rows that carried a provider cost, and what they were charged: margins are over these alone. */
  pricedRequests: integer('priced_requests').notNull(),
  pricedCostNano: bigint('priced_cost_nano', { mode: 'bigint' }).notNull(),
  providerCostNano: bigint('provider_cost_nano', { mode: 'bigint' }).notNull(),
});

export const usageRollups = pgTable('usage_rollups', rollupColumns(), (t) => [
  unique('usage_rollups_key').on(t.userId, t.bucket, t.apiKeyId, t.agentId, t.model, t.endpoint, t.providerId).nullsNotDistinct(),
  // Operators' figures over all users by period. BRIN, not a B-tree: the rows arrive in time order, so a
  // few pages' ranges find a period; it costs the writer next to nothing, and a B-tree here was the
  // planner's choice even for one user's month in the admin user list (scanning every user's rows of it:
  // 1.2 s at 1 M usage rows, 85 ms through the unique key's index instead).
  index('usage_rollups_bucket_idx').using('brin', t.bucket),
  // A key's spend in its period, an agent's spend.
  index('usage_rollups_key_idx').on(t.apiKeyId, t.bucket).where(sql`${t.apiKeyId} is not null`),
  index('usage_rollups_agent_idx').on(t.agentId, t.bucket).where(sql`${t.agentId} is not null`),
]);

/**
 * The same sums per UTC day, kept by the same statement: whole UTC days of a period (operators' daily
 * figures, a month's spend, a key's period, the middle of any long from/to) read ~96 times fewer rows here.
 * A day in another time zone is not a UTC day, so the summary in such a zone reads the quarter hours.
 */
export const usageRollupsDaily = pgTable('usage_rollups_daily', rollupColumns(), (t) => [
  unique('usage_rollups_daily_key').on(t.userId, t.bucket, t.apiKeyId, t.agentId, t.model, t.endpoint, t.providerId).nullsNotDistinct(),
  index('usage_rollups_daily_bucket_idx').using('brin', t.bucket),
  index('usage_rollups_daily_key_idx').on(t.apiKeyId, t.bucket).where(sql`${t.apiKeyId} is not null`),
  index('usage_rollups_daily_agent_idx').on(t.agentId, t.bucket).where(sql`${t.agentId} is not null`),
]);
