// Tables. Money columns are bigint nano-units (1e-9 of the currency).
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
/** PostgreSQL's full-text document: only ever a generated column here, read through SQL. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull().unique('users_email_unique'),
    passwordHash: text('password_hash').notNull(),
    role: text('role').notNull().default('user'),
    balanceNano: bigint('balance_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /**
     * Unused since login throttling moved to throttle_counters; kept so that an instance of the previous
     * release, still running during a rolling deploy, can log users in. Drop in a later release.
     */
    failedLogins: integer('failed_logins').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** When the user opened the link mailed to the address (null: never verified). */
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true, mode: 'date' }),
    /** Set by an operator: the user cannot log in and the user's keys are refused on /v1. */
    blockedAt: timestamp('blocked_at', { withTimezone: true, mode: 'date' }),
    /**
     * Dashboard tokens carry the generation they were issued in; raising it (password reset or change,
     * logout-all, a block) ends every token issued before. A counter, not a time: JWT times have
     * second resolution, and a token from the same second as the cut must neither slip through nor
     * the fresh one be refused.
     */
    sessionsGeneration: integer('sessions_generation').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    check('users_balance_not_negative', sql`${t.balanceNano} >= 0`),
    check('users_role_known', sql`${t.role} in ('user', 'admin')`),
  ],
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
    uniqueIndex('ledger_entries_credit_reference_unique')
      .on(t.kind, t.reference)
      .where(sql`${t.kind} in ('topup', 'admin_credit')`),
    // One registration bonus per user, whether credited at registration or when the e-mail is verified.
    uniqueIndex('ledger_entries_registration_bonus_unique').on(t.userId).where(sql`${t.kind} = 'registration_bonus'`),
    index('ledger_entries_day_idx').on(t.createdAt),
  ],
);

/**
 * One-time links that verify a user's e-mail (and credit the bonus when REQUIRE_EMAIL_VERIFICATION is on).
 * Only the SHA-256 of the random token is kept; a row is deleted when its link is used.
 */
export const emailVerifications = pgTable(
  'email_verifications',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('email_verifications_user_idx').on(t.userId), index('email_verifications_expiry_idx').on(t.expiresAt)],
);

/** Password-reset links: only the SHA-256 of the mailed token is kept; one-time, 1 h, one live link per user. */
export const passwordResets = pgTable(
  'password_resets',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('password_resets_user_idx').on(t.userId), index('password_resets_expiry_idx').on(t.expiresAt)],
);

/**
 * Counters of the abuse limits, in the database so every instance sees the same count: registrations per
 * client address, login attempts per address and per e-mail, verification mails per user. `scope` says
 * which limit; `key` is an address, a user id or the SHA-256 of an e-mail (never the e-mail itself).
 */
