// Top-ups as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createTopupsApi, topupsSlot } from './api';
import { billingRouter } from './router';
import { yookassaNotificationsRoute } from './yookassa-notifications.route';

export const topupsFeature = defineFeature({
  slot: topupsSlot,
  create: createTopupsApi,
  start({ topups }, { lifecycle }) {
    topups.start();
    lifecycle.onShutdown('top-up re-check', () => topups.stop());
  },
  routers: { billing: billingRouter },
  rawRoutes: [yookassaNotificationsRoute],
});
