// The auth feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { authSlot } from './api';
export { ORGANIZATION_HEADER } from './authenticate';
export type { AdminPrincipal, Authenticator, OrganizationRoles } from './authenticate';