export const throttleCounters = pgTable(
  'throttle_counters',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    hits: integer('hits').notNull().default(0),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Growing delays: no attempt is let through before this moment. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'throttle_counters_pk', columns: [t.scope, t.key] }),
    index('throttle_counters_updated_idx').on(t.updatedAt),
  ],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    /** SHA-256 of the full key, hex. The key itself is never stored. */
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_unique'),
    createdAt: createdAt(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** After this moment the key is refused with 401. */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** What the key may spend per period (null: no limit of its own, only the balance). */
    spendLimitNano: bigint('spend_limit_nano', { mode: 'bigint' }),
    /** none | day | week | month (UTC): when the spend limit starts again. */
    limitReset: text('limit_reset').notNull().default('none'),
    /**
     * The part of the limit no instance has claimed yet in the current period (like users.balance_nano
     * for the balance): limit = budget + Σ key_leases + spent in the period.
     */
    budgetNano: bigint('budget_nano', { mode: 'bigint' }).notNull().default(sql`0`),
    /** Start of the period the budget belongs to; a later period starts with the whole limit. */
    budgetPeriodStart: timestamp('budget_period_start', { withTimezone: true, mode: 'date' }),
    /** key | account: which usage the key may read, its own or the whole account's (keys/scope.ts). */
    scope: text('scope').notNull().default('key'),
  },
  (t) => [
    index('api_keys_user_idx').on(t.userId, t.createdAt),
    check('api_keys_limit_reset_known', sql`${t.limitReset} in ('none', 'day', 'week', 'month')`),
    check('api_keys_scope_known', sql`${t.scope} in ('key', 'account')`),
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
 * Prices per model id, or per prefix ending in `*` (the longest match wins), in nano-units of the
 * balance currency per 1M tokens. A model no row matches costs TOKEN_PRICE per token both ways.
 */
export const modelPrices = pgTable('model_prices', {
  pattern: text('pattern').primaryKey(),
  promptNanoPerMillion: bigint('prompt_nano_per_million', { mode: 'bigint' }).notNull(),
  completionNanoPerMillion: bigint('completion_nano_per_million', { mode: 'bigint' }).notNull(),
  updatedAt: updatedAt(),
});

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
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** A model id or prefix (`openai/*`, as prices) → the providers that serve it, in the order they are tried. */
export const modelRoutes = pgTable('model_routes', {
  pattern: text('pattern').primaryKey(),
  /** [{providerId, priority, weight, model?, costPrice?}]; a cost price per 1M tokens in nano-units, as decimal text. */
  targets: jsonb('targets')
    .notNull()
    .$type<
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

/** Every operator action: who did what to which record, with the record before and after. */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigint('id', { mode: 'bigint' }).primaryKey().generatedAlwaysAsIdentity(),
    adminId: uuid('admin_id').references(() => users.id, { onDelete: 'set null' }),
    adminEmail: text('admin_email').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    createdAt: createdAt(),
  },
  (t) => [
    index('admin_audit_created_idx').on(t.createdAt, t.id),
    // The audit's filters: one action, one account as target or as operator, each newest first.
    index('admin_audit_action_idx').on(t.action, t.createdAt, t.id),
    index('admin_audit_target_idx').on(t.targetId, t.createdAt, t.id),
    index('admin_audit_admin_idx').on(t.adminId, t.createdAt, t.id),
  ],
);

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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('topups_user_idx').on(t.userId, t.createdAt, t.id),
    index('topups_pending_idx').on(t.createdAt).where(sql`${t.status} = 'pending'`),
    check('topups_status_known', sql`${t.status} in ('pending', 'succeeded', 'canceled')`),
    check('topups_amount_positive', sql`${t.amountNano} > 0`),
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
    /** ok | client_closed | upstream_error | upstream_timeout | upstream_rejected | upstream_dropped */
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

/** An assistant of a user. Every agent-scoped route checks `user_id` against the caller. */
export const agents = pgTable(
  'agents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** creator | service | ecommerce */
    type: text('type').notNull(),
    systemPrompt: text('system_prompt').notNull().default(''),
    model: text('model').notNull(),
    /** The owner's switch: clients' photos go to the model as images (its model must take them). */
    acceptsImages: boolean('accepts_images').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('agents_user_idx').on(t.userId, t.createdAt),
    check('agents_type_known', sql`${t.type} in ('creator', 'service', 'ecommerce')`),
  ],
);

/** The Telegram bot of an agent. Chat ids are text: they exceed 32 bits and channels may be "@name". */
export const messengerSettings = pgTable('messenger_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  botTokenSealed: text('bot_token_sealed').notNull(),
  botId: bigint('bot_id', { mode: 'number' }).notNull(),
  botUsername: text('bot_username'),
  /** Chat id that receives notifications (the operator's private chat with the bot). */
  userId: text('user_id').notNull(),
  /** "@name" or a numeric id; notifications are duplicated there when set. */
  channelId: text('channel_id'),
  /** Sent to Telegram as secret_token, so it comes back on every update; sealed because it is re-sent on re-registration. */
  webhookSecretSealed: text('webhook_secret_sealed').notNull(),
  webhookUrl: text('webhook_url').notNull(),
  webhookRegisteredAt: timestamp('webhook_registered_at', { withTimezone: true, mode: 'date' }),
  /** Telegram's refusal of the last setWebhook (English, as Telegram said it); null when registered. */
  webhookError: text('webhook_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Inbox of Telegram updates: the primary key drops re-deliveries; rows are handled after the 200. */
export const messengerUpdates = pgTable(
  'messenger_updates',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    updateId: bigint('update_id', { mode: 'number' }).notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    /** What handling did (start, operator_reply, release, ignored, failed…). */
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ name: 'messenger_updates_pk', columns: [t.agentId, t.updateId] }),
    index('messenger_updates_pending_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`),
  ],
);

/**
 * A conversation of an agent with a client in some channel (e.g. "social" with a VK peer id). Only what
 * escalation needs so far: who the client is, and whether the assistant or an operator is answering.
 */
