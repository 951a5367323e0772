// Invitations: a one-time link mailed to an address (a random 256-bit token, only its SHA-256 kept, valid
// INVITE_DAYS). The link opens the dashboard's screen (`/app#/invite/<token>`: the token stays out of
// server logs and query strings), which shows the invitation through a POST and accepts it with another; a
// GET changes nothing. Only a signed-in person whose address is the invited one may accept. Inviting an
// address again replaces its earlier invitation; invitations per organisation per hour are capped.
import { createHash, randomBytes } from 'node:crypto';
import { and, count, eq, gt, sql } from 'drizzle-orm';
import { users } from '../accounts/tables';
import { adminAudit } from '../admin/tables';
import type { Database } from '../db/client';
import { AppError } from '../http/errors';
import type { OrganizationRole } from '../keys';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { nanoToUnits, unitsToNano } from '../money';
import { requireMember, type Person } from './access';
import { journal, MEMBER_MANAGERS, type OrganizationService } from './service';
import { organizationInvites, organizationMembers, organizations } from './tables';
import { inviteMail, organizationsMessages } from './texts';

export const INVITE_DAYS = 7;
/** Invitations one organisation may send per hour: a team's onboarding, not a mailing. */
export const INVITES_PER_HOUR = 30;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface InvitesDeps {
  db: Database;
  /** Null without SMTP_URL: an invitation is a mail, so none can be sent then (503). */
  mailer: Mailer | null;
  logger: Logger;
  publicBaseUrl: string;
  organizations: Pick<OrganizationService, 'view'>;
}

