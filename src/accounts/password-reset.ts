// Password reset by e-mail: a one-time link (a random 256-bit token of which only the SHA-256 is stored,
// valid 1 h; a newer link voids the older ones) to a server-rendered page (password-reset-page.ts) whose
// form, submitted, sets the password: opening the link changes nothing. Asking for one answers the
// same, after at least the same time, whether or not the address has an account; the mail leaves after
// the answer, so a slow mail server cannot tell either. A link works only while the account still has
// the address it was mailed to, and dies with every other link when sessions end (links.ts). With
// two-factor login on, using it also needs a code: the mailbox alone does not open the account.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import { hashPassword } from './passwords';
import type { Database, Executor } from '../db/client';
import { passwordResets, users } from './tables';
import { limitKey } from '../http/client-address';
import { AppError, errorCodes } from '../http/errors';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import type { SecurityNotices } from './security-notices';
import { accountsMessages, passwordResetMail } from './texts';
import type { Throttle } from './throttle';
import type { LoginFactorCheck } from './two-factor';

export const PASSWORD_RESET_LINK_HOURS = 1;
/**
 * The mailed link: GET opens the page with the form (changes nothing), the form posts back here; a client's
 * JSON POST to the same path is the REST procedure. The dashboard's /app/reset page still takes a token.
 */
export const PASSWORD_RESET_LINK_PATH = '/api/auth/password-reset/confirm';
/**
 * Every request is answered no sooner than this after it arrived: the lookup, the link's insert and the
 * throttle's statements take a few milliseconds more for an existing address than for an unknown one,
 * and this floor hides that difference.
 */
const MINIMUM_ANSWER_MS = 250;

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const emailKey = (normalisedEmail: string) => createHash('sha256').update(normalisedEmail).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function mailFailure(error: unknown): Record<string, unknown> {
  const e = error as { code?: unknown; responseCode?: unknown };
  return { code: typeof e?.code === 'string' ? e.code : 'unknown', responseCode: typeof e?.responseCode === 'number' ? e.responseCode : null };
}

export interface PasswordResetDeps {
  db: Database;
  /** Null without SMTP_URL: then nobody can be sent a link, and the dashboard says to ask the operator. */
  mailer: Mailer | null;
  throttle: Throttle;
  logger: Logger;
  publicBaseUrl: string;
  limitPerEmail: number;
  limitPerAddress: number;
  /** Raises the user's sessions generation in the caller's transaction and returns the new one. */
  endSessions(tx: Executor, userId: string): Promise<number>;
  /** Told after the commit of a reset, so this instance's token cache forgets the user at once. */
  afterReset(userId: string): void;
  /** The account's second factor (two-factor.ts checkAtLogin). */
  secondFactor(userId: string, code: string | undefined): Promise<LoginFactorCheck>;
  notices: Pick<SecurityNotices, 'tell'>;
}

export interface ResetUser {
  id: string;
  email: string;
  generation: number;
  blocked: boolean;
}