export const dialogues = pgTable(
  'dialogues',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull(),
    peerId: text('peer_id').notNull(),
    clientPhone: text('client_phone'),
    /** assistant | operator */
    mode: text('mode').notNull().default('assistant'),
    /** Whether the client lets the community write to them (message_allow / message_deny); null: never said. */
    messagingAllowed: boolean('messaging_allowed'),
    /** A multi-step exchange in progress (asking for a phone, choosing a slot…), as the assistant left it. */
    flow: jsonb('flow'),
    /** The name the client gave (booking), shown to the owner. */
    clientName: text('client_name'),
    /**
     * Who answers the client while mode is operator: "user:<id>" (the owner, from the dashboard) or
     * "telegram:<id>" (an operator replying in Telegram); null while an escalation waits for someone.
     * Taken by a conditional UPDATE, so two operators never hold one dialogue.
     */
    heldBy: text('held_by'),
    heldByName: text('held_by_name'),
    heldAt: timestamp('held_at', { withTimezone: true, mode: 'date' }),
    /** The last turn the owner has seen in the dashboard: later client turns are unread. */
    ownerReadMessageId: bigint('owner_read_message_id', { mode: 'number' }).notNull().default(0),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, mode: 'date' }),
    /**
     * When the client was told the assistant is unavailable (its owner's account blocked): told once per
     * dialogue and block, so a notice older than the owner's blocked_at means a new block, told again.
     */
    unavailableNoticeAt: timestamp('unavailable_notice_at', { withTimezone: true, mode: 'date' }),
    /**
     * A model answer owed to the client's messages (a burst): due then, pushed forward by each message
     * that joins it, so one turn answers them all. Any instance's worker claims a due one.
     */
    answerDueAt: timestamp('answer_due_at', { withTimezone: true, mode: 'date' }),
    /** A worker is answering until then; past it (a crash), another worker answers again. */
    answerLockedUntil: timestamp('answer_locked_until', { withTimezone: true, mode: 'date' }),
    /** The request id of the burst's newest message: the owed turn's model calls are billed under it. */
    answerRequestId: text('answer_request_id'),
    /** The keyboard of the assistant's last message (null: it had none): its labels, typed, act as presses. */
    lastKeyboard: jsonb('last_keyboard'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('dialogues_peer_unique').on(t.agentId, t.channel, t.peerId),
    check('dialogues_mode_known', sql`${t.mode} in ('assistant', 'operator')`),
    index('dialogues_agent_activity_idx').on(t.agentId, t.lastMessageAt, t.id),
    index('dialogues_answer_due_idx').on(t.answerDueAt).where(sql`${t.answerDueAt} is not null or ${t.answerLockedUntil} is not null`),
  ],
);

/** A dialogue handed to a human; released_at set when the operator gives it back to the assistant. */
export const escalations = pgTable(
  'escalations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull(),
    clientPhone: text('client_phone'),
    createdAt: createdAt(),
    releasedAt: timestamp('released_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('escalations_dialogue_idx').on(t.dialogueId, t.createdAt)],
);

/** Which Telegram message announced which escalation, so an operator's reply to it finds the dialogue. */
export const escalationMessages = pgTable(
  'escalation_messages',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
    escalationId: uuid('escalation_id')
      .notNull()
      .references(() => escalations.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'escalation_messages_pk', columns: [t.agentId, t.chatId, t.messageId] })],
);

/** Every operator reply to an escalation, and what became of it. */
export const operatorReplies = pgTable(
  'operator_replies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    escalationId: uuid('escalation_id')
      .notNull()
      .references(() => escalations.id, { onDelete: 'cascade' }),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
    operatorName: text('operator_name'),
    text: text('text').notNull(),
    /** relayed | undeliverable | dialogue_released | release */
    outcome: text('outcome').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('operator_replies_escalation_idx').on(t.escalationId, t.createdAt)],
);

/** Notifications of an agent (escalation, payment) as the owner sees them listed. */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** escalation | payment */
    kind: text('kind').notNull(),
    text: text('text').notNull(),
    /** The escalation id or order number it is about. */
    reference: text('reference'),
    createdAt: createdAt(),
  },
  (t) => [index('notifications_agent_idx').on(t.agentId, t.createdAt)],
);

