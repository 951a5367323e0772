// The organisations API (tRPC router `organizations`; REST /api/organizations, docs/organizations.md) as the
// screens call it: through the page's typed client, so a shape the server changes fails the page's build.
// These procedures name their organisation in their input and never get X-Conduit-Organization
// (app/organization.ts sends it to the account's routers only).
import { api, type Inputs, type Outputs } from '../app/api';

type Procedures = Outputs['organizations'];
export type OrganizationView = Procedures['get'];
export type OrganizationSummary = Procedures['list']['organizations'][number];
export type OrganizationRequisites = OrganizationView['requisites'];
export type OrganizationInput = Inputs['organizations']['create'];
export type Member = Procedures['members']['members'][number];
export type PendingInvite = Procedures['members']['invites'][number];
export type InvitePreview = Procedures['previewInvite'];
export type AuditEntry = Procedures['audit']['entries'][number];
type Role = Member['role'];

const o = api.organizations;

export const organizationsApi = {
  list: () => o.list.query(),
  create: (input: OrganizationInput) => o.create.mutate(input),
  get: (id: string) => o.get.query({ id }),
  update: (id: string, input: OrganizationInput) => o.update.mutate({ id, ...input }),
  members: (id: string) => o.members.query({ id }),
  invite: (id: string, input: { email: string; role: Role; spendLimit?: number }) => o.invite.mutate({ id, ...input }),
  withdrawInvite: (id: string, email: string) => o.withdrawInvite.mutate({ id, email }),
  updateMember: (id: string, userId: string, change: { role?: Role; spendLimit?: number | null }) => o.updateMember.mutate({ id, userId, ...change }),
  removeMember: (id: string, userId: string, keys: { keys: 'revoke' | 'transfer'; transferTo?: string }) => o.removeMember.mutate({ id, userId, ...keys }),
  audit: (id: string) => o.audit.query({ id }),
  previewInvite: (token: string) => o.previewInvite.mutate({ token }),
  acceptInvite: (token: string) => o.acceptInvite.mutate({ token }),
};

/** The react-query keys of these calls: a change invalidates the organisation's own. */
export const organizationKeys = {
  all: ['organizations'] as const,
  list: ['organizations', 'list'] as const,
  one: (id: string) => ['organizations', id] as const,
  members: (id: string) => ['organizations', id, 'members'] as const,
  audit: (id: string) => ['organizations', id, 'audit'] as const,
};
