// E-mail verification: a one-time link mailed to the address (a random 256-bit token of which only the
// SHA-256 is stored, valid 24 h); opening it marks the e-mail verified and credits the registration bonus,
// at most once per user whatever happens (the ledger's unique index per user).
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client';
import { emailVerifications, ledgerEntries, users } from '../db/schema';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { takenAddressMail, verificationMail } from './texts';
import type { Throttle } from './throttle';

export const VERIFICATION_LINK_HOURS = 24;
/** Verification mails per user per hour, the one sent at registration included. */
export const VERIFICATION_MAILS_PER_HOUR = 5;
export const VERIFY_EMAIL_PATH = '/api/auth/verify-email';

// 32 random bytes in base64url, as issued; anything else cannot be a token and costs no query.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** What a failed delivery is logged with: codes, never the addresses or the server's full answer. */
function mailFailure(error: unknown): Record<string, unknown> {
  const e = error as { code?: unknown; responseCode?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'unknown', responseCode: typeof e?.responseCode === 'number' ? e.responseCode : null };
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
}

export function createEmailVerification({ db, mailer, throttle, logger, publicBaseUrl, bonusNano, required, adminEmails }: EmailVerificationDeps) {
  const inFlight = new Set<Promise<void>>();

  /** Stores a new link for the user (in the caller's transaction) and returns its token. */
  async function issue(tx: Executor, userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await tx.insert(emailVerifications).values({
      tokenHash: hashToken(token),
      userId,
      expiresAt: sql`now() + make_interval(hours => ${VERIFICATION_LINK_HOURS})`,
    });
    return token;
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
      if (!mailer) throw new AppError('invalid_request_error', errorMessages.verificationNotRequired);
      const [user] = await db
        .select({ email: users.email, emailVerifiedAt: users.emailVerifiedAt })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1);
      if (!user) throw new AppError('unauthorized', errorMessages.invalidToken);
      if (!wantsLink(user.email)) throw new AppError('invalid_request_error', errorMessages.verificationNotRequired);
      if (user.emailVerifiedAt) throw new AppError('conflict', errorMessages.emailAlreadyVerified);
      const verdict = await countMail(userId);
      if (!verdict.allowed) {
        throw new AppError('rate_limit_exceeded', errorMessages.tooManyVerificationMails, {
          headers: { 'retry-after': String(verdict.retryAfterSeconds) },
        });
      }
      const token = await db.transaction(async (tx) => {
        await tx.delete(emailVerifications).where(eq(emailVerifications.userId, userId));
        return issue(tx, userId);
      });
      try {
        await deliver(user.email, token);
      } catch (error) {
        logger.error('verification mail not sent', { userId, ...mailFailure(error) });
        throw new AppError('service_unavailable', errorMessages.verificationMailFailed, { headers: { 'retry-after': '60' } });
      }
    },

    /**
     * Uses a link: null when it is unknown, used or expired. Deleting the row is what makes it one-time:
     * a parallel opening waits for that delete and then finds nothing. The user's other links go with it.
     */
    async verify(token: string): Promise<{ userId: string; creditedNano: bigint } | null> {
      if (!TOKEN_PATTERN.test(token)) return null;
      return db.transaction(async (tx) => {
        const [used] = await tx
          .delete(emailVerifications)
          .where(and(eq(emailVerifications.tokenHash, hashToken(token)), gt(emailVerifications.expiresAt, sql`now()`)))
          .returning({ userId: emailVerifications.userId });
        if (!used) return null;
        await tx.delete(emailVerifications).where(eq(emailVerifications.userId, used.userId));
        await tx
          .update(users)
          .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, now())` })
          .where(eq(users.id, used.userId));
        // Also when verification has since been turned off: this user registered without the bonus.
        const creditedNano = await creditRegistrationBonus(tx, used.userId, bonusNano);
        return { userId: used.userId, creditedNano };
      });
    },

    /** Drops expired links: they are refused the same whether their row is there or not. */
    async pruneExpired(): Promise<void> {
      await db.delete(emailVerifications).where(sql`${emailVerifications.expiresAt} < now()`);
    },

    /** Waits for mails still being handed to the SMTP server, then closes its connection. */
    async stop(): Promise<void> {
      await Promise.allSettled([...inFlight]);
      mailer?.close();
    },
  };
}

export type EmailVerification = ReturnType<typeof createEmailVerification>;