/**
 * Messages that must leave the service, one row per recipient, written in the transaction of their
 * cause and delivered by the outbox worker. A row is marked sent as soon as its recipient is served.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** Which handler delivers it, e.g. "messenger.message". */
    kind: text('kind').notNull(),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'cascade' }),
    notificationId: uuid('notification_id').references(() => notifications.id, { onDelete: 'cascade' }),
    recipient: text('recipient').notNull(),
    payload: jsonb('payload').notNull(),
    /** pending | sent | failed */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** A worker claimed the row until then; after it, another worker may take it over. */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    /** What the recipient's side answered (e.g. the Telegram chat and message id). */
    result: jsonb('result'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('outbox_notification_idx').on(t.notificationId),
    index('outbox_agent_idx').on(t.agentId, t.createdAt),
    check('outbox_status_known', sql`${t.status} in ('pending', 'sent', 'failed')`),
  ],
);

// YCLIENTS settings of a Service agent; every credential sealed by the secret box.
export const bookingSettings = pgTable('booking_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  partnerTokenSealed: text('partner_token_sealed').notNull(),
  loginSealed: text('login_sealed').notNull(),
  passwordSealed: text('password_sealed').notNull(),
  companyId: integer('company_id').notNull(),
  syncEnabled: boolean('sync_enabled').notNull().default(false),
  slotCacheTtlMinutes: integer('slot_cache_ttl_minutes').notNull().default(15),
  specialistMapping: jsonb('specialist_mapping').$type<Record<string, number>>().notNull().default({}),
  serviceMapping: jsonb('service_mapping').$type<Record<string, number>>().notNull().default({}),
  lastSyncAt: timestamp('last_sync_at', { withTimezone: true, mode: 'date' }),
  lastSyncError: text('last_sync_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

// What YCLIENTS answered (administrator token sealed, specialists, services, free times), shared by
// every instance until it expires.
export const bookingCache = pgTable(
  'booking_cache',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: jsonb('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'booking_cache_pk', columns: [t.agentId, t.key] }),
    index('booking_cache_expires_idx').on(t.expiresAt),
  ],
);

// Appointments booked through an agent. The unique index is what stops a double booking: a claim row
// ('pending') is inserted before YCLIENTS is asked, so of concurrent requests for one start only one
// gets that far; a failed booking deletes its claim.
export const appointments = pgTable(
  'appointments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    specialistId: text('specialist_id').notNull(),
    serviceId: text('service_id').notNull(),
    staffId: integer('staff_id').notNull(),
    externalServiceId: integer('external_service_id').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The start as YCLIENTS wrote it, with the company's offset. */
    datetime: text('datetime').notNull(),
    clientName: text('client_name').notNull(),
    clientPhone: text('client_phone').notNull(),
    /** pending: claimed, YCLIENTS not yet answered; booked; canceled: the record deleted in YCLIENTS. */
    status: text('status', { enum: ['pending', 'booked', 'canceled'] }).notNull(),
    externalRecordId: text('external_record_id'),
    /** Who booked it: the owner's API, the dialogue's buttons, or the model's book_appointment tool. */
    source: text('source', { enum: ['api', 'button', 'model'] }).notNull(),
    /**
     * The client dialogue the appointment was booked in (buttons or the model): a client may list and
     * cancel only these. Null for the API's bookings; cleared when the dialogue is deleted.
     */
    dialogueId: uuid('dialogue_id').references(() => dialogues.id, { onDelete: 'set null' }),
    canceledAt: timestamp('canceled_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A canceled appointment frees its slot for the next booking.
    uniqueIndex('appointments_slot_unique').on(t.agentId, t.staffId, t.startsAt).where(sql`${t.status} <> 'canceled'`),
    index('appointments_pending_idx').on(t.status, t.createdAt),
    index('appointments_dialogue_idx').on(t.dialogueId).where(sql`${t.dialogueId} is not null`),
  ],
);

/** The VK community of an agent. The access token and the callback secret are sealed. */
export const socialSettings = pgTable('social_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  groupId: bigint('group_id', { mode: 'number' }).notNull(),
  accessTokenSealed: text('access_token_sealed').notNull(),
  secretKeySealed: text('secret_key_sealed').notNull(),
  confirmationCode: text('confirmation_code'),
  /** The callback server registered in the community for this agent's webhook URL. */
  callbackServerId: integer('callback_server_id'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Inbox of VK callback events: written before VK is answered `ok`, keyed by the event id so a
 * re-delivery changes nothing, and processed afterwards (again after a crash, until processed_at is set).
 */
export const socialEvents = pgTable(
  'social_events',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** The client the event is about (VK peer or user id): one client's events are handled oldest first, one at a time. */
    clientKey: text('client_key'),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    /** A worker handles the event until then (a model answer takes seconds: no transaction is held). */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ name: 'social_events_pk', columns: [t.agentId, t.eventId] }),
    index('social_events_pending_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`),
    index('social_events_client_pending_idx').on(t.agentId, t.clientKey, t.receivedAt).where(sql`${t.processedAt} is null`),
  ],
);

/** The recent turns of a dialogue, which the model sees as context. */
export const dialogueMessages = pgTable(
  'dialogue_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    /** user | assistant | operator | tool (a tool the model called: its name and the result's summary) */
    role: text('role').notNull(),
    content: text('content').notNull(),
    /** Assistant turns the model wrote: the request id of its usage record (model, tokens, cost). */
    requestId: text('request_id'),
    /** Operator turns: who wrote it (the owner's e-mail, the Telegram operator's name). */
    operatorName: text('operator_name'),
    /** Operator turns from the dashboard: the client's id of the reply, so a retried POST sends it once. */
    clientMessageId: text('client_message_id'),
    /** Tool turns: the name of the tool the model called (the content is the result's summary). */
    toolName: text('tool_name'),
    /** User turns with photos the model may look at: each photo's largest size URL, as VK gave it. */
    images: jsonb('images').$type<string[]>(),
    createdAt: createdAt(),
  },
  (t) => [
    index('dialogue_messages_dialogue_idx').on(t.dialogueId, t.id),
    uniqueIndex('dialogue_messages_client_message_unique').on(t.dialogueId, t.clientMessageId),
    check('dialogue_messages_role_known', sql`${t.role} in ('user', 'assistant', 'operator', 'tool')`),
  ],
);

