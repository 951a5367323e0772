// Composes the messenger integration: settings, notifier, escalations and the webhook, on one bot client
// factory and the shared outbox.
import type { Config } from '../../config';
import type { SecretBox } from '../../crypto/secret-box';
import type { Database } from '../../db/client';
import { createPeriodicJob } from '../../jobs/periodic';
import type { OutboxWorker } from '../../jobs/outbox';
import type { Logger } from '../../logger';
import { createTelegramClient } from './client';
import { createEscalations } from './escalations';
import { createNotifier } from './notify';
import { createOwnerMail } from './owner-mail';
import { createMorningQueue } from './morning-queue';
import { createMessengerSettings } from './settings';
import { createMessengerWebhook } from './webhook';

const MORNING_CHECK_MS = 60_000;

export interface MessengerDeps {
  db: Database;
  box: SecretBox;
  logger: Logger;
  outbox: OutboxWorker;
  config: Pick<Config, 'publicBaseUrl' | 'telegramApiBaseUrl' | 'telegramTimeoutMs' | 'outboxPollIntervalMs' | 'bodyLimitBytes' | 'smtp' | 'yclientsTimeZone'>;
  /** Told how each Telegram update's handling ended (metrics). */
  observeUpdate?: (outcome: 'handled' | 'failed') => void;
}

export function createMessenger({ db, box, logger, outbox, config, observeUpdate }: MessengerDeps) {
  const telegramFor = (botToken: string) => createTelegramClient({ baseUrl: config.telegramApiBaseUrl, token: botToken, timeoutMs: config.telegramTimeoutMs });
  const settings = createMessengerSettings({ db, box, logger, publicBaseUrl: config.publicBaseUrl, telegramFor });
  const notifier = createNotifier({ settings, outbox, telegramFor });
  const ownerMail = createOwnerMail({ config });
  const escalations = createEscalations({ db, notifier, ownerMail, timeZone: config.yclientsTimeZone });
  const morning = createMorningQueue({ db, notifier, ownerMail, timeZone: config.yclientsTimeZone, logger });
  // Each minute: a working day's start is on the minute the owner set, and the summary goes within it.
  const morningJob = createPeriodicJob({ name: 'morning summary of night escalations', intervalMs: MORNING_CHECK_MS, run: () => morning.sendDue(), logger });
  const webhook = createMessengerWebhook({ db, settings, escalations, notifier, outbox, logger, bodyLimitBytes: config.bodyLimitBytes, observe: observeUpdate });
  // Updates normally are handled right after their 200; this only catches those a stop cut short.
  const sweep = createPeriodicJob({
    name: 'messenger inbox sweep',
    intervalMs: Math.max(50, config.outboxPollIntervalMs * 5),
    run: () => webhook.sweep(),
    logger,
  });

  return {
    settings,
    notifier,
    ownerMail,
    escalations,
    morning,
    webhook,
    telegramFor,
    start() {
      sweep.start();
      morningJob.start();
    },
    async stop() {
      await morningJob.stop();
      await sweep.stop();
      await webhook.drain();
    },
  };
}

export type Messenger = ReturnType<typeof createMessenger>;
