// The Telegram bot as it plugs into the composition (src/features.ts).
import { defineFeature } from '../../platform/feature';
import { createMessengerApi, messengerSlot } from './api';
import { messengerRouter } from './router';
import { telegramWebhookRoute } from './webhook.route';

export const messengerFeature = defineFeature({
  slot: messengerSlot,
  create: createMessengerApi,
  start({ messenger }, { lifecycle }) {
    messenger.start();
    lifecycle.onShutdown('messenger', () => messenger.stop());
  },
  routers: { messenger: messengerRouter },
  rawRoutes: [telegramWebhookRoute],
});
