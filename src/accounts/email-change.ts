// E-mail change: the signed-in user names a new address and confirms with the password; a one-time link
// (a random 256-bit token, only its SHA-256 stored, valid 1 h) goes to the new address, and opening it
// switches the account over. The old address is then told. The new address is checked for being taken
// at the request and again at the switch (another account may have taken it in between).
//
// The switch marks the new address verified (its holder has just opened the link mailed there; the
// registration bonus that waits for a verified address lands then), clears the admin role (admin-role.ts:
// a listed address becomes admin only through its verification form or the operator's grant), and voids
// every other link of the account (links.ts): a verification or reset link mailed to the old address must
// not act on the account under its new one.
//
// The notice to the old address carries a «это был не я — отменить» link, valid 7 days and once: it puts
// the old address back (verified: it was opened there) and ends every session and link, as a password
// reset does, since whoever changed the address knew the password. Using one voids the account's other
// cancel links.
//
// The link's page (GET) changes nothing; its form's POST switches. With REQUIRE_EMAIL_VERIFICATION the
// request answers the same whether the new address is taken or not (registration hides taken addresses
// then, so this must too), and the holder of that address is mailed that someone tried; without it a
// taken address is a 409, as registration says it anyway.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, ne, sql } from 'drizzle-orm';
import { verifyPassword } from './passwords';
import type { Database, Executor } from '../db/client';
import { creditRegistrationBonus } from './email-verification';
import { emailChangeReverts, emailChanges, users } from './tables';
import { AppError, isUniqueViolation } from '../http/errors';
import { accountsMessages } from './texts';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { emailChangedNotice, emailChangeMail, emailChangeTakenMail } from './email-change-texts';
import { voidLinks } from './links';
import type { Throttle } from './throttle';

export const EMAIL_CHANGE_LINK_HOURS = 1;
export const EMAIL_CHANGE_CONFIRM_PATH = '/api/account/email/confirm';
export const EMAIL_CHANGE_REVERT_DAYS = 7;
export const EMAIL_CHANGE_REVERT_PATH = '/api/account/email/revert';
/** Requests per user per hour: each costs a password check and may send a mail. */
const REQUESTS_PER_HOUR = 5;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a failed delivery is logged with: codes, never the addresses. */
function mailFailure(error: unknown): Record<string, unknown> {
  const e = error as { code?: unknown; responseCode?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'unknown', responseCode: typeof e?.responseCode === 'number' ? e.responseCode : null };
}

export type EmailChangeResult = { changed: true; userId: string; email: string } | { changed: false; reason: 'invalid' | 'taken' };
export type EmailRevertResult = { reverted: true; userId: string; email: string } | { reverted: false; reason: 'invalid' | 'taken' };

export interface EmailChangeDeps {
  db: Database;
  /** Null without SMTP_URL: the change needs a mail to the new address, so it is unavailable then. */
  mailer: Mailer | null;
  throttle: Throttle;
  logger: Logger;
  publicBaseUrl: string;
  /** REQUIRE_EMAIL_VERIFICATION: a taken new address is answered like a free one (its holder is mailed). */
  hideTakenAddresses: boolean;
  /** The registration bonus, credited (once per account) when the new address is verified by the switch. */
  bonusNano: bigint;
  /** Raises the user's sessions generation (and voids the mailed links) in the caller's transaction. */
  endSessions(tx: Executor, userId: string): Promise<number>;
  /** Told after the commit of a cancel, so this instance's token cache forgets the user at once. */
  afterRevert(userId: string): void;
}

/** Mails per hour to the holder of an address someone tried to move their account to. */
const TAKEN_MAILS_PER_HOUR = 5;

