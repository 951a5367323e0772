// Balance and key-limit alerts: told of every charge billing writes (the gateway's `charged` event).
import { type Base, defineSlot } from '../platform/feature';
import { charged } from '../gateway';
import { createAlerts } from './module';

export function createAlertsApi({ db, secretBox, outbox, logger, config, events }: Base) {
  const alerts = createAlerts({ db, box: secretBox, outbox, logger, config });
  events.on(charged, (charges) => alerts.checker.charged(charges));
  return { alerts };
}

export type AlertsApi = ReturnType<typeof createAlertsApi>;
export const alertsSlot = defineSlot<AlertsApi>('alerts');
