// Composes balance top-ups: the service behind the dashboard routes, YooKassa's notifications, and the
// periodic re-check. Without YOOKASSA_SHOP_ID/YOOKASSA_SECRET_KEY there is no client and top-ups are off.
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { DatabaseHandle } from '../db/client';
import type { Logger } from '../logger';
import { createYookassaClient } from '../payments/yookassa';
import { clientAddressOf } from '../http/client-address';
import { createNotificationSenders } from '../payments/notification-senders';
import { createTopupNotifications } from './notifications';
import { createTopupRecheck } from './recheck';
import { createTopupService, type TopupsConfig } from './topups';
import { createAutoTopup } from './auto-topup';
import { createAutoTopupOutcomes } from './auto-topup-outcomes';

export function createTopups(deps: {
  database: DatabaseHandle;
  logger: Logger;
  box: SecretBox;
  config: TopupsConfig & Pick<Config, 'yookassa' | 'yookassaApiBaseUrl' | 'yookassaNotificationIps' | 'trustProxy' | 'publicBaseUrl' | 'smtp'>;
  /** The outbox's wake: failure mails leave without waiting for its poll. */
  wake: () => void;
}) {
  const { database, logger, config, box } = deps;
  const client = config.yookassa ? createYookassaClient({ baseUrl: config.yookassaApiBaseUrl, credentials: config.yookassa }) : null;
  // Saved cards and auto top-up ride on the end of each top-up, in the transaction that ends it.
  const hooks = createAutoTopupOutcomes({ box, logger, config });
  const service = createTopupService({ db: database.db, config, logger, client, hooks });
  const autoTopup = createAutoTopup({ db: database.db, box, logger, config, client, topups: service, wake: deps.wake });
  // The re-read is what protects top-ups; the sender check (the published list unless the operator set
  // another, or none) keeps strangers from making us re-read at all.
  const senders = createNotificationSenders({ ranges: config.yookassaNotificationIps, trustProxy: config.trustProxy });
  const notifications = createTopupNotifications({
    topups: service,
    enabled: client !== null,
    logger,
    senders,
    addressOf: (request) => clientAddressOf(request, config.trustProxy),
  });
  // Every TOPUP_RECHECK_SECONDS: a lost notification is caught between one and two of those after it was due.
  const recheck = createTopupRecheck({ database, topups: service, logger, intervalMs: config.topupRecheckSeconds * 1000 });
  return {
    service,
    notifications,
    recheck,
    autoTopup,
    start() {
      if (client) recheck.start();
    },
    async stop() {
      await recheck.stop();
      await autoTopup.stop();
    },
  };
}

export type Topups = ReturnType<typeof createTopups>;
