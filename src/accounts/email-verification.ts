// E-mail verification: a one-time link mailed to the address (a random 256-bit token of which only the
// SHA-256 is stored, valid 24 h). Opening it (GET) changes nothing: the page's form, submitted (POST),
// marks the e-mail verified and credits the registration bonus, at most once per user whatever happens
// (the ledger's unique index per user). A link verifies only the address it was mailed to, while the
// account still has it. For an ADMIN_EMAILS address the form also sets the account's password (ending
// every earlier session, revoking every API key and removing the alert webhook; with two-factor login on,
// with a code): the mailbox holder takes the account over before it becomes admin, so an account someone
// else registered with that address and a password of their own is never promoted for them, and keeps
// nothing of theirs that reaches it.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { hashPassword } from './passwords';
import type { Database, Executor } from '../db/client';
import { accountAlerts } from '../alerts/tables';
import { ledgerEntries } from '../gateway/tables';
import { apiKeys } from '../keys/tables';
import { emailVerifications, users } from './tables';
import { AppError, errorCodes } from '../http/errors';
import { USER_KEYS_CHANGED_CHANNEL } from '../keys';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { accountsMessages, takenAddressMail, verificationMail } from './texts';
import type { Throttle } from './throttle';
import type { LoginFactorCheck } from './two-factor';

export const VERIFICATION_LINK_HOURS = 24;
/** Verification mails per user per hour, the one sent at registration included. */
export const VERIFICATION_MAILS_PER_HOUR = 5;
export const VERIFY_EMAIL_PATH = '/api/auth/verify-email';
/**
 * How long a used or expired link's row is kept, so its page can say what happened («Адрес уже подтверждён»,
 * «Ссылка устарела») instead of a bare «недействительна».
 */
export const VERIFICATION_LINK_KEPT_DAYS = 30;
/** A used link's expiry: far in the past, so no clock makes it live again (see `verify`). */
const USED = new Date(0);

/** Why a link's page cannot offer its form: the words it shows depend on it (verify-page.ts). */
export type DeadVerificationLink = 'verified' | 'expired' | 'other_address' | 'unknown';

// 32 random bytes in base64url, as issued; anything else cannot be a token and costs no query.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a failed delivery is logged with: codes, never the addresses or the server's full answer. */
function mailFailure(error: unknown): Record<string, unknown> {
  const e = error as { code?: unknown; responseCode?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'unknown', responseCode: typeof e?.responseCode === 'number' ? e.responseCode : null };
}

/**
 * The registration bonus that still waits for this user's e-mail confirmation: the configured amount while the
 * address is unconfirmed and no bonus was credited (the link credits it), else nothing.
 */
export async function pendingRegistrationBonus(db: Executor, userId: string, emailVerified: boolean, amountNano: bigint): Promise<bigint> {
  if (emailVerified || amountNano <= 0n) return 0n;
  const [credited] = await db
    .select({ id: ledgerEntries.id })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.kind, 'registration_bonus')))
    .limit(1);
  return credited ? 0n : amountNano;
}

/**
 * Credits the registration bonus in the caller's transaction unless the user has had it. The insert that
 * conflicts with the unique index waits for a parallel one to commit and then inserts nothing, so two
 * openings of a link (or a verification after a bonus given at registration) credit once. Returns what
 * was credited.
 */
export async function creditRegistrationBonus(tx: Executor, userId: string, amountNano: bigint): Promise<bigint> {
  if (amountNano <= 0n) return 0n;
  const inserted = await tx
    .insert(ledgerEntries)
    .values({ userId, amountNano, kind: 'registration_bonus' })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return 0n;
  await tx
    .update(users)
    .set({ balanceNano: sql`${users.balanceNano} + ${amountNano.toString()}::bigint` })
    .where(eq(users.id, userId));
  return amountNano;
}

