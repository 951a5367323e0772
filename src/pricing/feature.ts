// The price book as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createPricingApi, pricingSlot } from './api';

export const pricingFeature = defineFeature({
  slot: pricingSlot,
  create: createPricingApi,
  async start({ prices }, { lifecycle }) {
    await prices.start();
    lifecycle.onShutdown('price book', () => prices.stop());
  },
});
