// The organisations API as its REST contract names it (docs/organizations.md): /api/organizations and
// below, with the session's JWT. These routes take the organisation from their path, never from the
// X-Conduit-Organization header. A refusal arrives in the one error shape ({error:{message, type, fields}})
// and is thrown as the page's ApiError, so forms show it as they show a tRPC refusal.
import type { ApiError } from '../app/api';
import { currentSession, endSession, SESSION_EXPIRED } from '../app/session';
import type { OrganizationRole } from '@server/keys/types';

export interface OrganizationRequisites {
  companyName: string;
  inn: string;
  kpp: string;
  ogrn: string;
  address: string;
  bankName: string;
  bik: string;
  account: string;
  correspondentAccount: string;
}

export interface OrganizationSummary {
  id: string;
  name: string;
  role: OrganizationRole;
  balance: number;
  currency: string;
}

export interface OrganizationView extends OrganizationSummary {
  requisites: OrganizationRequisites;
  createdAt: string;
}

/** What the creation and requisites forms send: the bank's fields may stay empty. */
export interface OrganizationInput {
  name: string;
  inn: string;
  kpp?: string;
  ogrn: string;
  address: string;
  bankName?: string;
  bik?: string;
  account?: string;
  correspondentAccount?: string;
}

export interface Member {
  userId: string;
  email: string;
  role: OrganizationRole;
  spendLimit: number | null;
  spentThisMonth: number;
  joinedAt: string;
}

export interface PendingInvite {
  email: string;
  role: OrganizationRole;
  spendLimit: number | null;
  expiresAt: string;
  invitedBy: string | null;
}

export interface InvitePreview {
  organization: { name: string };
  role: OrganizationRole;
  email: string;
  expiresAt: string;
}

export interface AuditEntry {
  at: string;
  actorEmail: string | null;
  action: string;
  detail: unknown;
}

const NETWORK_ERROR: ApiError = { message: 'Не удалось связаться с сервером: проверьте подключение и повторите', type: 'network_error' };

async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: unknown): Promise<T> {
  const session = currentSession();
  const headers: Record<string, string> = session ? { authorization: `Bearer ${session.token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/organizations${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw NETWORK_ERROR;
  }
  const parsed = (await response.json().catch(() => null)) as unknown;
  if (!response.ok) {
    const error = (parsed as { error?: ApiError } | null)?.error;
    const refusal: ApiError =
      error && typeof error.message === 'string' ? { message: error.message, type: error.type, ...(error.fields ? { fields: error.fields } : {}) } : NETWORK_ERROR;
    if (refusal.type === 'unauthorized' && session) endSession(SESSION_EXPIRED);
    throw refusal;
  }
  return parsed as T;
}

const at = (id: string) => `/${encodeURIComponent(id)}`;

export const organizationsApi = {
  list: () => call<{ organizations: OrganizationSummary[] }>('GET', ''),
  create: (input: OrganizationInput) => call<OrganizationView>('POST', '', input),
  get: (id: string) => call<OrganizationView>('GET', at(id)),
  update: (id: string, input: OrganizationInput) => call<OrganizationView>('PUT', at(id), input),
  members: (id: string) => call<{ members: Member[]; invites: PendingInvite[] }>('GET', `${at(id)}/members`),
  invite: (id: string, input: { email: string; role: OrganizationRole; spendLimit?: number }) =>
    call<{ email: string; role: OrganizationRole; spendLimit: number | null; expiresAt: string }>('POST', `${at(id)}/invites`, input),
  withdrawInvite: (id: string, email: string) => call<{ withdrawn: true }>('POST', `${at(id)}/invites/withdraw`, { email }),
  updateMember: (id: string, userId: string, change: { role?: OrganizationRole; spendLimit?: number | null }) =>
    call<Member>('PATCH', `${at(id)}/members${at(userId)}`, change),
  removeMember: (id: string, userId: string, keys: { keys: 'revoke' | 'transfer'; transferTo?: string }) =>
    call<{ removed: true; keysRevoked: number; keysTransferred: number }>('POST', `${at(id)}/members${at(userId)}/remove`, keys),
  audit: (id: string) => call<{ entries: AuditEntry[] }>('GET', `${at(id)}/audit`),
  previewInvite: (token: string) => call<InvitePreview>('POST', '/invites/preview', { token }),
  acceptInvite: (token: string) => call<OrganizationView>('POST', '/invites/accept', { token }),
};

/** The react-query keys of these calls: a change invalidates the organisation's own. */
export const organizationKeys = {
  all: ['organizations'] as const,
  list: ['organizations', 'list'] as const,
  one: (id: string) => ['organizations', id] as const,
  members: (id: string) => ['organizations', id, 'members'] as const,
  audit: (id: string) => ['organizations', id, 'audit'] as const,
};
