// Turns an Authorization header into the caller: a dashboard user (JWT) or an API key's owner.
import type { AccountService } from '../accounts/service';
import { bearerToken } from '../http/bearer';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { looksLikeApiKey } from './api-keys';

export interface Principal {
  userId: string;
  via: 'jwt' | 'api_key';
  apiKeyId?: string;
}

/** Resolves a presented API key; the gateway's cached verifier satisfies this. */
export interface KeyResolver {
  resolve(presented: string): Promise<{ keyId: string; userId: string; isActive: boolean } | null>;
}

export function createAuthenticator(accounts: AccountService, keys: KeyResolver) {
  async function viaKey(token: string): Promise<Principal> {
    const key = await keys.resolve(token);
    if (!key) throw new AppError('unauthorized', errorMessages.invalidApiKey);
    if (!key.isActive) throw new AppError('forbidden', errorMessages.revokedApiKey);
    return { userId: key.userId, via: 'api_key', apiKeyId: key.keyId };
  }

  async function viaJwt(token: string): Promise<Principal> {
    const user = await accounts.userFromToken(token);
    if (!user) throw new AppError('unauthorized', errorMessages.invalidToken);
    return { userId: user.id, via: 'jwt' };
  }

  return {
    /** Dashboard actions: only a JWT will do. */
    async jwtUser(headers: Headers): Promise<Principal> {
      const token = bearerToken(headers);
      if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
      if (looksLikeApiKey(token)) throw new AppError('unauthorized', errorMessages.jwtRequired);
      return viaJwt(token);
    },
    /** Read-only account views: a JWT or an API key. */
    async jwtOrKey(headers: Headers): Promise<Principal> {
      const token = bearerToken(headers);
      if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
      return looksLikeApiKey(token) ? viaKey(token) : viaJwt(token);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
