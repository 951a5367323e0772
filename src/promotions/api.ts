// Promo codes: the operator's campaigns, the redemptions, the codes' CSV, built once for the composition.
import { createThrottle } from '../accounts';
import { authSlot } from '../auth';
import { gatewaySlot } from '../gateway';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createCampaigns } from './campaigns';
import { createCodesExport } from './codes-export';
import { createRedemptions } from './redeem';

export function createPromotionsApi({ db, config, secretBox }: Base, use: Use) {
  const campaigns = createCampaigns({ db, secretBox });
  const redemptions = createRedemptions({ db, throttle: createThrottle(db), config });
  const billing = use(gatewaySlot).billing;
  const codesExport = createCodesExport({ authenticator: use(authSlot).authenticator, campaigns });
  return {
    promotions: {
      campaigns,
      redemptions,
      /** The account's money after a credit: the balance plus its leases, as GET /api/balance shows it. */
      balanceNano: (userId: string) => billing.balanceNano(userId),
    },
    codesExport,
  };
}

export type PromotionsApi = ReturnType<typeof createPromotionsApi>;
export const promotionsSlot = defineSlot<PromotionsApi>('promotions');
