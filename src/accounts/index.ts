// The accounts feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { accountsSlot } from './api';
export { ORGANIZATION_EMAIL_DOMAIN } from './auth-input';
export { accountRegistered, type AccountRegistered } from './events';
export type { AccountService } from './service';
export { accountsMessages, escapeHtml } from './texts';
export { endSessions } from './token-users';
export { createThrottle, type Throttle, type ThrottleScope } from './throttle';
