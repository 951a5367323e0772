// The Telegram bot: its settings, its webhook, and the owner's escalation and payment notices.
import { type Base, defineSlot } from '../../platform/feature';
import { createMessenger } from './module';

export function createMessengerApi({ db, secretBox, logger, outbox, config, metrics }: Base) {
  return {
    db,
    messenger: createMessenger({ db, box: secretBox, logger, outbox, config, observeUpdate: (outcome) => metrics.webhookEvent('messenger', outcome) }),
  };
}

export type MessengerApi = ReturnType<typeof createMessengerApi>;
export const messengerSlot = defineSlot<MessengerApi>('messenger');