export interface EmailVerificationDeps {
  db: Database;
  /** Null when SMTP_URL is unset: links issued earlier still work, no new ones can be sent. */
  mailer: Mailer | null;
  throttle: Throttle;
  logger: Logger;
  publicBaseUrl: string;
  bonusNano: bigint;
  required: boolean;
  /** ADMIN_EMAILS: these addresses are mailed a link whether or not verification is required (admin-role.ts). */
  adminEmails: readonly string[];
  /** The account's second factor, asked when the form sets the password (two-factor.ts checkAtLogin). */
  secondFactor(userId: string, code: string | undefined): Promise<LoginFactorCheck>;
  /** Ends the user's sessions and voids every other link, in the caller's transaction (token-users.ts). */
  endSessions(tx: Executor, userId: string): Promise<number>;
}

/** What the link's page is to show: null for a link that cannot be used. */
export interface LiveVerificationLink {
  userId: string;
  email: string;
  /** An ADMIN_EMAILS address of an account not yet admin: the form must set the account's password. */
  setsPassword: boolean;
}

export interface VerificationOptions {
  /** The new password, for an ADMIN_EMAILS address (ignored otherwise). */
  password?: string;
  totpCode?: string;
}

export interface Verified {
  userId: string;
  creditedNano: bigint;
  /** The password was set and the account became admin. */
  promoted: boolean;
  role: 'user' | 'admin';
}

const MIN_PASSWORD = 6;
const MAX_PASSWORD = 1024;

