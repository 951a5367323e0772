// What the key floor and the features above it both name: the key scope and the caller. Here, in keys/, so
// that keys/scope.ts and the gateway's usage export need nothing from auth/ (which resolves the caller).
export const KEY_SCOPES = ['key', 'account'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/**
 * The key's response cache (gateway/response-cache): off — only requests that send `x-conduit-cache: on`;
 * on — every non-stream chat request at temperature 0; any — at any temperature, the header's too.
 */
export const KEY_CACHE_MODES = ['off', 'on', 'any'] as const;
export type KeyCacheMode = (typeof KEY_CACHE_MODES)[number];

/**
 * A member's role in an organisation (organizations/): owner — everything, at least one per organisation;
 * admin — members, keys, limits; developer — own keys within their limit, own usage; accountant — balance,
 * statement, documents, top-ups, no keys.
 */
export const ORGANIZATION_ROLES = ['owner', 'admin', 'developer', 'accountant'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

/**
 * Who may do what of the account's own routes inside an organisation, in one table (docs/organizations.md
 * prints it): each route names its line in its meta (`organizationRoles`); a route that names none is the
 * person's own and refuses an organisation. A developer's keys and usage are narrowed to their own.
 */
export const ORGANIZATION_ACCESS = {
  /** /api/keys: list, create, change, revoke. */
  keys: ['owner', 'admin', 'developer'],
  /** /api/usage, /api/usage/summary, /api/usage/export. */
  usage: ['owner', 'admin', 'developer', 'accountant'],
  /** /api/balance, /api/account/alerts, GET /api/account/requisites. */
  balance: ['owner', 'admin', 'accountant'],
  /** The money documents: statement (and its CSV), closing documents, счета, top-ups. */
  money: ['owner', 'accountant'],
  /** The organisation's own routes: its members, invitations and journal. */
  members: ['owner', 'admin'],
  /** The organisation's name and requisites: changing them. */
  requisites: ['owner', 'accountant'],
} as const satisfies Record<string, readonly OrganizationRole[]>;

/** The caller of a request: a dashboard user (JWT) or an API key's owner, as auth/authenticate.ts finds it. */
export interface Principal {
  /**
   * The account the request acts on and bills: the person's own, or an organisation's account (its key, or a
   * JWT with X-Conduit-Organization).
   */
  userId: string;
  /**
   * Acting inside an organisation: its id (= userId), the person acting (a member; with an organisation's key,
   * the key's creator, null when the account made it) and that member's role.
   */
  organization?: { id: string; actorId: string | null; role: OrganizationRole | null };
  via: 'jwt' | 'api_key';
  apiKeyId?: string;
  /** With an API key: whether it reads its own usage only (key) or the whole account's (account). */
  keyScope?: KeyScope;
}
