// Promo codes as they plug into the composition (src/features.ts): after the gateway (the balance it reads)
// and the admin feature (the audit it writes).
import { defineFeature } from '../platform/feature';
import { createPromotionsApi, promotionsSlot } from './api';
import { promoCodesExportRoute } from './codes-export.route';
import { adminPromotionsRouter, promoRouter } from './router';

export const promotionsFeature = defineFeature({
  slot: promotionsSlot,
  create: createPromotionsApi,
  routers: { promo: promoRouter, adminPromotions: adminPromotionsRouter },
  rawRoutes: [promoCodesExportRoute],
});
