// The gateway core's tables: its own /v1 state (idempotent replays, who owns which upstream response,
// rate-limit windows), the ledger every balance change is written to, the balance and key leases its
// billing claims, the usage records with their sums, and the providers, routes and health the routing reads.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { users } from '../accounts/tables';
import { apiKeys } from '../keys/tables';

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
 * A key's requests per minute (rpm, default RATE_LIMIT_PER_MINUTE) counted across instances: requests of one key in one
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
    /** Tokens of the window's settled requests (the key's tpm), claimed the same way. */
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(sql`0`),
  },
  (t) => [primaryKey({ name: 'rate_limit_windows_pk', columns: [t.apiKeyId, t.windowMinute] })],
);

/** A key's requests in one UTC day (its rpd), claimed in blocks as the minute's are. */
export const rateLimitDayWindows = pgTable(
  'rate_limit_day_windows',
  {
    apiKeyId: uuid('api_key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    /** Days since the Unix epoch (UTC). */
    windowDay: integer('window_day').notNull(),
    used: integer('used').notNull(),
  },
  (t) => [primaryKey({ name: 'rate_limit_day_windows_pk', columns: [t.apiKeyId, t.windowDay] })],
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
    tokens: bigint('tokens', { mode: 'number' }).notNull().default(sql`0`),
  },
  (t) => [primaryKey({ name: 'rate_limit_user_windows_pk', columns: [t.userId, t.windowMinute] })],
);

/** A user's requests in one UTC day, all keys together. */
export const rateLimitUserDayWindows = pgTable(
  'rate_limit_user_day_windows',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    windowDay: integer('window_day').notNull(),
    used: integer('used').notNull(),
  },
  (t) => [primaryKey({ name: 'rate_limit_user_day_windows_pk', columns: [t.userId, t.windowDay] })],
);

/** Every change of a balance, so that the sum of a user's entries always equals the balance. */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    kind: text('kind').notNull(),
    reference: text('reference'),
    createdAt: createdAt(),
  },
  (t) => [
    index('ledger_entries_user_idx').on(t.userId, t.createdAt),
    // Money that comes in is credited once per outside reference (a payment id, an operator's reference).
    uniqueIndex('ledger_entries_credit_reference_unique').on(t.kind, t.reference).where(sql`${t.kind} in ('topup', 'admin_credit')`),
    // One registration bonus per user, whether credited at registration or when the e-mail is verified.
    uniqueIndex('ledger_entries_registration_bonus_unique').on(t.userId).where(sql`${t.kind} = 'registration_bonus'`),
    index('ledger_entries_day_idx').on(t.createdAt),
  ],
);

/**
 * Balance an instance has set aside from users.balance_nano to reserve requests against without a
 * database round trip. users.balance_nano + Σ leases = Σ ledger at every commit; a lease whose instance
 * died is returned to the balance once it expires.
 */
export const balanceLeases = pgTable(
  'balance_leases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('balance_leases_user_idx').on(t.userId),
    index('balance_leases_expiry_idx').on(t.expiresAt),
    check('balance_leases_amount_not_negative', sql`${t.amountNano} >= 0`),
  ],
);

/**
 * A slice of a key's spend limit an instance claims to reserve requests against in memory, as
 * balance_leases do for the balance. A lease of an earlier period is void; an expired one is dropped.
 */
export const keyLeases = pgTable(
  'key_leases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    keyId: uuid('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true, mode: 'date' }).notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('key_leases_key_idx').on(t.keyId),
    index('key_leases_expiry_idx').on(t.expiresAt),
    check('key_leases_amount_not_negative', sql`${t.amountNano} >= 0`),
  ],
);

/**
 * A slice of an organisation member's monthly spend limit (organization_members.spend_limit_nano) an instance
 * claims, as key_leases do for a key's limit: the requests of every key the member created in the
 * organisation reserve against it. `organization_id` and `user_id` name the member (both are users rows:
 * the organisation's account and the person); a lease of an earlier month is void, an expired one dropped.
 */