export function createPasswordReset(deps: PasswordResetDeps) {
  const { db, mailer, throttle, logger, publicBaseUrl } = deps;
  const inFlight = new Set<Promise<void>>();

  function requireMailer(): Mailer {
    if (!mailer) throw new AppError('service_unavailable', accountsMessages.passwordResetUnavailable);
    return mailer;
  }

  /**
   * Stores a new link for the user (older ones are voided) in the caller's transaction, bound to the
   * account's address as it is now (the one it is mailed to); returns the token.
   */
  async function issue(tx: Executor, userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await tx.delete(passwordResets).where(eq(passwordResets.userId, userId));
    const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
    if (!user) throw new Error(`password reset: no user ${userId}`);
    await tx.insert(passwordResets).values({
      tokenHash: hashToken(token),
      userId,
      email: user.email,
      expiresAt: sql`now() + make_interval(hours => ${PASSWORD_RESET_LINK_HOURS})`,
    });
    return token;
  }

  /** The live link's account: unknown, used, expired, or mailed to an address the account no longer has → null. */
  async function liveLink(token: string): Promise<{ userId: string } | null> {
    const [row] = await db
      .select({ userId: passwordResets.userId })
      .from(passwordResets)
      .innerJoin(users, and(eq(users.id, passwordResets.userId), eq(users.email, passwordResets.email)))
      .where(and(eq(passwordResets.tokenHash, hashToken(token)), gt(passwordResets.expiresAt, sql`now()`)))
      .limit(1);
    return row ?? null;
  }

  async function deliver(email: string, token: string, byOperator: boolean): Promise<void> {
    const link = `${publicBaseUrl}${PASSWORD_RESET_LINK_PATH}?token=${token}`;
    await requireMailer().send({
      to: email,
      subject: passwordResetMail.subject,
      text: passwordResetMail.text(link, byOperator),
      html: passwordResetMail.html(link, byOperator),
    });
  }

  async function refuseOver(scope: 'password_reset_email' | 'password_reset_address' | 'password_reset_confirm_address', key: string, limit: number) {
    if (limit <= 0) return;
    const verdict = await throttle.hit(scope, key, limit, 3600);
    if (!verdict.allowed) {
      throw new AppError('rate_limit_exceeded', accountsMessages.tooManyPasswordResets, {
        headers: { 'retry-after': String(verdict.retryAfterSeconds) },
      });
    }
  }

  return {
    /**
     * The public request. Counted per client address and per e-mail (as a hash) before the account is
     * looked at, so an unknown address is throttled exactly like a known one.
     */
    async request(normalisedEmail: string, clientAddress: string): Promise<void> {
      const startedAt = Date.now();
      requireMailer();
      await refuseOver('password_reset_address', limitKey(clientAddress), deps.limitPerAddress);
      await refuseOver('password_reset_email', emailKey(normalisedEmail), deps.limitPerEmail);
      const [user] = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(and(eq(users.email, normalisedEmail), eq(users.kind, 'person')))
        .limit(1);
      if (user) {
        const token = await db.transaction((tx) => issue(tx, user.id));
        const sending = deliver(user.email, token, false)
          .catch((error) => logger.error('password reset mail not sent', { userId: user.id, ...mailFailure(error) }))
          .finally(() => inFlight.delete(sending));
        inFlight.add(sending);
      }
      const left = MINIMUM_ANSWER_MS - (Date.now() - startedAt);
      if (left > 0) await sleep(left);
    },

    /**
     * An operator's: the link is stored in the operator's transaction (beside its audit row) and mailed
     * by `deliverIssued` after the commit, whose failure the operator is told of.
     */
    issueFor: (tx: Executor, userId: string) => {
      requireMailer();
      return issue(tx, userId);
    },
    async deliverIssued(email: string, token: string): Promise<void> {
      try {
        await deliver(email, token, true);
      } catch (error) {
        if (error instanceof AppError) throw error;
        logger.error('password reset mail not sent', mailFailure(error));
        throw new AppError('service_unavailable', accountsMessages.passwordResetMailFailed, { headers: { 'retry-after': '60' } });
      }
    },

    /** The live link's account, for its page (nothing is changed or counted); null for a dead link. */
    inspect: (token: string) => (TOKEN_PATTERN.test(token) ? liveLink(token) : Promise.resolve(null)),

    /**
     * Uses a link: sets the password and ends every session (and every other link) issued before, in one
     * transaction. Counted per client address first; the link is looked up before any password hashing,
     * so a made-up token costs one indexed read. With two-factor login on, a code is needed: without one
     * (or with a wrong one) nothing changes and the link stays usable. Deleting the row is what makes the
     * link one-time: a parallel use waits for that delete and then finds none.
     */
    async confirm(token: string, password: string, totpCode: string | undefined, clientAddress: string): Promise<ResetUser> {
      await refuseOver('password_reset_confirm_address', limitKey(clientAddress), deps.limitPerAddress);
      const invalid = () => new AppError('invalid_request_error', accountsMessages.passwordResetLinkInvalid, { param: 'token' });
      if (!TOKEN_PATTERN.test(token)) throw invalid();
      const link = await liveLink(token);
      if (!link) throw invalid();
      const factor = await deps.secondFactor(link.userId, totpCode);
      if (factor === 'required') throw new AppError('unauthorized', accountsMessages.totpRequired, { code: errorCodes.totpRequired });
      if (factor === 'wrong') throw new AppError('unauthorized', accountsMessages.totpInvalid, { code: errorCodes.totpInvalid });
      // Hashed before the transaction: argon2 takes tens of milliseconds, no row lock should wait for it.
      const passwordHash = await hashPassword(password);
      const user = await db.transaction(async (tx) => {
        const [used] = await tx
          .delete(passwordResets)
          .where(and(eq(passwordResets.tokenHash, hashToken(token)), gt(passwordResets.expiresAt, sql`now()`)))
          .returning({ userId: passwordResets.userId, email: passwordResets.email });
        if (!used) return null;
        const [row] = await tx.select({ id: users.id, email: users.email, blockedAt: users.blockedAt }).from(users).where(eq(users.id, used.userId)).for('update');
        // The address changed since the link was checked: it was mailed to one the account no longer has.
        if (!row || row.email !== used.email) return null;
        await tx.update(users).set({ passwordHash }).where(eq(users.id, used.userId));
        const generation = await deps.endSessions(tx, used.userId);
        return { id: row.id, email: row.email, generation, blocked: row.blockedAt !== null };
      });
      if (!user) throw invalid();
      deps.afterReset(user.id);
      deps.notices.tell(user.id, 'password_changed');
      return user;
    },

    /** Drops expired links: they are refused the same whether their row is there or not. */
    async pruneExpired(): Promise<void> {
      await db.delete(passwordResets).where(sql`${passwordResets.expiresAt} < now()`);
    },

    async stop(): Promise<void> {
      await Promise.allSettled([...inFlight]);
      mailer?.close();
    },
  };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
