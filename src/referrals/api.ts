// Referrals: who invited whom is recorded as accounts register (their `accountRegistered` event, in the
// registration's transaction); the payouts are made by billing's credit (payout.ts, through index.ts).
import { accountRegistered } from '../accounts';
import { type Base, defineSlot } from '../platform/feature';
import { recordReferral } from './record';
import { createReferralService } from './service';

export function createReferralsApi({ db, config, events }: Base) {
  events.on(accountRegistered, recordReferral);
  return { referrals: createReferralService(db, config) };
}

export type ReferralsApi = ReturnType<typeof createReferralsApi>;
export const referralsSlot = defineSlot<ReferralsApi>('referrals');
