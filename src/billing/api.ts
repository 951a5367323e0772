// Top-ups of the balance through YooKassa, and the re-check of payments whose notice never came.
import { type Base, defineSlot } from '../platform/feature';
import { createTopups } from './module';

export function createTopupsApi({ database, logger, config }: Base) {
  return { topups: createTopups({ database, logger, config }) };
}

export type TopupsApi = ReturnType<typeof createTopupsApi>;
export const topupsSlot = defineSlot<TopupsApi>('topups');
