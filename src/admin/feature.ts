// The operator's API as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { adminSlot, createAdminApi } from './api';
import { adminRouter } from './router';
import { adminPriceGroupsRouter } from './price-groups-router';
import { adminStatsExportRoute } from './stats-export.route';

export const adminFeature = defineFeature({
  slot: adminSlot,
  create: createAdminApi,
  start({ balances }, { lifecycle }) {
    balances.start();
    lifecycle.onShutdown('provider balances', () => balances.stop());
  },
  routers: { admin: adminRouter, adminPriceGroups: adminPriceGroupsRouter },
  rawRoutes: [adminStatsExportRoute],
});
