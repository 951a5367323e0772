// What the gateway sells and where it sends it: model prices, providers, routes and their health.
import { bigint, boolean, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';

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
