// The price book: what each model costs, held in memory for the /v1 hot path, reloaded on change.
import { type Base, defineSlot } from '../platform/feature';
import { createPriceBook } from './prices';

export function createPricingApi({ db, database, config, logger }: Base) {
  return { prices: createPriceBook({ db, database, config, logger }) };
}

export type PricingApi = ReturnType<typeof createPricingApi>;
export const pricingSlot = defineSlot<PricingApi>('pricing');
