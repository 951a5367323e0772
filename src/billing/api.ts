// Top-ups of the balance through YooKassa, the re-check of payments whose notice never came, and auto top-up.
import { charged } from '../gateway';
import { type Base, defineSlot } from '../platform/feature';
import { createTopups } from './module';

export function createTopupsApi({ database, logger, config, secretBox, outbox, events }: Base) {
  const topups = createTopups({ database, logger, config, box: secretBox, wake: () => outbox.wake() });
  // Each settlement batch may take a balance below an auto top-up's threshold.
  events.on(charged, (charges) => topups.autoTopup.charged(charges));
  return { topups };
}

export type TopupsApi = ReturnType<typeof createTopupsApi>;
export const topupsSlot = defineSlot<TopupsApi>('topups');
