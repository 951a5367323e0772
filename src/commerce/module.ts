// Composes the shop of E-commerce agents: catalog, carts and orders, settings, payments on the shop's own
// YooKassa account, and the payment webhook.
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Database, DatabaseHandle } from '../db/client';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Events } from '../platform/events';
import type { Notifier } from '../integrations/messenger';
import { createYookassaClient, type YookassaCredentials } from '../payments/yookassa';
import { createNotificationSenders } from '../payments/notification-senders';
import { createCatalog } from './catalog';
import { createOrderPayments } from './order-payments';
import { createOrders } from './orders';
import { createOrderStatus } from './order-status';
import { createOrderReminders } from './order-reminders';
import { createPaymentWebhook } from './payments';
import { createCommerceSettings } from './settings';

/** How often the unpaid orders' reminders are looked for. */
const REMINDER_INTERVAL_MS = 60_000;

export function createCommerce(deps: {
  db: Database;
  database: DatabaseHandle;
  box: SecretBox;
  logger: Logger;
  outbox: OutboxWorker;
  notifier: Notifier;
  events: Pick<Events, 'emitAndWait'>;
  config: Pick<Config, 'publicBaseUrl' | 'orderTimeZone' | 'yclientsTimeZone' | 'yookassaApiBaseUrl' | 'yookassaNotificationIps' | 'trustProxy'>;
}) {
  const catalog = createCatalog(deps.db);
  const orders = createOrders(deps.db, deps.config.orderTimeZone);
  const settings = createCommerceSettings({ db: deps.db, box: deps.box, publicBaseUrl: deps.config.publicBaseUrl });
  // Each shop speaks to YooKassa with its own account.
  const yookassaFor = (credentials: YookassaCredentials) => createYookassaClient({ baseUrl: deps.config.yookassaApiBaseUrl, credentials });
  const orderPayments = createOrderPayments({ clientFor: yookassaFor, logger: deps.logger });
  const senders = createNotificationSenders({ ranges: deps.config.yookassaNotificationIps, trustProxy: deps.config.trustProxy });
  const payments = createPaymentWebhook({
    db: deps.db,
    settings,
    notifier: deps.notifier,
    outbox: deps.outbox,
    logger: deps.logger,
    yookassaFor,
    senders,
    events: deps.events,
  });
  const orderStatus = createOrderStatus({ db: deps.db, events: deps.events, outbox: deps.outbox });
  const reminders = createOrderReminders({
    database: deps.database,
    events: deps.events,
    outbox: deps.outbox,
    logger: deps.logger,
    intervalMs: REMINDER_INTERVAL_MS,
    timeZone: deps.config.yclientsTimeZone,
  });
  return { catalog, orders, settings, orderPayments, payments, orderStatus, reminders };
}

export type Commerce = ReturnType<typeof createCommerce>;