export function createEmailChange(deps: EmailChangeDeps) {
  const { db, mailer, throttle, logger, publicBaseUrl, hideTakenAddresses } = deps;
  const taken = async (email: string, userId: string) =>
    (
      await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, email), ne(users.id, userId)))
        .limit(1)
    ).length > 0;

  return {
    /**
     * Mails the link to `newEmail` (already normalised by the input schema). Earlier pending links of the
     * user stop working. A mail that cannot be sent is a 503: without it the change cannot happen.
     */
    async request(userId: string, newEmail: string, password: string): Promise<void> {
      if (!mailer) throw new AppError('service_unavailable', accountsMessages.emailChangeUnavailable);
      // Counted before the password is checked: a stolen token must not become a password oracle.
      const verdict = await throttle.hit('email_change', userId, REQUESTS_PER_HOUR, 3600);
      if (!verdict.allowed) {
        throw new AppError('rate_limit_exceeded', accountsMessages.tooManyEmailChanges, { headers: { 'retry-after': String(verdict.retryAfterSeconds) } });
      }
      const [user] = await db.select({ email: users.email, passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1);
      if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
      // A 400 on the form's field, not a 401: the session is fine, only the typed password is wrong.
      if (!(await verifyPassword(user.passwordHash, password))) {
        throw new AppError('invalid_request_error', accountsMessages.wrongPassword, { param: 'password' });
      }
      if (newEmail === user.email) throw new AppError('invalid_request_error', accountsMessages.emailUnchanged, { param: 'newEmail' });
      if (await taken(newEmail, userId)) {
        if (!hideTakenAddresses) throw new AppError('conflict', accountsMessages.emailTaken);
        // The same answer as a free address, after a mail as a free address gets; its holder learns of it.
        // The earlier pending link goes as it would for a free address: whether it still works must not tell.
        await db.delete(emailChanges).where(eq(emailChanges.userId, userId));
        const [holder] = await db.select({ id: users.id }).from(users).where(eq(users.email, newEmail)).limit(1);
        if (holder && (await throttle.hit('email_change_taken_mail', holder.id, TAKEN_MAILS_PER_HOUR, 3600)).allowed) {
          const loginLink = `${publicBaseUrl}/app/login`;
          await mailer
            .send({ to: newEmail, subject: emailChangeTakenMail.subject, text: emailChangeTakenMail.text(loginLink), html: emailChangeTakenMail.html(loginLink) })
            .catch((error) => logger.error('taken-address mail not sent', { userId, ...mailFailure(error) }));
        }
        return;
      }

      const token = randomBytes(32).toString('base64url');
      await db.transaction(async (tx) => {
        await tx.delete(emailChanges).where(eq(emailChanges.userId, userId));
        await tx.insert(emailChanges).values({
          tokenHash: hashToken(token),
          userId,
          newEmail,
          expiresAt: sql`now() + make_interval(hours => ${EMAIL_CHANGE_LINK_HOURS})`,
        });
      });
      const link = `${publicBaseUrl}${EMAIL_CHANGE_CONFIRM_PATH}?token=${token}`;
      try {
        await mailer.send({
          to: newEmail,
          subject: emailChangeMail.subject,
          text: emailChangeMail.text(link, EMAIL_CHANGE_LINK_HOURS),
          html: emailChangeMail.html(link, EMAIL_CHANGE_LINK_HOURS),
        });
      } catch (error) {
        logger.error('e-mail change mail not sent', { userId, ...mailFailure(error) });
        throw new AppError('service_unavailable', accountsMessages.emailChangeMailFailed, { headers: { 'retry-after': '60' } });
      }
    },

    /** Whether a link can still be used, read only (its page's GET). */
    async isLive(token: string): Promise<boolean> {
      if (!TOKEN_PATTERN.test(token)) return false;
      const [row] = await db
        .select({ userId: emailChanges.userId })
        .from(emailChanges)
        .where(and(eq(emailChanges.tokenHash, hashToken(token)), gt(emailChanges.expiresAt, sql`now()`)))
        .limit(1);
      return row !== undefined;
    },

    /**
     * Uses a link (its page's POST). Deleting its row is what makes it one-time; the address is switched in the same
     * transaction, so a link whose new address was taken meanwhile changes nothing (and stays unused).
     */
    async confirm(token: string): Promise<EmailChangeResult> {
      if (!TOKEN_PATTERN.test(token)) return { changed: false, reason: 'invalid' };
      let switched: { userId: string; oldEmail: string; newEmail: string; revertToken: string } | null;
      try {
        switched = await db.transaction(async (tx) => {
          const [used] = await tx
            .delete(emailChanges)
            .where(and(eq(emailChanges.tokenHash, hashToken(token)), gt(emailChanges.expiresAt, sql`now()`)))
            .returning({ userId: emailChanges.userId, newEmail: emailChanges.newEmail });
          if (!used) return null;
          const [before] = await tx.select({ email: users.email }).from(users).where(eq(users.id, used.userId)).for('update');
          if (!before) return null;
          await tx.update(users).set({ email: used.newEmail, emailVerifiedAt: sql`now()`, role: 'user' }).where(eq(users.id, used.userId));
          await creditRegistrationBonus(tx, used.userId, deps.bonusNano);
          await voidLinks(tx, used.userId);
          const revertToken = randomBytes(32).toString('base64url');
          await tx.insert(emailChangeReverts).values({
            tokenHash: hashToken(revertToken),
            userId: used.userId,
            oldEmail: before.email,
            expiresAt: sql`now() + make_interval(days => ${EMAIL_CHANGE_REVERT_DAYS})`,
          });
          return { userId: used.userId, oldEmail: before.email, newEmail: used.newEmail, revertToken };
        });
      } catch (error) {
        if (isUniqueViolation(error, 'users_email_unique')) return { changed: false, reason: 'taken' };
        throw error;
      }
      if (!switched) return { changed: false, reason: 'invalid' };
      if (mailer) {
        const loginLink = `${publicBaseUrl}/app/login`;
        const revertLink = `${publicBaseUrl}${EMAIL_CHANGE_REVERT_PATH}?token=${switched.revertToken}`;
        // The switch has happened: a mail server that refuses must not undo it or fail the answer.
        await mailer
          .send({
            to: switched.oldEmail,
            subject: emailChangedNotice.subject,
            text: emailChangedNotice.text(switched.newEmail, revertLink, EMAIL_CHANGE_REVERT_DAYS, loginLink),
            html: emailChangedNotice.html(switched.newEmail, revertLink, EMAIL_CHANGE_REVERT_DAYS, loginLink),
          })
          .catch((error) => logger.error('e-mail changed notice not sent', { userId: switched!.userId, ...mailFailure(error) }));
      }
      return { changed: true, userId: switched.userId, email: switched.newEmail };
    },

    /** Whether a cancel link can still be used, read only (its page's GET). */
    async isRevertLive(token: string): Promise<boolean> {
      if (!TOKEN_PATTERN.test(token)) return false;
      const [row] = await db
        .select({ userId: emailChangeReverts.userId })
        .from(emailChangeReverts)
        .where(and(eq(emailChangeReverts.tokenHash, hashToken(token)), gt(emailChangeReverts.expiresAt, sql`now()`)))
        .limit(1);
      return row !== undefined;
    },

    /**
     * Uses a cancel link (its page's POST): the old address comes back and every session ends, in one
     * transaction with the deletion that makes the link one-time. If another account has taken the old
     * address meanwhile, nothing changes and the link stays usable.
     */
    async revert(token: string): Promise<EmailRevertResult> {
      if (!TOKEN_PATTERN.test(token)) return { reverted: false, reason: 'invalid' };
      let restored: { userId: string; email: string } | null;
      try {
        restored = await db.transaction(async (tx) => {
          const [used] = await tx
            .delete(emailChangeReverts)
            .where(and(eq(emailChangeReverts.tokenHash, hashToken(token)), gt(emailChangeReverts.expiresAt, sql`now()`)))
            .returning({ userId: emailChangeReverts.userId, oldEmail: emailChangeReverts.oldEmail });
          if (!used) return null;
          const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, used.userId)).for('update');
          if (!user) return null;
          await tx.update(users).set({ email: used.oldEmail, emailVerifiedAt: sql`now()` }).where(eq(users.id, used.userId));
          // The other cancel links (one to an address the account passed through) must not undo this one.
          await tx.delete(emailChangeReverts).where(eq(emailChangeReverts.userId, used.userId));
          await deps.endSessions(tx, used.userId);
          return { userId: used.userId, email: used.oldEmail };
        });
      } catch (error) {
        if (isUniqueViolation(error, 'users_email_unique')) return { reverted: false, reason: 'taken' };
        throw error;
      }
      if (!restored) return { reverted: false, reason: 'invalid' };
      deps.afterRevert(restored.userId);
      return { reverted: true, ...restored };
    },

    /** Drops expired links: they are refused the same whether their row is there or not. */
    async pruneExpired(): Promise<void> {
      await db.delete(emailChanges).where(sql`${emailChanges.expiresAt} < now()`);
      await db.delete(emailChangeReverts).where(sql`${emailChangeReverts.expiresAt} < now()`);
    },

    stop(): void {
      mailer?.close();
    },
  };
}

export type EmailChange = ReturnType<typeof createEmailChange>;