/** An E-commerce agent's shop: how clients pay, and the secret the payment provider's notifications carry. */
export const commerceSettings = pgTable('commerce_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  /** The shop's payment page, with {orderNumber}, {orderId}, {amount} and {currency} filled in per order. */
  paymentLinkTemplate: text('payment_link_template').notNull(),
  webhookSecretSealed: text('webhook_secret_sealed').notNull(),
  /** The shop's own YooKassa account: when set, each order's payment is created there (the template is the fallback). */
  yookassaShopId: text('yookassa_shop_id'),
  yookassaSecretKeySealed: text('yookassa_secret_key_sealed'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** The catalog of an E-commerce agent. Prices are integer minor units (kopecks, cents). */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    priceMinor: bigint('price_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull().default('RUB'),
    available: boolean('available').notNull().default(true),
    /** What a client may ask by (size, colour…): names to text values, searched with the title. */
    attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
    /** Items in stock; null: not tracked (always orderable). A paid order takes its quantities off. */
    stock: integer('stock'),
    /**
     * Russian full-text document of the product for the assistant's search_products: the title weighs
     * most, then the description, then attribute values (stemmed: «красное» finds «красный»).
     */
    search: tsvector('search').generatedAlwaysAs(
      sql`setweight(to_tsvector('russian', title), 'A') || setweight(to_tsvector('russian', description), 'B') || setweight(jsonb_to_tsvector('russian', attributes, '["string"]'), 'C')`,
    ),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('products_agent_idx').on(t.agentId, t.createdAt, t.id),
    index('products_search_idx').using('gin', t.search),
    check('products_price_non_negative', sql`${t.priceMinor} >= 0`),
    check('products_stock_non_negative', sql`${t.stock} >= 0`),
  ],
);

/** What a client of the dialogue has put in their cart. */
export const cartItems = pgTable(
  'cart_items',
  {
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    quantity: integer('quantity').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'cart_items_pk', columns: [t.dialogueId, t.productId] }),
    check('cart_items_quantity_positive', sql`${t.quantity} > 0`),
  ],
);

