// An organisation's people: the list with each member's limit and this month's spending, changes of role
// and limit, and removal, which revokes the member's keys in the organisation or hands them to another
// member. An organisation always keeps an owner; an admin never touches owners. Every change is journalled
// in its own transaction.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { users } from '../accounts/tables';
import type { Database, Executor } from '../db/client';
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import { memberSpentThisMonth, type OrganizationRole } from '../keys';
import { nanoToUnits, unitsToNano } from '../money';
import { requireMember, type Person } from './access';
import { journal, MEMBER_MANAGERS } from './service';
import { organizationInvites, organizationMembers } from './tables';
import { organizationsMessages } from './texts';

/** Roles whose members hold keys: the one a member's keys are handed to must be one of them. */
const KEY_HOLDERS: readonly OrganizationRole[] = ['owner', 'admin', 'developer'];

export interface MemberKeys {
  /** Revokes (`to` null) or hands over the member's keys in the organisation, in the caller's transaction. */
  memberKeys(tx: Executor, organizationId: string, memberId: string, to: string | null): Promise<string[]>;
  /**
   * Writes the member's new limit (undefined: unchanged) as the gateway's claims expect it, and tells every
   * instance at commit that the member's keys changed; in the caller's transaction.
   */
  memberUpdate(tx: Executor, organizationId: string, memberId: string, limitNano?: bigint | null): Promise<string[]>;
  /** After the commit: this instance's key cache drops them at once. */
  afterMemberKeys(keyIds: readonly string[]): void;
  /** How many keys the member created in the organisation are not revoked. */
  activeMemberKeys(tx: Executor, organizationId: string, memberId: string): Promise<number>;
}

const limitJson = (nano: bigint | null) => (nano === null ? null : String(nanoToUnits(nano)));

