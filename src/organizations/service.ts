// Organisations: creation (an account row of kind 'organization', the organisation, its requisites and the
// creator as its owner, in one transaction), the views, the change of requisites, and the organisation's
// journal, which is the operator audit's rows about it (admin_audit, target 'organization').
import { randomUUID } from 'node:crypto';
import { and, count, desc, eq } from 'drizzle-orm';
import { ORGANIZATION_EMAIL_DOMAIN } from '../accounts';
import { users } from '../accounts/tables';
import { defaultPriceGroupSql } from '../pricing/tables';
import { recordAudit, type JsonObject } from '../admin';
import { adminAudit } from '../admin/tables';
import type { Database, Executor } from '../db/client';
import { AppError } from '../http/errors';
import { ORGANIZATION_ACCESS, type OrganizationRole } from '../keys';
import { nanoToUnits } from '../money';
import { customerRequisites } from '../statement/tables';
import { requireMember, type Person } from './access';
import type { OrganizationInput } from './input';
import { organizationMembers, organizations } from './tables';
import { describeJournalRow, organizationsMessages } from './texts';

/** How many organisations one person may create: enough for any real group of companies, not for a flood. */
export const MAX_ORGANIZATIONS_PER_PERSON = 20;
/** What the journal shows: the newest rows. */
const JOURNAL_ROWS = 200;

/** Owners and accountants keep the books: they change the requisites the documents print. */
export const REQUISITES_EDITORS: readonly OrganizationRole[] = ORGANIZATION_ACCESS.requisites;
/** Owners and admins manage the people and read the journal. */
export const MEMBER_MANAGERS: readonly OrganizationRole[] = ORGANIZATION_ACCESS.members;

export type OrganizationAction =
  | 'organization.create'
  | 'organization.update'
  | 'organization.invite'
  | 'organization.invite_withdraw'
  | 'organization.join'
  | 'organization.member_update'
  | 'organization.member_remove';

/** Writes a journal row with `tx`, the transaction of the change; `organization` names it in every row. */
export async function journal(
  tx: Executor,
  actor: Person,
  organization: { id: string; name: string },
  action: OrganizationAction,
  detail: JsonObject,
  before: JsonObject | null = null,
): Promise<void> {
  await recordAudit(tx, actor, {
    action,
    targetType: 'organization',
    targetId: organization.id,
    before,
    after: { organization: organization.name, ...detail },
  });
}

const REQUISITE_FIELDS = ['inn', 'kpp', 'ogrn', 'address', 'bankName', 'bik', 'account', 'correspondentAccount'] as const;

export interface OrganizationServiceDeps {
  db: Database;
  /** The balance as /api/balance shows it (the gateway's billing, leases included). */
  balanceNano(accountId: string): Promise<bigint>;
  currency: string;
}

