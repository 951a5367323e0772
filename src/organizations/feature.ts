// Organisations as they plug into the composition (src/features.ts): after the gateway (balances) and the
// keys (a leaving member's keys), which they use.
import { defineFeature } from '../platform/feature';
import { createOrganizationsApi, organizationsSlot } from './api';
import { organizationsRouter } from './router';

export const organizationsFeature = defineFeature({
  slot: organizationsSlot,
  create: createOrganizationsApi,
  routers: { organizations: organizationsRouter },
});