export function createMembers({ db, keys }: { db: Database; keys: MemberKeys }) {
  async function memberRows(organizationId: string, only?: string) {
    return db
      .select({
        userId: organizationMembers.userId,
        email: users.email,
        role: organizationMembers.role,
        spendLimitNano: organizationMembers.spendLimitNano,
        joinedAt: organizationMembers.createdAt,
      })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(and(eq(organizationMembers.organizationId, organizationId), ...(only ? [eq(organizationMembers.userId, only)] : [])))
      .orderBy(organizationMembers.createdAt, users.email);
  }

  async function memberViews(organizationId: string, only?: string) {
    const [rows, spent] = await Promise.all([memberRows(organizationId, only), memberSpentThisMonth(db, organizationId)]);
    return rows.map((r) => ({
      userId: r.userId,
      email: r.email,
      role: r.role as OrganizationRole,
      spendLimit: r.spendLimitNano === null ? null : nanoToUnits(r.spendLimitNano),
      spentThisMonth: nanoToUnits(spent.get(r.userId) ?? 0n),
      joinedAt: r.joinedAt.toISOString(),
    }));
  }

  /** The target member, locked with every member row of the organisation (owner counts stay true). */
  async function lockedMembers(tx: Executor, organizationId: string) {
    return tx
      .select({ userId: organizationMembers.userId, role: organizationMembers.role, spendLimitNano: organizationMembers.spendLimitNano, email: users.email })
      .from(organizationMembers)
      .innerJoin(users, eq(users.id, organizationMembers.userId))
      .where(eq(organizationMembers.organizationId, organizationId))
      .for('update', { of: organizationMembers });
  }

  return {
    /** Members and pending invitations: owners and admins. */
    async list(id: string, userId: string) {
      const member = await requireMember(db, id, userId, MEMBER_MANAGERS);
      const invites = await db
        .select({
          email: organizationInvites.email,
          role: organizationInvites.role,
          spendLimitNano: organizationInvites.spendLimitNano,
          expiresAt: organizationInvites.expiresAt,
          invitedBy: users.email,
        })
        .from(organizationInvites)
        .leftJoin(users, eq(users.id, organizationInvites.invitedBy))
        .where(and(eq(organizationInvites.organizationId, member.organizationId), sql`${organizationInvites.expiresAt} > now()`))
        .orderBy(organizationInvites.createdAt);
      return {
        members: await memberViews(member.organizationId),
        invites: invites.map((i) => ({
          email: i.email,
          role: i.role as OrganizationRole,
          spendLimit: i.spendLimitNano === null ? null : nanoToUnits(i.spendLimitNano),
          expiresAt: i.expiresAt.toISOString(),
          invitedBy: i.invitedBy,
        })),
      };
    },

    /**
     * A member's role or monthly limit (null clears it). Owners and admins; an admin changes no owner and makes
     * nobody owner; the last owner stays one.
     */
    async update(id: string, person: Person, targetId: string, changes: { role?: OrganizationRole | undefined; spendLimit?: number | null | undefined }) {
      const actor = await requireMember(db, id, person.userId, MEMBER_MANAGERS);
      const orgId = actor.organizationId;
      const changed = await db.transaction(async (tx) => {
        const members = await lockedMembers(tx, orgId);
        const target = isUuid(targetId) ? members.find((m) => m.userId === targetId.toLowerCase()) : undefined;
        if (!target) throw new AppError('not_found', organizationsMessages.memberNotFound);
        const role = changes.role ?? (target.role as OrganizationRole);
        if (actor.role === 'admin' && (target.role === 'owner' || role === 'owner')) throw new AppError('forbidden', organizationsMessages.adminCannotTouchOwner);
        if (target.role === 'owner' && role !== 'owner' && members.filter((m) => m.role === 'owner').length <= 1) {
          throw new AppError('conflict', organizationsMessages.lastOwner);
        }
        // An accountant holds no keys: the member's keys in the organisation go first (revoked by an owner or admin).
        if (role === 'accountant' && target.role !== 'accountant') {
          const held = await keys.activeMemberKeys(tx, orgId, target.userId);
          if (held > 0) throw new AppError('conflict', organizationsMessages.accountantWithKeys(held));
        }
        const limit = changes.spendLimit === undefined ? target.spendLimitNano : changes.spendLimit === null ? null : unitsToNano(changes.spendLimit);
        await tx
          .update(organizationMembers)
          .set({ role })
          .where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.userId, target.userId)));
        // The new limit holds for what the member already spent this month, on every instance at once.
        const keyIds = await keys.memberUpdate(tx, orgId, target.userId, limit === target.spendLimitNano ? undefined : limit);
        await journal(
          tx,
          person,
          { id: orgId, name: actor.name },
          'organization.member_update',
          { email: target.email, role, spendLimit: limitJson(limit) },
          { role: target.role, spendLimit: limitJson(target.spendLimitNano) },
        );
        return keyIds;
      });
      keys.afterMemberKeys(changed);
      const [view] = await memberViews(orgId, targetId.toLowerCase());
      return view!;
    },

    /**
     * Takes a member out: owners and admins (an admin removes no owner), or the member themself (leaving). The
     * member's keys in the organisation are revoked, or handed to another member who may hold keys; the last
     * owner cannot go.
     */
    async remove(id: string, person: Person, targetId: string, choice: { keys: 'revoke' | 'transfer'; transferTo?: string | undefined }) {
      const self = isUuid(targetId) && targetId.toLowerCase() === person.userId;
      const actor = await requireMember(db, id, person.userId, self ? undefined : MEMBER_MANAGERS);
      const orgId = actor.organizationId;
      if (choice.keys === 'transfer' && !choice.transferTo) {
        throw new AppError('invalid_request_error', organizationsMessages.transferTargetRequired, { param: 'transferTo' });
      }
      const changed = await db.transaction(async (tx) => {
        const members = await lockedMembers(tx, orgId);
        const target = isUuid(targetId) ? members.find((m) => m.userId === targetId.toLowerCase()) : undefined;
        if (!target) throw new AppError('not_found', organizationsMessages.memberNotFound);
        if (!self && actor.role === 'admin' && target.role === 'owner') throw new AppError('forbidden', organizationsMessages.adminCannotTouchOwner);
        if (target.role === 'owner' && members.filter((m) => m.role === 'owner').length <= 1) throw new AppError('conflict', organizationsMessages.lastOwner);
        let heir: (typeof members)[number] | undefined;
        if (choice.keys === 'transfer') {
          const to = choice.transferTo!.toLowerCase();
          heir = isUuid(to) ? members.find((m) => m.userId === to && m.userId !== target.userId) : undefined;
          if (!heir || !KEY_HOLDERS.includes(heir.role as OrganizationRole)) {
            throw new AppError('invalid_request_error', organizationsMessages.transferTargetInvalid, { param: 'transferTo' });
          }
        }
        await tx.delete(organizationMembers).where(and(eq(organizationMembers.organizationId, orgId), eq(organizationMembers.userId, target.userId)));
        const keyIds = await keys.memberKeys(tx, orgId, target.userId, heir?.userId ?? null);
        await journal(tx, person, { id: orgId, name: actor.name }, 'organization.member_remove', {
          email: target.email,
          role: target.role,
          self,
          keys: choice.keys,
          ...(heir ? { transferTo: heir.userId, transferToEmail: heir.email, keysTransferred: keyIds.length } : { keysRevoked: keyIds.length }),
        });
        return keyIds;
      });
      keys.afterMemberKeys(changed);
      return {
        removed: true as const,
        keysRevoked: choice.keys === 'revoke' ? changed.length : 0,
        keysTransferred: choice.keys === 'transfer' ? changed.length : 0,
      };
    },

    /** The members with these roles (their addresses), for another feature's notices (organizations/index.ts). */
    async withRoles(organizationId: string, roles: readonly OrganizationRole[]) {
      return db
        .select({ userId: organizationMembers.userId, email: users.email })
        .from(organizationMembers)
        .innerJoin(users, eq(users.id, organizationMembers.userId))
        .where(and(eq(organizationMembers.organizationId, organizationId), inArray(organizationMembers.role, [...roles])));
    },
  };
}

export type Members = ReturnType<typeof createMembers>;
