// Alerts: low balance and key limits.
import { bigint, boolean, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { updatedAt } from '../db/columns';
import { users } from '../accounts/tables';
import { apiKeys } from '../keys/tables';

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