export function createEmailVerification(deps: EmailVerificationDeps) {
  const { db, mailer, throttle, logger, publicBaseUrl, bonusNano, required, adminEmails } = deps;
  const inFlight = new Set<Promise<void>>();

  /** Stores a new link for the user (in the caller's transaction), bound to `email`, and returns its token. */
  async function issue(tx: Executor, userId: string, email: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await tx.insert(emailVerifications).values({
      tokenHash: hashToken(token),
      userId,
      email,
      expiresAt: sql`now() + make_interval(hours => ${VERIFICATION_LINK_HOURS})`,
    });
    return token;
  }

  /** The link as its page sees it, read only: unknown, used, expired, or for an address the account no longer has → null. */
  async function inspect(token: string): Promise<LiveVerificationLink | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const [row] = await db
      .select({ userId: emailVerifications.userId, email: emailVerifications.email, role: users.role })
      .from(emailVerifications)
      .innerJoin(users, and(eq(users.id, emailVerifications.userId), eq(users.email, emailVerifications.email)))
      .where(and(eq(emailVerifications.tokenHash, hashToken(token)), gt(emailVerifications.expiresAt, sql`now()`)))
      .limit(1);
    if (!row) return null;
    return { userId: row.userId, email: row.email, setsPassword: adminEmails.includes(row.email) && row.role !== 'admin' };
  }

  /** Why a link is not live (read only): the address is confirmed already, the link expired, the account's address changed since, or no such link. */
  async function explain(token: string): Promise<DeadVerificationLink> {
    if (!TOKEN_PATTERN.test(token)) return 'unknown';
    const [row] = await db
      .select({ email: emailVerifications.email, userEmail: users.email, verifiedAt: users.emailVerifiedAt })
      .from(emailVerifications)
      .innerJoin(users, eq(users.id, emailVerifications.userId))
      .where(eq(emailVerifications.tokenHash, hashToken(token)))
      .limit(1);
    if (!row) return 'unknown';
    if (row.userEmail !== row.email) return 'other_address';
    return row.verifiedAt ? 'verified' : 'expired';
  }

  async function deliver(email: string, token: string): Promise<void> {
    if (!mailer) throw new Error('no SMTP_URL: verification mail cannot be sent');
    const link = `${publicBaseUrl}${VERIFY_EMAIL_PATH}?token=${token}`;
    // Without REQUIRE_EMAIL_VERIFICATION the bonus came with the registration (only an ADMIN_EMAILS address gets this mail then).
    const withBonus = required && bonusNano > 0n;
    await mailer.send({
      to: email,
      subject: verificationMail.subject,
      text: verificationMail.text(link, VERIFICATION_LINK_HOURS, withBonus),
      html: verificationMail.html(link, VERIFICATION_LINK_HOURS, withBonus),
    });
  }

  const countMail = (userId: string) => throttle.hit('verification_mail', userId, VERIFICATION_MAILS_PER_HOUR, 3600);
  // Its own count: registering someone's address again must not use up their verification mails.
  const countNotice = (userId: string) => throttle.hit('taken_address_mail', userId, VERIFICATION_MAILS_PER_HOUR, 3600);

  /** Whether a new account with this (normalised) address gets a link: required for all, or listed as admin. */
  const wantsLink = (email: string) => required || (mailer !== null && adminEmails.includes(email));

  return {
    required,
    issue,
    wantsLink,

    /**
     * Mails the link without holding up the registration answer: a mail server that is slow or refuses
     * must not fail a registration that has committed. A lost mail is re-requested with resend().
     */
    sendAfterRegistration(userId: string, email: string, token: string): void {
      const sending = countMail(userId)
        .then(() => deliver(email, token))
        .catch((error) => logger.error('verification mail not sent', { userId, ...mailFailure(error) }))
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    },

    /**
     * Tells an account's owner that someone tried to register their address (at most
     * VERIFICATION_MAILS_PER_HOUR such mails an hour), without holding up the answer to that registration.
     */
    noticeTakenAddress(email: string): void {
      const sending = (async () => {
        if (!mailer) return;
        const [owner] = await db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
        if (!owner || !(await countNotice(owner.id)).allowed) return;
        const loginLink = `${publicBaseUrl}/app/login`;
        await mailer.send({ to: email, subject: takenAddressMail.subject, text: takenAddressMail.text(loginLink), html: takenAddressMail.html(loginLink) });
      })()
        .catch((error) => logger.error('taken-address mail not sent', mailFailure(error)))
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    },

    /** A new link for a signed-in user; earlier links stop working. */
    async resend(userId: string): Promise<void> {
      if (!mailer) throw new AppError('invalid_request_error', accountsMessages.verificationNotRequired);
      const [user] = await db
        .select({ email: users.email, emailVerifiedAt: users.emailVerifiedAt, role: users.role })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1);
      if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
      if (!wantsLink(user.email)) throw new AppError('invalid_request_error', accountsMessages.verificationNotRequired);
      // An address verified by an e-mail change is not yet an admin's: a listed one still gets the link whose
      // form (setting the password) is, with the operator's grant, the only way to the role (admin-role.ts).
      const awaitsAdminForm = adminEmails.includes(user.email) && user.role !== 'admin';
      if (user.emailVerifiedAt && !awaitsAdminForm) throw new AppError('conflict', accountsMessages.emailAlreadyVerified);
      const verdict = await countMail(userId);
      if (!verdict.allowed) {
        throw new AppError('rate_limit_exceeded', accountsMessages.tooManyVerificationMails, {
          headers: { 'retry-after': String(verdict.retryAfterSeconds) },
        });
      }
      const token = await db.transaction(async (tx) => {
        // The earlier links end (their page then says the link is out of date: the newest mail holds the live one).
        await tx.update(emailVerifications).set({ expiresAt: USED }).where(eq(emailVerifications.userId, userId));
        return issue(tx, userId, user.email);
      });
      try {
        await deliver(user.email, token);
      } catch (error) {
        logger.error('verification mail not sent', { userId, ...mailFailure(error) });
        throw new AppError('service_unavailable', accountsMessages.verificationMailFailed, { headers: { 'retry-after': '60' } });
      }
    },

    inspect,
    explain,

    /**
     * Uses a link (the page's POST): null when it is unknown, used, expired or for an address the account
     * no longer has. Setting its expiry to the distant past is what makes it one-time: a parallel use waits for
     * that update and then finds nothing live; the row stays (VERIFICATION_LINK_KEPT_DAYS) so its page can say
     * the address is confirmed. The user's other verification links end with it. For an ADMIN_EMAILS address a
     * password is required (400 on `password`, nothing changed) and, with two-factor login on, a code
     * (401 totp_required / totp_invalid, nothing changed); then the password is set, every session, link
     * and API key ends, the alert webhook is removed, and the account becomes admin, in the same
     * transaction as the verification.
     */
    async verify(token: string, options: VerificationOptions = {}): Promise<Verified | null> {
      const link = await inspect(token);
      if (!link) return null;
      let passwordHash: string | null = null;
      if (link.setsPassword) {
        const password = options.password ?? '';
        if (password.length < MIN_PASSWORD) throw new AppError('invalid_request_error', accountsMessages.adminPasswordRequired, { param: 'password' });
        if (password.length > MAX_PASSWORD) throw new AppError('invalid_request_error', accountsMessages.passwordTooLong, { param: 'password' });
        const factor = await deps.secondFactor(link.userId, options.totpCode);
        if (factor === 'required') throw new AppError('unauthorized', accountsMessages.totpRequired, { code: errorCodes.totpRequired });
        if (factor === 'wrong') throw new AppError('unauthorized', accountsMessages.totpInvalid, { code: errorCodes.totpInvalid });
        passwordHash = await hashPassword(password);
      }
      return db.transaction(async (tx) => {
        const [used] = await tx
          .update(emailVerifications)
          .set({ expiresAt: USED })
          .where(and(eq(emailVerifications.tokenHash, hashToken(token)), gt(emailVerifications.expiresAt, sql`now()`)))
          .returning({ userId: emailVerifications.userId, email: emailVerifications.email });
        if (!used) return null;
        const [user] = await tx.select({ email: users.email, role: users.role }).from(users).where(eq(users.id, used.userId)).for('update');
        // The account's address changed after the page was read: the link verifies only the one it was mailed to.
        if (!user || user.email !== used.email) return null;
        await tx.update(emailVerifications).set({ expiresAt: USED }).where(eq(emailVerifications.userId, used.userId));
        await tx
          .update(users)
          .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` })
          .where(eq(users.id, used.userId));
        // Also when verification has since been turned off: this user registered without the bonus.
        const creditedNano = await creditRegistrationBonus(tx, used.userId, bonusNano);
        let promoted = false;
        if (passwordHash !== null && adminEmails.includes(used.email)) {
          await tx.update(users).set({ passwordHash, role: 'admin' }).where(eq(users.id, used.userId));
          await deps.endSessions(tx, used.userId);
          // The registrant's API keys are theirs, not the mailbox holder's: like the password and the
          // sessions, they end here, so whoever registered the address keeps no way into the admin's balance.
          await tx
            .update(apiKeys)
            .set({ revokedAt: sql`now()` })
            .where(and(eq(apiKeys.userId, used.userId), isNull(apiKeys.revokedAt)));
          await tx.execute(sql`select pg_notify(${USER_KEYS_CHANGED_CHANNEL}, ${used.userId})`);
          // So is the alert webhook they set: the admin account's events must not go to the registrant's
          // server. An event already queued finds no webhook at delivery and is dropped (alerts/delivery.ts).
          await tx.update(accountAlerts).set({ webhookUrl: null, webhookSecretSealed: null, updatedAt: sql`now()` }).where(eq(accountAlerts.userId, used.userId));
          promoted = true;
        }
        return { userId: used.userId, creditedNano, promoted, role: promoted || user.role === 'admin' ? ('admin' as const) : ('user' as const) };
      });
    },

    /** Drops links issued over VERIFICATION_LINK_KEPT_DAYS ago: used or expired, their page needs them no longer. */
    async pruneExpired(): Promise<void> {
      await db
        .delete(emailVerifications)
        .where(
          and(sql`${emailVerifications.expiresAt} < now()`, sql`${emailVerifications.createdAt} < now() - make_interval(days => ${VERIFICATION_LINK_KEPT_DAYS})`),
        );
    },

    /** Waits for mails still being handed to the SMTP server, then closes its connection. */
    async stop(): Promise<void> {
      await Promise.allSettled([...inFlight]);
      mailer?.close();
    },
  };
}

export type EmailVerification = ReturnType<typeof createEmailVerification>;
