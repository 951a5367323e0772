// Password reset by e-mail: a one-time link (a random 256-bit token of which only the SHA-256 is stored,
// valid 1 h; a newer link voids the older ones) to the dashboard's reset page. Asking for one answers the
// same, after at least the same time, whether or not the address has an account; the mail leaves after
// the answer, so a slow mail server cannot tell either.
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, sql } from 'drizzle-orm';
import { hashPassword } from '../auth/passwords';
import type { Database, Executor } from '../db/client';
import { passwordResets, users } from '../db/schema';
import { limitKey } from '../http/client-address';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import { passwordResetMail } from './texts';
import type { Throttle } from './throttle';

export const PASSWORD_RESET_LINK_HOURS = 1;
export const PASSWORD_RESET_PAGE_PATH = '/app/reset';
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
    if (!mailer) throw new AppError('service_unavailable', errorMessages.passwordResetUnavailable);
    return mailer;
  }

  /** Stores a new link for the user (older ones are voided) in the caller's transaction; returns the token. */
  async function issue(tx: Executor, userId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await tx.delete(passwordResets).where(eq(passwordResets.userId, userId));
    await tx.insert(passwordResets).values({
      tokenHash: hashToken(token),
      userId,
      expiresAt: sql`now() + make_interval(hours => ${PASSWORD_RESET_LINK_HOURS})`,
    });
    return token;
  }

  async function deliver(email: string, token: string, byOperator: boolean): Promise<void> {
    const link = `${publicBaseUrl}${PASSWORD_RESET_PAGE_PATH}?token=${token}`;
    await requireMailer().send({
      to: email,
      subject: passwordResetMail.subject,
      text: passwordResetMail.text(link, byOperator),
      html: passwordResetMail.html(link, byOperator),
    });
  }

  async function refuseOver(scope: 'password_reset_email' | 'password_reset_address', key: string, limit: number) {
    if (limit <= 0) return;
    const verdict = await throttle.hit(scope, key, limit, 3600);
    if (!verdict.allowed) {
      throw new AppError('rate_limit_exceeded', errorMessages.tooManyPasswordResets, {
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
      const [user] = await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, normalisedEmail)).limit(1);
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
        throw new AppError('service_unavailable', errorMessages.passwordResetMailFailed, { headers: { 'retry-after': '60' } });
      }
    },

    /**
     * Uses a link: sets the password and ends every session issued before, in one transaction. Deleting
     * the row is what makes the link one-time: a parallel use waits for that delete and then finds none.
     */
    async confirm(token: string, password: string): Promise<ResetUser> {
      if (!TOKEN_PATTERN.test(token)) throw new AppError('invalid_request_error', errorMessages.passwordResetLinkInvalid, { param: 'token' });
      // Hashed before the transaction: argon2 takes tens of milliseconds, no row lock should wait for it.
      const passwordHash = await hashPassword(password);
      const user = await db.transaction(async (tx) => {
        const [used] = await tx
          .delete(passwordResets)
          .where(and(eq(passwordResets.tokenHash, hashToken(token)), gt(passwordResets.expiresAt, sql`now()`)))
          .returning({ userId: passwordResets.userId });
        if (!used) return null;
        await tx.delete(passwordResets).where(eq(passwordResets.userId, used.userId));
        await tx.update(users).set({ passwordHash }).where(eq(users.id, used.userId));
        const generation = await deps.endSessions(tx, used.userId);
        const [row] = await tx
          .select({ id: users.id, email: users.email, blockedAt: users.blockedAt })
          .from(users)
          .where(eq(users.id, used.userId));
        return { id: row!.id, email: row!.email, generation, blocked: row!.blockedAt !== null };
      });
      if (!user) throw new AppError('invalid_request_error', errorMessages.passwordResetLinkInvalid, { param: 'token' });
      deps.afterReset(user.id);
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
