// The operator's API: users, credits, prices, providers and routes, the audit, the daily figures.
import { accountsSlot } from '../accounts';
import { authSlot } from '../auth';
import { gatewaySlot } from '../gateway';
import { keysSlot, userKeysRevoked } from '../keys';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { pricingSlot } from '../pricing/api';
import { createProviderBalances } from './provider-balances';
import { createAdminService } from './service';
import { createStatsExport } from './stats-export';

export function createAdminApi({ db, database, config, secretBox, logger, outbox, events }: Base, use: Use) {
  const { billing, models, routing, probes } = use(gatewaySlot);
  const admin = createAdminService({
    db,
    billing,
    prices: use(pricingSlot).prices,
    models,
    config,
    routing,
    probes,
    box: secretBox,
    accounts: use(accountsSlot).accounts,
    keys: use(keysSlot).keys,
    onUserKeysChanged: (userId) => events.emit(userKeysRevoked, userId),
  });
  const statsExport = createStatsExport({ authenticator: use(authSlot).authenticator, stats: admin.stats, currency: config.balanceCurrency });
  // The providers' balances, read where they expose one; the operators mailed below a threshold.
  const balances = createProviderBalances({ db, database, box: secretBox, logger, config, wake: () => outbox.wake() });
  return { admin, statsExport, balances };
}

export type AdminApi = ReturnType<typeof createAdminApi>;
export const adminSlot = defineSlot<AdminApi>('admin');
