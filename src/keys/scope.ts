// Which usage an API key may read. A key reads its own usage (and the balance) unless it was created
// with scope "account"; the dashboard's JWT always reads the whole account. A key handed to one
// integration should not tell it what every other integration of the account spends.
import { AppError } from '../http/errors';
import { keysMessages } from './texts';
import type { Principal } from './types';

/**
 * The key filter a usage view applies for this caller: the filter asked for when the caller may read the
 * whole account, else the caller's own key. Asking a key-scoped key about another key is 403, not an
 * empty answer that would read as "that key spent nothing".
 */
export function usageKeyFilter(principal: Principal, requestedKeyId: string | undefined): string | undefined {
  // An organisation's developer reads only their own keys' usage: with a key, that key's, whatever its scope.
  const developerKey = principal.via === 'api_key' && principal.organization?.role === 'developer';
  if (principal.via !== 'api_key' || (principal.keyScope === 'account' && !developerKey)) return requestedKeyId;
  if (requestedKeyId !== undefined && requestedKeyId.toLowerCase() !== principal.apiKeyId) {
    throw new AppError('forbidden', keysMessages.keyScopeOwnUsage);
  }
  return principal.apiKeyId;
}

/**
 * In an organisation a developer signed in (JWT) reads the usage of the keys they created, not the
 * organisation's: the member whose keys a usage view is narrowed to, or undefined for the whole account.
 */
export function usageCreatorFilter(principal: Principal): string | undefined {
  const organization = principal.organization;
  if (principal.via !== 'jwt' || organization?.role !== 'developer' || !organization.actorId) return undefined;
  return organization.actorId;
}
