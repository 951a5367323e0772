// Who is calling: a dashboard JWT (accounts) or an API key (keys), for every procedure and raw route.
import { accountsSlot } from '../accounts';
import { keysSlot } from '../keys';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createAuthenticator } from './authenticate';
import { createMemberships } from './memberships';

export function createAuthApi({ config, db }: Base, use: Use) {
  return { authenticator: createAuthenticator(use(accountsSlot).accounts, use(keysSlot).verifier, createMemberships(db), config.supportContact) };
}

export type AuthApi = ReturnType<typeof createAuthApi>;
export const authSlot = defineSlot<AuthApi>('auth');
