// The alert settings of an account (GET|PUT /api/account/alerts). The webhook's signing secret is made
// here, sealed by the secret box, shown in clear once (in the answer that made it) and masked after.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Config } from '../config';
import { maskSecret, type SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import { accountAlerts } from './tables';
import { AppError } from '../http/errors';
import { alertsMessages } from './texts';
import { nanoToUnits, unitsToNano } from '../money';
import type { AlertSettingsInput, AlertSettingsView } from './input';
import { checkWebhookUrl } from './webhook-address';

/** The prefix tells a reader what the value is (as Stripe's whsec_); the rest is 256 random bits. */
const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;
/** How much of a secret a read shows: the prefix and four characters, enough to tell two apart. */
const SECRET_VISIBLE = 10;

export interface AlertSettingsDeps {
  db: Database;
  box: SecretBox;
  config: Pick<Config, 'alertWebhookAllowPrivate' | 'balanceCurrency' | 'smtp'>;
}

const problemMessages = {
  invalid: alertsMessages.alertWebhookUrlInvalid,
  private: alertsMessages.alertWebhookPrivate,
  unknown_host: alertsMessages.alertWebhookUnknownHost,
} as const;

export function createAlertSettings({ db, box, config }: AlertSettingsDeps) {
  type Row = typeof accountAlerts.$inferSelect;

  function view(row: Row | undefined, freshSecret: string | null): AlertSettingsView {
    const secret = row?.webhookSecretSealed ? box.open(row.webhookSecretSealed, 'webhookSecret') : null;
    return {
      lowBalanceThreshold: row?.lowBalanceThresholdNano == null ? null : nanoToUnits(row.lowBalanceThresholdNano),
      keyLimitAlerts: row?.keyLimitAlerts ?? true,
      webhookUrl: row?.webhookUrl ?? null,
      webhookSecret: freshSecret ?? (secret === null ? null : maskSecret(secret, SECRET_VISIBLE)),
      webhookSecretShown: freshSecret !== null,
      emailEnabled: config.smtp !== null,
      currency: config.balanceCurrency,
    };
  }

  async function read(userId: string): Promise<Row | undefined> {
    const [row] = await db.select().from(accountAlerts).where(eq(accountAlerts.userId, userId)).limit(1);
    return row;
  }

  return {
    async get(userId: string): Promise<AlertSettingsView> {
      return view(await read(userId), null);
    },

    async put(userId: string, input: AlertSettingsInput): Promise<AlertSettingsView> {
      if (input.webhookUrl) {
        const problem = await checkWebhookUrl(input.webhookUrl, config.alertWebhookAllowPrivate);
        if (problem) throw new AppError('invalid_request_error', problemMessages[problem], { param: 'webhookUrl' });
      }
      return db.transaction(async (tx) => {
        const [before] = await tx.select().from(accountAlerts).where(eq(accountAlerts.userId, userId)).for('update').limit(1);
        const url = input.webhookUrl === undefined ? (before?.webhookUrl ?? null) : input.webhookUrl;
        if (input.rotateWebhookSecret && url === null) {
          throw new AppError('invalid_request_error', alertsMessages.alertWebhookSecretWithoutUrl, { param: 'rotateWebhookSecret' });
        }
        // A webhook gets a secret when it first has a URL, and a new one on request; no URL, no secret.
        const fresh = url !== null && (!before?.webhookSecretSealed || input.rotateWebhookSecret) ? newWebhookSecret() : null;
        const sealed = url === null ? null : fresh ? box.seal(fresh) : (before?.webhookSecretSealed ?? null);
        const thresholdNano =
          input.lowBalanceThreshold === undefined
            ? (before?.lowBalanceThresholdNano ?? null)
            : input.lowBalanceThreshold === null
              ? null
              : unitsToNano(input.lowBalanceThreshold);
        // A new threshold is a new alert: it may fire at the next charge even if the old one had fired.
        const rearm = thresholdNano !== (before?.lowBalanceThresholdNano ?? null);
        const values = {
          lowBalanceThresholdNano: thresholdNano,
          keyLimitAlerts: input.keyLimitAlerts ?? before?.keyLimitAlerts ?? true,
          webhookUrl: url,
          webhookSecretSealed: sealed,
          lowBalanceAlertedAt: rearm ? null : (before?.lowBalanceAlertedAt ?? null),
          updatedAt: sql`now()`,
        };
        const [row] = await tx
          .insert(accountAlerts)
          .values({ userId, ...values })
          .onConflictDoUpdate({ target: accountAlerts.userId, set: values })
          .returning();
        return view(row, fresh);
      });
    },

    /** The webhook's URL and secret in clear, for signing a delivery; null when the account has none now. */
    async webhookOf(userId: string): Promise<{ url: string; secret: string } | null> {
      const row = await read(userId);
      if (!row?.webhookUrl || !row.webhookSecretSealed) return null;
      return { url: row.webhookUrl, secret: box.open(row.webhookSecretSealed, 'webhookSecret') };
    },
  };
}

export type AlertSettings = ReturnType<typeof createAlertSettings>;
