// The keys feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { looksLikeApiKey } from './api-keys';
export { keysSlot } from './api';
export { keyChanged, userKeysRevoked } from './events';
export { limitResetInput, spendLimitInput } from './input';
export { LIMIT_RESETS, describeLimit, periodStart, type KeyLimitRef, type LimitReset, type MemberLimitRef } from './limits';
export { memberSpentThisMonth } from './member-limits';
export { usageCreatorFilter, usageKeyFilter } from './scope';
export { USER_KEYS_CHANGED_CHANNEL, type KeyRow, type KeyService } from './service';
export { accountBlockedMessage, keysMessages } from './texts';
export { ORGANIZATION_ACCESS, ORGANIZATION_ROLES } from './types';
export type { KeyCacheMode, KeyScope, OrganizationRole, Principal } from './types';
export type { KeyVerifier } from './verifier';
