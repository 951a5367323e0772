// The integrations/social feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { socialSlot } from './api';
export { SOCIAL_CHANNEL, SOCIAL_MESSAGE_KIND, queueSocialMessage } from './sender';
export type { SocialSettings } from './settings';
