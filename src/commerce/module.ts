// Composes the shop of E-commerce agents: catalog, carts and orders, settings, and the payment webhook.
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Notifier } from '../integrations/messenger/notify';
import { createCatalog } from './catalog';
import { createOrders } from './orders';
import { createPaymentWebhook } from './payments';
import { createCommerceSettings } from './settings';

export function createCommerce(deps: {
  db: Database;
  box: SecretBox;
  logger: Logger;
  outbox: OutboxWorker;
  notifier: Notifier;
  config: Pick<Config, 'publicBaseUrl' | 'orderTimeZone'>;
}) {
  const catalog = createCatalog(deps.db);
  const orders = createOrders(deps.db, deps.config.orderTimeZone);
  const settings = createCommerceSettings({ db: deps.db, box: deps.box, publicBaseUrl: deps.config.publicBaseUrl });
  const payments = createPaymentWebhook({ db: deps.db, settings, notifier: deps.notifier, outbox: deps.outbox, logger: deps.logger });
  return { catalog, orders, settings, payments };
}

export type Commerce = ReturnType<typeof createCommerce>;