export function createOrganizationService({ db, balanceNano, currency }: OrganizationServiceDeps) {
  async function requisitesOf(id: string, executor: Executor = db) {
    const [row] = await executor.select().from(customerRequisites).where(eq(customerRequisites.userId, id)).limit(1);
    return {
      companyName: row?.companyName ?? '',
      inn: row?.inn ?? '',
      kpp: row?.kpp ?? '',
      ogrn: row?.ogrn ?? '',
      address: row?.address ?? '',
      bankName: row?.bankName ?? '',
      bik: row?.bik ?? '',
      account: row?.account ?? '',
      correspondentAccount: row?.correspondentAccount ?? '',
    };
  }

  async function view(id: string, role: OrganizationRole) {
    const [org] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
    if (!org) throw new AppError('not_found', organizationsMessages.organizationNotFound);
    return {
      id: org.id,
      name: org.name,
      role,
      balance: nanoToUnits(await balanceNano(org.id)),
      currency,
      requisites: await requisitesOf(org.id),
      createdAt: org.createdAt.toISOString(),
    };
  }

  const requisiteValues = (input: OrganizationInput) => ({
    companyName: input.name,
    ...Object.fromEntries(REQUISITE_FIELDS.map((f) => [f, input[f]])),
    updatedAt: new Date(),
  });

  return {
    view,

    /**
     * The organisation's own account row holds its money: no password anyone could type, an address nobody
     * can register (accounts/auth-input.ts) and nobody mails, balance 0 — no registration bonus.
     */
    async create(person: Person, input: OrganizationInput) {
      const id = randomUUID();
      await db.transaction(async (tx) => {
        // Serialises this person's creations, so parallel ones cannot pass the cap together.
        await tx.select({ id: users.id }).from(users).where(eq(users.id, person.userId)).for('no key update');
        const [{ value } = { value: 0 }] = await tx.select({ value: count() }).from(organizations).where(eq(organizations.createdBy, person.userId));
        if (Number(value) >= MAX_ORGANIZATIONS_PER_PERSON) {
          throw new AppError('invalid_request_error', organizationsMessages.tooManyOrganizations(MAX_ORGANIZATIONS_PER_PERSON));
        }
        await tx
          .insert(users)
          .values({ id, email: `${id}@${ORGANIZATION_EMAIL_DOMAIN}`, passwordHash: '!organization', kind: 'organization', priceGroup: defaultPriceGroupSql });
        await tx.insert(organizations).values({ id, name: input.name, createdBy: person.userId });
        await tx.insert(customerRequisites).values({ userId: id, ...requisiteValues(input) });
        await tx.insert(organizationMembers).values({ organizationId: id, userId: person.userId, role: 'owner' });
        await journal(tx, person, { id, name: input.name }, 'organization.create', { ...input });
      });
      return view(id, 'owner');
    },

    /** The caller's organisations, by name. */
    async list(userId: string) {
      const rows = await db
        .select({ id: organizations.id, name: organizations.name, role: organizationMembers.role })
        .from(organizationMembers)
        .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
        .where(eq(organizationMembers.userId, userId))
        .orderBy(organizations.name, organizations.id);
      const listed = [];
      for (const row of rows) {
        listed.push({ id: row.id, name: row.name, role: row.role as OrganizationRole, balance: nanoToUnits(await balanceNano(row.id)), currency });
      }
      return { organizations: listed };
    },

    async get(id: string, userId: string) {
      const member = await requireMember(db, id, userId);
      return view(member.organizationId, member.role);
    },

    /** The name and requisites: owners and accountants; the change is journalled with what it replaced. */
    async update(id: string, person: Person, input: OrganizationInput) {
      const member = await requireMember(db, id, person.userId, REQUISITES_EDITORS, organizationsMessages.editForbidden);
      await db.transaction(async (tx) => {
        const before = await requisitesOf(member.organizationId, tx);
        await tx.update(organizations).set({ name: input.name }).where(eq(organizations.id, member.organizationId));
        await tx
          .insert(customerRequisites)
          .values({ userId: member.organizationId, ...requisiteValues(input) })
          .onConflictDoUpdate({ target: customerRequisites.userId, set: requisiteValues(input) });
        await journal(tx, person, { id: member.organizationId, name: input.name }, 'organization.update', { ...input }, { name: member.name, ...before });
      });
      return view(member.organizationId, member.role);
    },

    /** The organisation's journal, newest first: owners and admins. */
    async journal(id: string, userId: string) {
      const member = await requireMember(db, id, userId, MEMBER_MANAGERS, organizationsMessages.auditForbidden);
      const rows = await db
        .select({ at: adminAudit.createdAt, actorEmail: adminAudit.adminEmail, action: adminAudit.action, before: adminAudit.before, after: adminAudit.after })
        .from(adminAudit)
        .where(and(eq(adminAudit.targetType, 'organization'), eq(adminAudit.targetId, member.organizationId)))
        .orderBy(desc(adminAudit.createdAt), desc(adminAudit.id))
        .limit(JOURNAL_ROWS);
      return {
        entries: rows.map((r) => ({
          at: r.at.toISOString(),
          actorEmail: r.actorEmail,
          action: r.action,
          detail: describeJournalRow(r.action, (r.after ?? {}) as JsonObject, r.before as JsonObject | null),
        })),
      };
    },
  };
}

export type OrganizationService = ReturnType<typeof createOrganizationService>;
