// The operator's API: users, credits, prices, providers and routes, the audit, the daily figures.
import { accountsSlot } from '../accounts';
import { authSlot } from '../auth';
import { gatewaySlot } from '../gateway';
import { keysSlot } from '../keys';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { pricingSlot } from '../pricing/api';
import { createAdminService } from './service';
import { createStatsExport } from './stats-export';

export function createAdminApi({ db, config, secretBox }: Base, use: Use) {
  const { billing, models, routing } = use(gatewaySlot);
  const admin = createAdminService({
    db,
    billing,
    prices: use(pricingSlot).prices,
    models,
    config,
    routing,
    box: secretBox,
    accounts: use(accountsSlot).accounts,
    keys: use(keysSlot).keys,
  });
  const statsExport = createStatsExport({ authenticator: use(authSlot).authenticator, stats: admin.stats, currency: config.balanceCurrency });
  return { admin, statsExport };
}

export type AdminApi = ReturnType<typeof createAdminApi>;
export const adminSlot = defineSlot<AdminApi>('admin');
