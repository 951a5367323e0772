// Alerts as they plug into the composition (src/features.ts). Listed before the gateway, so that their stop
// runs after billing's: billing's last batches may still cross thresholds.
import { defineFeature } from '../platform/feature';
import { alertsRouter } from './router';
import { alertsSlot, createAlertsApi } from './api';

export const alertsFeature = defineFeature({
  slot: alertsSlot,
  create: createAlertsApi,
  start({ alerts }, { lifecycle }) {
    lifecycle.onShutdown('alerts', () => alerts.stop());
  },
  routers: { alerts: alertsRouter },
});
