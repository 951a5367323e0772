// Balance and key-limit alerts, by e-mail and signed webhook (README, "Alerts"): the settings, the checks
// billing triggers after each batch, and the outbox handlers that deliver what a check queued.
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import { createMailer } from '../mail/mailer';
import { ALERT_MAIL_KIND, ALERT_WEBHOOK_KIND, createAlertChecker } from './checker';
import { ALERT_MAIL_CONCURRENCY, ALERT_WEBHOOK_CONCURRENCY, createAlertMailHandler, createAlertWebhookHandler } from './delivery';
import { createAlertSettings } from './settings';

export interface AlertsDeps {
  db: Database;
  box: SecretBox;
  outbox: OutboxWorker;
  logger: Logger;
  config: Config;
}

export function createAlerts({ db, box, outbox, logger, config }: AlertsDeps) {
  const mailer = config.smtp ? createMailer(config.smtp) : null;
  const settings = createAlertSettings({ db, box, config });
  const checker = createAlertChecker({ db, logger, config, wake: () => outbox.wake() });
  outbox.register(ALERT_MAIL_KIND, { ...createAlertMailHandler(mailer), concurrency: ALERT_MAIL_CONCURRENCY });
  outbox.register(ALERT_WEBHOOK_KIND, { ...createAlertWebhookHandler({ settings, config, logger }), concurrency: ALERT_WEBHOOK_CONCURRENCY });
  return {
    settings,
    checker,
    async stop() {
      await checker.idle();
      mailer?.close();
    },
  };
}

export type Alerts = ReturnType<typeof createAlerts>;
