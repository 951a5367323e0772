// The shop as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { commerceSlot, createCommerceApi } from './api';
import { orderPaymentWebhookRoute } from './payment-webhook.route';
import { commerceRouter } from './router';

export const commerceFeature = defineFeature({
  slot: commerceSlot,
  create: createCommerceApi,
  start({ commerce }, { lifecycle }) {
    commerce.reminders.start();
    lifecycle.onShutdown('unpaid order reminders', () => commerce.reminders.stop());
  },
  routers: { commerce: commerceRouter },
  rawRoutes: [orderPaymentWebhookRoute],
});