/**
 * Orders, numbered ORD-<YYYYMMDD>-<sequence> per agent and day. The items are a snapshot: later catalog
 * edits do not change what was ordered.
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    dialogueId: uuid('dialogue_id').references(() => dialogues.id, { onDelete: 'set null' }),
    number: text('number').notNull(),
    /** pending | paid | cancelled */
    status: text('status').notNull().default('pending'),
    items: jsonb('items').$type<{ productId: string; title: string; priceMinor: number; quantity: number }[]>().notNull(),
    totalMinor: bigint('total_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    clientPhone: text('client_phone'),
    paymentLink: text('payment_link').notNull(),
    paymentId: text('payment_id'),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /** Who placed it: `buttons` (the dialogue's shop buttons) or `model` (the assistant's checkout tool). */
    source: text('source').notNull().default('buttons'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('orders_number_unique').on(t.agentId, t.number),
    index('orders_agent_idx').on(t.agentId, t.createdAt, t.id),
    check('orders_status_known', sql`${t.status} in ('pending', 'paid', 'cancelled')`),
    check('orders_source_known', sql`${t.source} in ('buttons', 'model')`),
  ],
);

/** The last order sequence of an agent's day; its row lock makes numbers gap-free under concurrency. */
export const orderCounters = pgTable(
  'order_counters',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ name: 'order_counters_pk', columns: [t.agentId, t.day] })],
);

/** Payment notifications as received: the key drops a repeat, the outcome says what it did. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    paymentId: text('payment_id').notNull(),
    event: text('event').notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'set null' }),
    outcome: text('outcome').notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'payment_events_pk', columns: [t.agentId, t.paymentId, t.event] })],
);

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

/**
 * An agent's knowledge base: what its owner wrote down (prices, hours, delivery, FAQ) for the assistant's
 * search_knowledge and for the system prompt when an entry matches the client's message well.
 */
export const knowledgeEntries = pgTable(
  'knowledge_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    /** Russian full-text document: the title weighs more than the body. */
    search: tsvector('search').generatedAlwaysAs(
      sql`setweight(to_tsvector('russian', title), 'A') || setweight(to_tsvector('russian', content), 'B')`,
    ),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('knowledge_entries_agent_idx').on(t.agentId, t.createdAt, t.id), index('knowledge_entries_search_idx').using('gin', t.search)],
);

/**
 * A user's alert settings (GET|PUT /api/account/alerts) and the low-balance crossing state. The alert is
 * claimed by setting low_balance_alerted_at with a conditional UPDATE, so two instances never mail twice;
 * it is cleared (re-armed) at the commit of any credit that leaves the balance at or above the threshold
 * (a deferred trigger on ledger_entries, see the migration), or when the threshold changes.
 */
export const accountAlerts = pgTable('account_alerts', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** Null: no low-balance alert. */
  lowBalanceThresholdNano: bigint('low_balance_threshold_nano', { mode: 'bigint' }),
  keyLimitAlerts: boolean('key_limit_alerts').notNull().default(true),
  webhookUrl: text('webhook_url'),
  /** The HMAC-SHA256 signing secret of the webhook, sealed by the secret box. */
  webhookSecretSealed: text('webhook_secret_sealed'),
  lowBalanceAlertedAt: timestamp('low_balance_alerted_at', { withTimezone: true, mode: 'date' }),
  updatedAt: updatedAt(),
});

/**
 * The last key-limit alert of each key: the period and the limit it was sent for. A key is alerted once
 * per period and limit value; a new period or a changed limit arms it again.
 */
export const keyLimitAlerts = pgTable('key_limit_alerts', {
  keyId: uuid('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  periodStart: timestamp('period_start', { withTimezone: true, mode: 'date' }).notNull(),
  limitNano: bigint('limit_nano', { mode: 'bigint' }).notNull(),
  alertedAt: timestamp('alerted_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * A user's TOTP second factor (RFC 6238). The secret is sealed with the secret box like integration
 * secrets; `enabledAt` null means set up but not yet confirmed with a first code (login ignores it).
 * `lastUsedStep` is the 30-second step of the last code accepted, so a code cannot be used twice.
 */
export const twoFactorSecrets = pgTable('two_factor_secrets', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretSealed: text('secret_sealed').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true, mode: 'date' }),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: createdAt(),
});

/** One-time recovery codes, only their SHA-256 kept; a used code's row is deleted. */
export const twoFactorRecoveryCodes = pgTable(
  'two_factor_recovery_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [index('two_factor_recovery_codes_user_idx').on(t.userId)],
);

/**
 * A requested e-mail change waiting for its link (mailed to the new address) to be opened: only the
 * token's SHA-256 is stored, one-time, valid one hour.
 */
export const emailChanges = pgTable(
  'email_changes',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    newEmail: text('new_email').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('email_changes_user_idx').on(t.userId), index('email_changes_expiry_idx').on(t.expiresAt)],
);
