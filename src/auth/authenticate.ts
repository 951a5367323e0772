// Turns an Authorization header into the caller: a dashboard user (JWT) or an API key's owner.
import { type AccountService, accountsMessages } from '../accounts';
import { bearerToken } from '../http/bearer';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { isUuid } from '../db/uuid';
import { accountBlockedMessage, keysMessages, type KeyScope, type OrganizationRole, type Principal, looksLikeApiKey } from '../keys';
import type { Memberships } from './memberships';
import { authMessages, organizationAuthMessages } from './texts';

/** The header naming the organisation a dashboard JWT acts in (organizations/). */
export const ORGANIZATION_HEADER = 'x-conduit-organization';

/**
 * The roles a procedure or raw route admits inside an organisation; absent: none (a person's own action,
 * refused in an organisation with 403 rather than acting on it).
 */
export type OrganizationRoles = readonly OrganizationRole[] | undefined;

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
    organization: boolean;
    createdBy: string | null;
  } | null>;
}

/** `supportContact`: SUPPORT_CONTACT, named in the blocked-account message. */
export function createAuthenticator(accounts: AccountService, keys: KeyResolver, memberships: Memberships, supportContact?: string) {
  function admit(role: OrganizationRole | null, roles: OrganizationRoles): void {
    if (!roles) throw new AppError('forbidden', organizationAuthMessages.personalOnly);
    if (role === null) throw new AppError('forbidden', organizationAuthMessages.keyWithoutMember);
    if (!roles.includes(role)) throw new AppError('forbidden', organizationAuthMessages.roleForbidden(role));
  }

  async function viaKey(token: string, roles: OrganizationRoles): Promise<Principal> {
    const key = await keys.resolve(token);
    if (!key) throw new AppError('unauthorized', keysMessages.invalidApiKey);
    if (!key.isActive) throw new AppError('forbidden', keysMessages.revokedApiKey);
    if (key.expiresAt !== null && key.expiresAt <= Date.now()) throw new AppError('unauthorized', keysMessages.expiredApiKey);
    if (key.userBlocked) throw new AppError('forbidden', accountBlockedMessage(supportContact));
    const principal: Principal = { userId: key.userId, via: 'api_key', apiKeyId: key.keyId, keyScope: key.scope };
    if (!key.organization) return principal;
    // An organisation's key acts for its creator: what that member's role allows now, or nothing once they left.
    const role = key.createdBy === null ? null : await memberships.roleOf(key.userId, key.createdBy);
    admit(role, roles);
    return { ...principal, organization: { id: key.userId, actorId: key.createdBy, role } };
  }

  async function tokenUser(token: string, fresh = false) {
    const user = await accounts.userFromToken(token, { fresh });
    if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
    // The token is genuine, so saying why it no longer works reveals nothing to a stranger.
    if (user.blocked) throw new AppError('forbidden', accountBlockedMessage(supportContact));
    return user;
  }

  /**
   * A JWT acts on the person's own account, or with X-Conduit-Organization on an organisation they are a member
   * of, as their role there allows. An organisation they are not in is 404, as one that does not exist.
   */
  async function viaJwt(token: string, headers: Headers, roles: OrganizationRoles): Promise<Principal> {
    const user = await tokenUser(token);
    const named = headers.get(ORGANIZATION_HEADER)?.trim().toLowerCase();
    if (!named) return { userId: user.id, via: 'jwt' };
    if (!isUuid(named)) throw new AppError('invalid_request_error', organizationAuthMessages.headerInvalid);
    const role = await memberships.roleOf(named, user.id);
    if (role === null) throw new AppError('not_found', organizationAuthMessages.organizationNotFound);
    admit(role, roles);
    return { userId: named, via: 'jwt', organization: { id: named, actorId: user.id, role } };
  }

  function jwtOf(headers: Headers): string {
    const token = bearerToken(headers);
    if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
    if (looksLikeApiKey(token)) throw new AppError('unauthorized', authMessages.jwtRequired);
    return token;
  }

  return {
    /** Dashboard actions: only a JWT will do. `roles`: who may run the action inside an organisation. */
    async jwtUser(headers: Headers, roles?: OrganizationRoles): Promise<Principal> {
      return viaJwt(jwtOf(headers), headers, roles);
    },
    /** Operator actions: a JWT of a user whose role, as stored now, is admin. */
    async admin(headers: Headers): Promise<AdminPrincipal> {
      const user = await tokenUser(jwtOf(headers), true);
      if (user.role !== 'admin') throw new AppError('forbidden', authMessages.adminOnly);
      return { userId: user.id, via: 'jwt', email: user.email };
    },
    /** Read-only account views: a JWT or an API key. */
    async jwtOrKey(headers: Headers, roles?: OrganizationRoles): Promise<Principal> {
      const token = bearerToken(headers);
      if (!token) throw new AppError('unauthorized', errorMessages.missingCredential);
      return looksLikeApiKey(token) ? viaKey(token, roles) : viaJwt(token, headers, roles);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
