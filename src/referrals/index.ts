// The referrals feature's way in for other features: billing's credit pays the referrer through
// payReferralReward, in the top-up's transaction. Anything not exported here is the feature's own.
export { payReferralReward, type ReferralConfig } from './payout';
