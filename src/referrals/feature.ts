// Referrals as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createReferralsApi, referralsSlot } from './api';
import { referralsRouter } from './router';

export const referralsFeature = defineFeature({
  slot: referralsSlot,
  create: createReferralsApi,
  routers: { referrals: referralsRouter },
});