export function createInvites({ db, mailer, logger, publicBaseUrl, organizations: views }: InvitesDeps) {
  /** A pending, unexpired invitation by its token, with its organisation's name; null for anything else. */
  async function pending(token: string) {
    if (!TOKEN_PATTERN.test(token)) return null;
    const [row] = await db
      .select({ invite: organizationInvites, name: organizations.name })
      .from(organizationInvites)
      .innerJoin(organizations, eq(organizations.id, organizationInvites.organizationId))
      .where(and(eq(organizationInvites.tokenHash, hashToken(token)), gt(organizationInvites.expiresAt, sql`now()`)))
      .limit(1);
    return row ?? null;
  }
  const invalid = () => new AppError('invalid_request_error', organizationsMessages.inviteInvalid, { param: 'token' });

  return {
    /** Owners and admins invite; an admin invites no owner. */
    async invite(id: string, person: Person, input: { email: string; role: OrganizationRole; spendLimit?: number | null | undefined }) {
      const actor = await requireMember(db, id, person.userId, MEMBER_MANAGERS);
      if (actor.role === 'admin' && input.role === 'owner') throw new AppError('forbidden', organizationsMessages.adminCannotTouchOwner);
      if (!mailer) throw new AppError('service_unavailable', organizationsMessages.mailUnavailable);
      const orgId = actor.organizationId;
      const [member] = await db
        .select({ userId: organizationMembers.userId })
        .from(organizationMembers)
        .innerJoin(users, eq(users.id, organizationMembers.userId))
        .where(and(eq(organizationMembers.organizationId, orgId), eq(users.email, input.email)))
        .limit(1);
      if (member) throw new AppError('conflict', organizationsMessages.alreadyMember(input.email));
      const [{ value: sent } = { value: 0 }] = await db
        .select({ value: count() })
        .from(adminAudit)
        .where(
          and(
            eq(adminAudit.targetType, 'organization'),
            eq(adminAudit.targetId, orgId),
            eq(adminAudit.action, 'organization.invite'),
            gt(adminAudit.createdAt, sql`now() - interval '1 hour'`),
          ),
        );
      if (Number(sent) >= INVITES_PER_HOUR) throw new AppError('rate_limit_exceeded', organizationsMessages.tooManyInvites, { headers: { 'retry-after': '3600' } });

      const token = randomBytes(32).toString('base64url');
      const limitNano = input.spendLimit === undefined || input.spendLimit === null ? null : unitsToNano(input.spendLimit);
      const [row] = await db.transaction(async (tx) => {
        await tx.delete(organizationInvites).where(and(eq(organizationInvites.organizationId, orgId), eq(organizationInvites.email, input.email)));
        const inserted = await tx
          .insert(organizationInvites)
          .values({
            tokenHash: hashToken(token),
            organizationId: orgId,
            email: input.email,
            role: input.role,
            spendLimitNano: limitNano,
            invitedBy: person.userId,
            expiresAt: sql`now() + make_interval(days => ${INVITE_DAYS})`,
          })
          .returning({ expiresAt: organizationInvites.expiresAt });
        await journal(tx, person, { id: orgId, name: actor.name }, 'organization.invite', {
          email: input.email,
          role: input.role,
          spendLimit: limitNano === null ? null : String(nanoToUnits(limitNano)),
        });
        return inserted;
      });
      const link = `${publicBaseUrl}/app#/invite/${token}`;
      const text = inviteMail.text(actor.name, input.role, person.email, link, INVITE_DAYS);
      try {
        await mailer.send({
          to: input.email,
          subject: inviteMail.subject(actor.name),
          text,
          html: `<p>${escapeHtml(text)
            .replace(/\n/g, '<br>')
            .replace(escapeHtml(link), `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`)}</p>`,
        });
      } catch (error) {
        // Without the mail the invitation cannot be used: it goes, and the inviter may try again.
        await db.delete(organizationInvites).where(eq(organizationInvites.tokenHash, hashToken(token)));
        logger.error('organisation invitation not sent', { organizationId: orgId, code: (error as { code?: unknown })?.code ?? 'unknown' });
        throw new AppError('service_unavailable', organizationsMessages.mailFailed, { headers: { 'retry-after': '60' } });
      }
      return { email: input.email, role: input.role, spendLimit: limitNano === null ? null : nanoToUnits(limitNano), expiresAt: row!.expiresAt.toISOString() };
    },

    async withdraw(id: string, person: Person, email: string) {
      const actor = await requireMember(db, id, person.userId, MEMBER_MANAGERS);
      await db.transaction(async (tx) => {
        const gone = await tx
          .delete(organizationInvites)
          .where(and(eq(organizationInvites.organizationId, actor.organizationId), eq(organizationInvites.email, email)))
          .returning({ role: organizationInvites.role });
        if (gone.length === 0) throw new AppError('not_found', organizationsMessages.inviteNotFound);
        await journal(tx, person, { id: actor.organizationId, name: actor.name }, 'organization.invite_withdraw', { email, role: gone[0]!.role });
      });
      return { withdrawn: true as const };
    },

    /** What the invitation screen shows; the token travels in a POST body, never in a URL the server logs. */
    async preview(token: string) {
      const found = await pending(token);
      if (!found) throw invalid();
      return {
        organization: { name: found.name },
        role: found.invite.role as OrganizationRole,
        email: found.invite.email,
        expiresAt: found.invite.expiresAt.toISOString(),
      };
    },

    /** Joins the signed-in person, whose address must be the invited one; the invitation is then used up. */
    async accept(token: string, person: Person) {
      if (!TOKEN_PATTERN.test(token)) throw invalid();
      const joined = await db.transaction(async (tx) => {
        const [invite] = await tx
          .select()
          .from(organizationInvites)
          .where(and(eq(organizationInvites.tokenHash, hashToken(token)), gt(organizationInvites.expiresAt, sql`now()`)))
          .for('update');
        if (!invite) throw invalid();
        if (invite.email.toLowerCase() !== person.email.toLowerCase()) throw new AppError('forbidden', organizationsMessages.inviteOtherAddress(invite.email));
        const [org] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, invite.organizationId)).limit(1);
        await tx.delete(organizationInvites).where(eq(organizationInvites.tokenHash, invite.tokenHash));
        const [existing] = await tx
          .select({ role: organizationMembers.role })
          .from(organizationMembers)
          .where(and(eq(organizationMembers.organizationId, invite.organizationId), eq(organizationMembers.userId, person.userId)))
          .limit(1);
        // Already a member (joined by an earlier link): the invitation is used up, the role stays as it is.
        if (existing) return { id: invite.organizationId, role: existing.role as OrganizationRole };
        await tx.insert(organizationMembers).values({
          organizationId: invite.organizationId,
          userId: person.userId,
          role: invite.role,
          spendLimitNano: invite.spendLimitNano,
          budgetNano: invite.spendLimitNano ?? 0n,
        });
        await journal(tx, person, { id: invite.organizationId, name: org?.name ?? '' }, 'organization.join', { email: person.email, role: invite.role });
        return { id: invite.organizationId, role: invite.role as OrganizationRole };
      });
      return views.view(joined.id, joined.role);
    },
  };
}

export type Invites = ReturnType<typeof createInvites>;
