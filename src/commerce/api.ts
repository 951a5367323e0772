// The shop: catalogue, orders, the shop's settings, its YooKassa payments and their webhook.
import { messengerSlot } from '../integrations/messenger';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createCommerce } from './module';

export function createCommerceApi({ db, database, secretBox, logger, outbox, config, events }: Base, use: Use) {
  return { commerce: createCommerce({ db, database, box: secretBox, logger, outbox, notifier: use(messengerSlot).messenger.notifier, events, config }) };
}

export type CommerceApi = ReturnType<typeof createCommerceApi>;
export const commerceSlot = defineSlot<CommerceApi>('commerce');
