// The outbox handlers of alerts: the e-mail, and the webhook call signed with the account's secret.
//
// Signature (README, "Alerts"): `X-Conduit-Signature: t=<unix seconds>,v1=<hex>` where hex is
// HMAC-SHA256(secret, `<t>.<raw body>`), and `X-Conduit-Timestamp: <t>`. Each attempt is signed anew with
// its own time (the body, with its event id, stays the same), so a receiver can refuse old timestamps
// against replays and drop repeated ids.
import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import { GiveUp, RetryLater, type OutboxHandler } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import type { AlertSettings } from './settings';
import { resolveWebhookUrl, type ResolveHost } from './webhook-address';
import { postWebhook, WebhookNotReached } from './webhook-post';

export const SIGNATURE_HEADER = 'x-conduit-signature';
export const TIMESTAMP_HEADER = 'x-conduit-timestamp';
/** The whole exchange, connection to status: a receiver that takes longer is retried later. */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Of the answer only the status matters; this much of its body is read (and dropped) at most. */
export const WEBHOOK_ANSWER_MAX_BYTES = 4096;

/**
 * Alert webhook calls in delivery at once per instance (each account's one at a time: its outbox lane):
 * below the outbox's 32, so dead receivers can never take the slots of the clients' VK and Telegram messages.
 */
export const ALERT_WEBHOOK_CONCURRENCY = 16;
/** Alert mails at once: an SMTP server takes a few connections from one client, not dozens. */
export const ALERT_MAIL_CONCURRENCY = 4;

/** The v1 signature of a body sent at `timestamp` (unix seconds). */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

export function createAlertMailHandler(mailer: Mailer | null): OutboxHandler {
  return {
    async deliver(row) {
      // SMTP_URL was removed after the mail was queued: it cannot leave any more.
      if (!mailer) throw new GiveUp('no SMTP_URL: alert mail cannot be sent');
      const { subject, text, html } = row.payload as { subject: string; text: string; html: string };
      try {
        await mailer.send({ to: row.recipient, subject, text, html });
      } catch (error) {
        const e = error as { responseCode?: unknown };
        // A permanent refusal (5xx: no such mailbox) will not change; anything else may.
        if (typeof e.responseCode === 'number' && e.responseCode >= 500) throw new GiveUp(`SMTP refused the alert mail (${e.responseCode})`);
        throw new RetryLater(`SMTP: ${typeof e.responseCode === 'number' ? e.responseCode : 'not reached'}`);
      }
      return {};
    },
  };
}

export interface WebhookHandlerDeps {
  settings: AlertSettings;
  config: Pick<Config, 'alertWebhookAllowPrivate'>;
  logger: Logger;
  /** DNS for the webhook's host; the system resolver unless given. */
  resolve?: ResolveHost;
}

export function createAlertWebhookHandler({ settings, config, resolve }: WebhookHandlerDeps): OutboxHandler {
  return {
    async deliver(row) {
      const { userId, body } = row.payload as { userId: string; body: string };
      // The account's webhook as it is now: an event queued before the user moved it goes to the new URL
      // (the event is the account's, and the old address was given up); one removed since is not sent.
      const webhook = await settings.webhookOf(userId);
      if (!webhook) throw new GiveUp('the account has no webhook any more');
      let target: Awaited<ReturnType<typeof resolveWebhookUrl>>;
      try {
        target = await resolveWebhookUrl(webhook.url, config.alertWebhookAllowPrivate, resolve);
      } catch (error) {
        throw new RetryLater(`webhook host not resolved now: ${(error as { code?: unknown })?.code ?? 'error'}`);
      }
      if (target === 'private') throw new GiveUp('the webhook host now resolves to a non-public address');
      if (typeof target === 'string') throw new RetryLater(`webhook URL unusable now: ${target}`);
      const timestamp = Math.floor(Date.now() / 1000);
      let response: { status: number; retryAfter: string | null };
      try {
        response = await postWebhook(
          target,
          {
            'content-type': 'application/json',
            'user-agent': 'Conduit-Webhooks/1',
            [TIMESTAMP_HEADER]: String(timestamp),
            [SIGNATURE_HEADER]: `t=${timestamp},v1=${webhookSignature(webhook.secret, timestamp, body)}`,
          },
          body,
          { timeoutMs: WEBHOOK_TIMEOUT_MS, maxAnswerBytes: WEBHOOK_ANSWER_MAX_BYTES },
        );
      } catch (error) {
        throw new RetryLater(error instanceof WebhookNotReached ? error.message : 'webhook not reached');
      }
      const ok = response.status >= 200 && response.status < 300;
      if (ok) return { result: { status: response.status } };
      if (response.status === 429) {
        const seconds = Number(response.retryAfter);
        throw new RetryLater('webhook answered 429', { afterMs: Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : null });
      }
      // A receiver that fails (5xx) or refuses (4xx, e.g. a secret not yet updated) may be fixed: retried
      // with back-off until OUTBOX_MAX_ATTEMPTS.
      throw new RetryLater(`webhook answered ${response.status}`);
    },
  };
}