export const memberLeases = pgTable(
  'member_leases',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    organizationId: uuid('organization_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    periodStart: timestamp('period_start', { withTimezone: true, mode: 'date' }).notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('member_leases_member_idx').on(t.organizationId, t.userId),
    index('member_leases_expiry_idx').on(t.expiresAt),
    check('member_leases_amount_not_negative', sql`${t.amountNano} >= 0`),
  ],
);

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
    /** Of prompt_tokens, those the provider read from its cache (billed at the cached-input price). */
    cachedTokens: bigint('cached_tokens', { mode: 'number' }).notNull().default(sql`0`),
    /** Of prompt_tokens, those written to the provider's cache (billed at the cache-write price). */
    cacheWriteTokens: bigint('cache_write_tokens', { mode: 'number' }).notNull().default(sql`0`),
    /** Of completion_tokens, the model's reasoning (billed as completion, shown apart). */
    reasoningTokens: bigint('reasoning_tokens', { mode: 'number' }).notNull().default(sql`0`),
    /** What was charged: prompt_cost_nano + completion_cost_nano - unpaid_nano. */
    costNano: bigint('cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    promptCostNano: bigint('prompt_cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    completionCostNano: bigint('completion_cost_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** The part of the price the whole balance could not cover (the balance went to zero). */
    unpaidNano: bigint('unpaid_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** Which /v1 endpoint: chat | embeddings | responses | audio_transcriptions | messages (Anthropic's). */
    endpoint: text('endpoint').notNull().default('chat'),
    /**
     * ok | client_closed | upstream_error | upstream_timeout | upstream_rejected | upstream_dropped |
     * server_shutdown | refused_balance | refused_key_limit | refused_member_limit (402 before any model was asked: no tokens, no cost)
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
    /** Milliseconds of audio a transcription was billed for; null on every other request. */
    audioMs: integer('audio_ms'),
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
/** The sums every rollup table keeps per key and bucket (fresh column builders for each table). */
const rollupSums = () => ({
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

/** Start of the bucket the rows' created_at fell in: a UTC quarter hour, or a UTC day (the …_daily tables). */
const bucketColumn = () => timestamp('bucket', { withTimezone: true, mode: 'date' }).notNull();

/** The sums both per-key rollup tables keep per key and bucket (fresh column builders for each table). */
const rollupColumns = () => ({
  userId: uuid('user_id').notNull(),
  bucket: bucketColumn(),
  apiKeyId: uuid('api_key_id'),
  agentId: uuid('agent_id'),
  model: text('model').notNull(),
  endpoint: text('endpoint').notNull(),
  providerId: text('provider_id'),
  ...rollupSums(),
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

/**
 * The same sums per account, model and provider only (issue 46): what an account's summary, its detail and
 * the users list show, without the key, agent and endpoint that multiply the rows of the tables above
 * (~30 sums a quarter hour for a busy account there, ~7 here). Kept by the same statement, per UTC quarter
 * hour and per UTC day; a read filtered by key, agent or endpoint reads the tables above.
 */
const accountRollupColumns = () => ({
  userId: uuid('user_id').notNull(),
  bucket: bucketColumn(),
  model: text('model').notNull(),
  providerId: text('provider_id'),
  ...rollupSums(),
});

export const usageRollupsAccount = pgTable('usage_rollups_account', accountRollupColumns(), (t) => [
  unique('usage_rollups_account_key').on(t.userId, t.bucket, t.model, t.providerId).nullsNotDistinct(),
]);

/**
 * The same per UTC hour: a day in a zone whose midnight is not a UTC one moves the part of its UTC day on the
 * other side of that midnight (5.5 hours for +05:30) from the daily sums to their own day, and reads that part
 * as whole hours here and at most three quarter hours above (7 sums per model in Kolkata, not 22).
 */
export const usageRollupsAccountHourly = pgTable('usage_rollups_account_hourly', accountRollupColumns(), (t) => [
  unique('usage_rollups_account_hourly_key').on(t.userId, t.bucket, t.model, t.providerId).nullsNotDistinct(),
]);

export const usageRollupsAccountDaily = pgTable('usage_rollups_account_daily', accountRollupColumns(), (t) => [
  unique('usage_rollups_account_daily_key').on(t.userId, t.bucket, t.model, t.providerId).nullsNotDistinct(),
]);

/**
 * The whole service's sums per UTC day, model and provider (issue 46): operators' daily figures read a few
 * hundred rows here, where the per-account tables hold one set per account (750 k rows for 30 days of a
 * thousand busy accounts). Every settlement batch adds to today's rows, so they are split into stripes, the
 * writing connection's (pg_backend_pid() % 16): two writers (instances, workers) add to different rows
 * and do not wait on each other's locks. Readers sum the stripes.
 */
export const usageRollupsOperatorDaily = pgTable(
  'usage_rollups_operator_daily',
  { bucket: bucketColumn(), model: text('model').notNull(), providerId: text('provider_id'), stripe: smallint('stripe').notNull(), ...rollupSums() },
  (t) => [unique('usage_rollups_operator_daily_key').on(t.bucket, t.model, t.providerId, t.stripe).nullsNotDistinct()],
);

/**
 * A model host besides the environment's own (the built-in `default`, which has no row): its API key
 * sealed by the secret box, read back masked. Ids are text so that routes can name `default` too.
 */
export const providers = pgTable('providers', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  baseUrl: text('base_url').notNull(),
  /** Null: the provider is called without an Authorization header. */
  apiKeySealed: text('api_key_sealed'),
  enabled: boolean('enabled').notNull().default(true),
  timeoutMs: integer('timeout_ms').notNull(),
  /** The API it speaks: `openai` (chat completions) or `anthropic` (Messages); gateway/upstream.ts. */
  protocol: text('protocol').notNull().default('openai'),
  /** The model a probe asks for one token (routing/probes.ts); null: the probe is GET /models. */
  probeModel: text('probe_model'),
  /** Where its balance is read (GET, with its key); null: OpenRouter's /credits when it is OpenRouter, else nowhere. */
  balanceUrl: text('balance_url'),
  /** The balance's place in that URL's JSON (`data.balance`); null: OpenRouter's credits − usage. */
  balancePath: text('balance_path'),
  /** Below this balance (nano-units of the provider's currency) the operators are mailed, once per crossing. */
  balanceThresholdNano: bigint('balance_threshold_nano', { mode: 'bigint' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** A model id or prefix (`openai/*`, as prices) → the providers that serve it, in the order they are tried. */
export const modelRoutes = pgTable('model_routes', {
  pattern: text('pattern').primaryKey(),
  /** [{providerId, priority, weight, model?, costPrice?}]; a cost price per 1M tokens in nano-units, as decimal text. */
  targets: jsonb('targets').notNull().$type<
    {
      providerId: string;
      priority: number;
      weight: number;
      model?: string;
      costPrice?: { promptNanoPerMillion: string; completionNanoPerMillion: string };
    }[]
  >(),
  updatedAt: updatedAt(),
});

/**
 * Every instance's shared view of a provider's health (`default` included): written only when it
 * changes (a failure, a recovery), announced by NOTIFY, read at start. No row: up.
 */
export const providerHealth = pgTable('provider_health', {
  providerId: text('provider_id').primaryKey(),
  /** up | cooling_down | disabled */
  state: text('state').notNull().default('up'),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  cooldownUntil: timestamp('cooldown_until', { withTimezone: true, mode: 'date' }),
  lastError: text('last_error'),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true, mode: 'date' }),
  updatedAt: updatedAt(),
});

/**
 * Each provider's upstream attempts per minute, summed over every instance (gateway/routing/attempt-counts.ts):
 * every attempt, those that failed over to another provider included (a usage row names only the provider
 * that answered or was tried last); of them the provider's own faults (5xx, 408/429, timeouts, connection
 * errors, refused credentials, streams cut after the answer began) and the client's own 4xx. Written by an
 * upsert that adds, a few seconds' counts at a time; rows older than a week are dropped.
 */
export const providerAttemptCounts = pgTable(
  'provider_attempt_counts',
  {
    providerId: text('provider_id').notNull(),
    /** The minute the counts fell in (the database's clock at the flush). */
    minute: timestamp('minute', { withTimezone: true, mode: 'date' }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    faults: integer('faults').notNull().default(0),
    clientErrors: integer('client_errors').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.minute] }), index('provider_attempt_counts_minute_idx').on(t.minute)],
);

/**
 * The accounts whose timeout at a provider was counted, and when (gateway/routing/health.ts): one account's
 * timeouts count once a minute across every instance, so no single client's slow requests cool a provider
 * down. Rows older than a few minutes are dropped.
 */
export const providerTimeouts = pgTable(
  'provider_timeouts',
  {
    providerId: text('provider_id').notNull(),
    account: text('account').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.account] })],
);

/**
 * Every probe of a provider the gateway made while it was cooling down or disabled (routing/probes.ts), and
 * every «Проверить сейчас»: the operator's history of how it came back. Kept to the last PROBES_KEPT per
 * provider.
 */
export const providerProbes = pgTable(
  'provider_probes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    providerId: text('provider_id').notNull(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    ok: boolean('ok').notNull(),
    /** The answer's HTTP status; null: no answer (a connection error, a timeout). */
    status: integer('status'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    /** `schedule` (the periodic probe) or `operator` («Проверить сейчас»). */
    trigger: text('trigger').notNull().default('schedule'),
  },
  (t) => [index('provider_probes_provider_idx').on(t.providerId, t.at)],
);

/**
 * The last balance read of each provider that exposes one (admin/provider-balances.ts), `default` included;
 * `below` is the crossing claimed: set once when the balance falls under the threshold (the operators are
 * mailed then), cleared when it is back at or above it.
 */
export const providerBalances = pgTable('provider_balances', {
  providerId: text('provider_id').primaryKey(),
  /** Nano-units of the provider's own currency; null: never read successfully. */
  balanceNano: bigint('balance_nano', { mode: 'bigint' }),
  checkedAt: timestamp('checked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  error: text('error'),
  below: boolean('below').notNull().default(false),
});
