// Which account the dashboard acts for: the signed-in person's own («Личный», null) or one of their
// organisations. The choice is remembered per signed-in user in localStorage; the shell checks it against
// the person's memberships (GET /api/organizations) before any screen asks for data, and only then makes it
// active: from that moment every org-capable call carries `X-Conduit-Organization: <id>` (api.ts,
// FileDownload.tsx).
import { createContext, useContext } from 'react';
import type { OrganizationRole } from '@server/keys/types';
import { currentSession, onSessionChange } from './session';

export const ORGANIZATION_HEADER = 'X-Conduit-Organization';

/** The organisation the dashboard acts for, once the shell has checked the person still belongs to it. */
export interface ActiveOrganization {
  id: string;
  name: string;
  role: OrganizationRole;
}

const STORAGE_PREFIX = 'conduit.organization.';

/** Who the choice belongs to: the token's subject (the user's id), or the e-mail when the token has none. */
function ownerKey(): string | null {
  const session = currentSession();
  if (!session) return null;
  try {
    const payload = JSON.parse(atob(session.token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { sub?: unknown };
    if (typeof payload.sub === 'string' && payload.sub) return STORAGE_PREFIX + payload.sub;
  } catch {
    // A token the page cannot read: the e-mail names the person as well.
  }
  return STORAGE_PREFIX + session.email.toLowerCase();
}

/** The organisation id the person chose last time, not yet checked against their memberships. */
export function storedOrganizationId(): string | null {
  const key = ownerKey();
  return key ? localStorage.getItem(key) : null;
}

export function storeOrganizationId(id: string | null): void {
  const key = ownerKey();
  if (!key) return;
  if (id) localStorage.setItem(key, id);
  else localStorage.removeItem(key);
}

let active: ActiveOrganization | null = null;

export function activeOrganization(): ActiveOrganization | null {
  return active;
}

/** Set by the shell only: the header follows from the next request on. */
export function setActiveOrganization(organization: ActiveOrganization | null): void {
  active = organization;
}

// A new sign-in starts personal until the shell has checked what it remembers for that person.
onSessionChange(() => {
  active = null;
});

/**
 * The tRPC routers whose procedures may act on an organisation (their meta lists its roles). Everything
 * else — the session, two-factor, agents, dialogues, the console — is the person's own and never gets the
 * header, which the API would refuse with 403.
 */
const ORGANIZATION_ROUTERS = new Set(['keys', 'account', 'statement', 'invoices', 'billing', 'alerts', 'referrals']);
/** Procedures of those routers that are not the account's: the service's public settings. */
const PERSONAL_PROCEDURES = new Set(['billing.config']);

export function actsForOrganization(path: string): boolean {
  return ORGANIZATION_ROUTERS.has(path.split('.')[0]!) && !PERSONAL_PROCEDURES.has(path);
}

/** The header for a raw route (a CSV or PDF download): every account file, never the console's. */
export function organizationHeaderFor(url: string): Record<string, string> {
  return active && !url.startsWith('/api/admin/') ? { [ORGANIZATION_HEADER]: active.id } : {};
}

/** The organisation the screens act for, as the shell has checked it (null: the person's own account). */
export const OrganizationContext = createContext<ActiveOrganization | null>(null);

export function useActiveOrganization(): ActiveOrganization | null {
  return useContext(OrganizationContext);
}
