// The promotions feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own. Promo money is not "real money": a feature paying on top-ups (referrals) counts ledger
// kind 'topup' only, never 'promo'.
export { promotionsSlot } from './api';
