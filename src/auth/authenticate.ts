// Turns an Authorization header into the caller: a dashboard user (JWT) or an API key's owner.
import { type AccountService, accountsMessages } from '../accounts';
import { bearerToken } from '../http/bearer';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { accountBlockedMessage, keysMessages, type KeyScope, type Principal, looksLikeApiKey } from '../keys';
import { authMessages } from './texts';

// The caller's type lives with the keys (keys/types.ts) so the key floor need not import this file.
export type { Principal } from '../keys';

/** An operator: a JWT whose user's stored role is admin. The e-mail goes into the audit log. */
export interface AdminPrincipal extends Principal {
  via: 'jwt';
  email: string;
}

/** Resolves a presented API key; the gateway's cached verifier satisfies this. */
export interface KeyResolver {
  resolve(presented: string): Promise<{
    keyId: string;
    userId: string;
    isActive: boolean;
    expiresAt: number | null;
    userBlocked: boolean;
    scope: KeyScope;
  } | null>;
}

/** `supportContact`: SUPPORT_CONTACT, named in the blocked-account message. */
export function createAuthenticator(accounts: AccountService, keys: KeyResolver, supportContact?: string) {
  async function viaKey(token: string): Promise<Principal> {
    const key = await keys.resolve(token);
    if (!key) throw new AppError('unauthorized', keysMessages.invalidApiKey);
    if (!key.isActive) throw new AppError('forbidden', keysMessages.revokedApiKey);
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw new AppError('unauthorized', keysMessages.expiredApiKey);
    if (key.userBlocked) throw new AppError('forbidden', accountBlockedMessage(supportContact));
    return { userId: key.userId, via: 'api_key', apiKeyId: key.keyId, keyScope: key.scope };
  }

  async function tokenUser(token: string, fresh = false) {
    const user = await accounts.userFromToken(token, { fresh });
    if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
    // The token is genuine, so saying why it no longer works reveals nothing to a stranger.
    if (user.blocked) throw new AppError('forbidden', accountBlockedMessage(supportContact));
    return user;
  }

  async function viaJwt(token: string): Promise<Principal> {
    const user = await tokenUser(token);
    return { userId: user.id, via: 'jwt' };
  }

  function jwtOf(headers: Headers): string {
    const token = bearerToken(headers);
    if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
    if (looksLikeApiKey(token)) throw new AppError('unauthorized', authMessages.jwtRequired);
    return token;
  }

  return {
    /** Dashboard actions: only a JWT will do. */
    async jwtUser(headers: Headers): Promise<Principal> {
      return viaJwt(jwtOf(headers));
    },
    /** Operator actions: a JWT of a user whose role, as stored now, is admin. */
    async admin(headers: Headers): Promise<AdminPrincipal> {
      const user = await tokenUser(jwtOf(headers), true);
      if (user.role !== 'admin') throw new AppError('forbidden', authMessages.adminOnly);
      return { userId: user.id, via: 'jwt', email: user.email };
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
