// Registration, login and the user behind a dashboard token, with the limits that keep strangers from
// farming registration bonuses or guessing passwords.
import { createHash, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { burnPasswordCheck, hashPassword, verifyPassword } from './passwords';
import type { JwtService } from './jwt';
import type { Config } from '../config';
import type { Database, Executor } from '../db/client';
import { users } from './tables';
import { defaultPriceGroupSql } from '../pricing/tables';
import { isUuid } from '../db/uuid';
import { limitKey } from '../http/client-address';
import { AppError, errorCodes, isUniqueViolation } from '../http/errors';
import { accountsMessages } from './texts';
import { accountBlockedMessage } from '../keys';
import { createPeriodicJob } from '../jobs/periodic';
import type { Logger } from '../logger';
import { createMailer } from '../mail/mailer';
import { nanoToUnits } from '../money';
import { roleAtLogin, type Role } from './admin-role';
import { createEmailVerification, creditRegistrationBonus, pendingRegistrationBonus, type VerificationOptions } from './email-verification';
import { createPasswordReset } from './password-reset';
import type { SecurityNotices } from './security-notices';
import type { Sessions } from './sessions';
import { createThrottle, type GrowingDelay } from './throttle';
import { endSessions, type TokenUserCache } from './token-users';
import type { TwoFactor } from './two-factor';
import type { AccountRegistered } from './events';

export type { Role } from './admin-role';

export interface PublicUser {
  id: string;
  email: string;
  balance: number;
  role: Role;
  emailVerified: boolean;
}

/** The user behind a dashboard token, as stored now (a token says nothing about role or blocking). */
export interface TokenUser {
  id: string;
  email: string;
  role: Role;
  blocked: boolean;
}

export interface SessionResult {
  user: PublicUser;
  token: string;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const asRole = (stored: string): Role => (stored === 'admin' ? 'admin' : 'user');

interface UserRow {
  id: string;
  email: string;
  balanceNano: bigint;
  role: string;
  emailVerifiedAt: Date | null;
}

const userColumns = {
  id: users.id,
  email: users.email,
  balanceNano: users.balanceNano,
  role: users.role,
  emailVerifiedAt: users.emailVerifiedAt,
};

function publicUser(row: UserRow): PublicUser {
  return {
    id: row.id,
    email: row.email,
    balance: nanoToUnits(row.balanceNano),
    role: asRole(row.role),
    emailVerified: row.emailVerifiedAt !== null,
  };
}

/** The per-account login count is keyed by a hash: the table must not become a list of e-mails people tried. */
const accountKey = (normalisedEmail: string) => createHash('sha256').update(normalisedEmail).digest('hex');
/** The same for one e-mail at one client address. */
const pairKey = (normalisedEmail: string, addressKey: string) => createHash('sha256').update(`${normalisedEmail}\n${addressKey}`).digest('hex');

const tooManyAttempts = (retryAfterSeconds: number) =>
  new AppError('rate_limit_exceeded', accountsMessages.tooManyLoginAttempts, { headers: { 'retry-after': String(retryAfterSeconds) } });

const REGISTRATION_WINDOW_SECONDS = 3600;
const PRUNE_INTERVAL_MS = 10 * 60 * 1000;

export interface AccountServiceDeps {
  db: Database;
  jwt: JwtService;
  logger: Logger;
  /** Who a token belongs to, cached per instance (token-users.ts). */
  tokenUsers: Pick<TokenUserCache, 'get' | 'getFresh' | 'forget'>;
  /** The sign-ins each token names (sessions.ts). */
  sessions: Pick<Sessions, 'open' | 'touch' | 'prune'>;
  /** Login's second step (two-factor.ts). */
  twoFactor: TwoFactor;
  /** Mails the owner when the password changes (security-notices.ts). */
  notices: Pick<SecurityNotices, 'tell'>;
  /**
   * Told when a user's API keys were revoked here (the admin takeover of email-verification.ts), so this
   * instance's key cache drops them before the commit's notification arrives (keys/verifier.ts).
   */
  keysRevoked?: (userId: string) => void;
  /** Told of each new account inside its registration's transaction (events.ts `accountRegistered`). */
  registered?: (event: AccountRegistered) => Promise<void>;
  config: Pick<
    Config,
    | 'adminEmails'
    | 'publicBaseUrl'
    | 'registrationLimitPerHour'
    | 'registrationBonusNano'
    | 'requireEmailVerification'
    | 'smtp'
    | 'loginMaxFailures'
    | 'loginAccountMaxFailures'
    | 'loginLockoutSeconds'
    | 'loginFailureWindowSeconds'
    | 'passwordResetLimitPerEmail'
    | 'passwordResetLimitPerAddress'
    | 'supportContact'
  >;
}

/** Where a sign-in comes from: its client address and User-Agent, for the owner's list of sessions. */
export interface SignInClient {
  address: string;
  userAgent?: string | null;
}

export function createAccountService({ db, jwt, logger, tokenUsers, sessions, twoFactor, notices, keysRevoked, registered, config }: AccountServiceDeps) {
  const throttle = createThrottle(db);
  const passwordReset = createPasswordReset({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    throttle,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    limitPerEmail: config.passwordResetLimitPerEmail,
    limitPerAddress: config.passwordResetLimitPerAddress,
    endSessions,
    afterReset: (userId) => tokenUsers.forget(userId),
    secondFactor: (userId, code) => twoFactor.checkAtLogin(userId, code),
    notices,
  });
  const verification = createEmailVerification({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    throttle,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    bonusNano: config.registrationBonusNano,
    required: config.requireEmailVerification,
    adminEmails: config.adminEmails,
    secondFactor: (userId, code) => twoFactor.checkAtLogin(userId, code),
    endSessions,
  });
  // Guessing from one address is slowed early (per address, and per address and e-mail); the count per
  // e-mail (all addresses together) starts later and holds back only addresses that have already failed on
  // that e-mail, so guessers spread over many addresses cannot turn it against the owner (see login).
  const addressDelay: GrowingDelay = {
    freeAttempts: config.loginMaxFailures,
    maxDelaySeconds: config.loginLockoutSeconds,
    windowSeconds: config.loginFailureWindowSeconds,
  };
  const accountDelay: GrowingDelay = { ...addressDelay, freeAttempts: config.loginAccountMaxFailures };
  const prune = createPeriodicJob({
    name: 'account throttle prune',
    intervalMs: PRUNE_INTERVAL_MS,
    logger,
    run: async () => {
      await throttle.prune(Math.max(REGISTRATION_WINDOW_SECONDS, config.loginFailureWindowSeconds, config.loginLockoutSeconds));
      await verification.pruneExpired();
      await passwordReset.pruneExpired();
      await sessions.prune();
    },
  });

  /**
   * A token for a new session of the user, recorded in `executor`'s transaction when given. A sign-in by
   * login from a device the user never signed in from before is mailed to the owner.
   */
  async function startSession(
    user: { userId: string; email: string; generation: number },
    client: SignInClient,
    options: { executor?: Executor; mailNewDevice?: boolean } = {},
  ): Promise<string> {
    const opened = await sessions.open(options.executor ?? db, { ...user, userAgent: client.userAgent ?? null, address: client.address });
    if (opened.newDevice && options.mailNewDevice) notices.tell(user.userId, 'new_device_sign_in', { device: opened.device, address: client.address });
    return jwt.sign({ ...user, sessionId: opened.id });
  }

  /** Uses a reset link (password-reset.ts); the e-mail's failed-login count starts over: the owner proved who they are. */
  async function useResetLink(token: string, password: string, totpCode: string | undefined, clientAddress: string) {
    const reset = await passwordReset.confirm(token, password, totpCode, clientAddress);
    await throttle.reset('login_account', accountKey(reset.email));
    return reset;
  }

  return {
    /**
     * Counted per client address before any work (a refused attempt costs no password hash). With e-mail
     * verification required, the account starts with nothing and the bonus waits for the mailed link.
     */
    async register(
      email: string,
      password: string,
      client: SignInClient,
      referralCode: string | null = null,
    ): Promise<SessionResult & { verificationSent: boolean }> {
      const clientAddress = client.address;
      if (config.registrationLimitPerHour > 0) {
        const verdict = await throttle.hit('register_address', limitKey(clientAddress), config.registrationLimitPerHour, REGISTRATION_WINDOW_SECONDS);
        if (!verdict.allowed) {
          throw new AppError('rate_limit_exceeded', accountsMessages.tooManyRegistrations, {
            headers: { 'retry-after': String(verdict.retryAfterSeconds) },
          });
        }
      }
      const normalised = normaliseEmail(email);
      const passwordHash = await hashPassword(password);
      let created: { row: UserRow; verificationToken: string | null };
      try {
        // Every account starts as a user, whatever ADMIN_EMAILS says: the address is not proven yet.
        created = await db.transaction(async (tx) => {
          const [user] = await tx.insert(users).values({ email: normalised, passwordHash, priceGroup: defaultPriceGroupSql }).returning(userColumns);
          await registered?.({ tx, userId: user!.id, email: normalised, referralCode });
          if (verification.required) return { row: user!, verificationToken: await verification.issue(tx, user!.id, normalised) };
          const credited = await creditRegistrationBonus(tx, user!.id, config.registrationBonusNano);
          // A listed address is mailed its link even when verification is not required: that link is how it proves itself.
          const verificationToken = verification.wantsLink(normalised) ? await verification.issue(tx, user!.id, normalised) : null;
          return { row: { ...user!, balanceNano: credited }, verificationToken };
        });
      } catch (error) {
        if (!isUniqueViolation(error, 'users_email_unique')) throw error;
        // Without verification a new account is usable at once, so a taken address must be said (409). With
        // it, the answer looks like a new account's (an id and a token of an account that does not exist,
        // after the same password hash) and the owner is told by mail instead: the answer does not tell
        // strangers which addresses have accounts.
        if (!verification.required) throw new AppError('conflict', accountsMessages.emailTaken);
        verification.noticeTakenAddress(normalised);
        const id = randomUUID();
        const token = await jwt.sign({ userId: id, email: normalised, generation: 0, sessionId: randomUUID() });
        return {
          user: publicUser({ id, email: normalised, balanceNano: 0n, role: 'user', emailVerifiedAt: null }),
          token,
          verificationSent: true,
        };
      }
      const { row, verificationToken } = created;
      if (verificationToken) verification.sendAfterRegistration(row.id, row.email, verificationToken);
      const token = await startSession({ userId: row.id, email: row.email, generation: 0 }, client);
      // The answer tells of the mail only when every registration gets one: otherwise it would tell anyone
      // which addresses are in ADMIN_EMAILS.
      return { user: publicUser(row), token, verificationSent: verification.required };
    },

    /**
     * Each attempt is reserved against the client's address, against the address and e-mail together, and
     * (unless it is this address's first attempt on the e-mail in the window) against the e-mail, before the
     * password is looked at, so parallel guesses cannot all be checked. The e-mail's count is what guessing
     * spread over many addresses drives up: were it to hold back every address, guessers could lock the
     * owner out, so an address that has not failed on the e-mail is let past it. A guesser gains one attempt
     * per fresh address from that, which the per-address count limits anyway. Locked, unknown and wrong
     * answer alike: an e-mail without an account is counted and throttled exactly as one with an account
     * (a 429 with Retry-After for both, before any database read of the user), and unknown and wrong get the
     * same 401 after the same argon2 work.
     */
    async login(email: string, password: string, client: SignInClient, totpCode?: string): Promise<SessionResult> {
      const clientAddress = client.address;
      const normalised = normaliseEmail(email);
      const addressKey = limitKey(clientAddress);
      const emailKey = accountKey(normalised);
      const hereKey = pairKey(normalised, addressKey);
      const byAddress = await throttle.reserve('login_address', addressKey, addressDelay);
      if (!byAddress.allowed) throw tooManyAttempts(byAddress.retryAfterSeconds);
      const here = await throttle.reserve('login_pair', hereKey, addressDelay);
      if (!here.allowed) throw tooManyAttempts(here.retryAfterSeconds);
      if (here.hits > 1) {
        const byAccount = await throttle.reserve('login_account', emailKey, accountDelay);
        if (!byAccount.allowed) throw tooManyAttempts(byAccount.retryAfterSeconds);
      }

      const [row] = await db
        .select({ ...userColumns, passwordHash: users.passwordHash, blockedAt: users.blockedAt, sessionsGeneration: users.sessionsGeneration })
        .from(users)
        // An organisation's account (kind 'organization') has no password and never signs in.
        .where(and(eq(users.email, normalised), eq(users.kind, 'person')))
        .limit(1);
      if (!row) {
        await burnPasswordCheck(password);
        throw new AppError('unauthorized', accountsMessages.invalidCredentials);
      }
      // A failure stays counted as reserved.
      if (!(await verifyPassword(row.passwordHash, password))) throw new AppError('unauthorized', accountsMessages.invalidCredentials);
      // The second factor, while this attempt is still counted: a wrong code stays a failure like a wrong
      // password. Only "no code yet" gives the attempt back (the password was right), and resets nothing,
      // so knowing the password buys no extra guesses at the code.
      const secondFactor = await twoFactor.checkAtLogin(row.id, totpCode);
      if (secondFactor === 'required') {
        await throttle.refund('login_address', addressKey, addressDelay.freeAttempts);
        await throttle.refund('login_pair', hereKey, addressDelay.freeAttempts);
        if (here.hits > 1) await throttle.refund('login_account', emailKey, accountDelay.freeAttempts);
        throw new AppError('unauthorized', accountsMessages.totpRequired, { code: errorCodes.totpRequired });
      }
      if (secondFactor === 'wrong') throw new AppError('unauthorized', accountsMessages.totpInvalid, { code: errorCodes.totpInvalid });

      // The owner proved who they are: the e-mail's counts start over (this address is a never-failing one
      // again), and the address keeps only its failures.
      await throttle.reset('login_pair', hereKey);
      await throttle.reset('login_account', emailKey);
      await throttle.refund('login_address', addressKey, addressDelay.freeAttempts);
      const role = roleAtLogin(config.adminEmails, row);
      if (role !== row.role) {
        await db.update(users).set({ role }).where(eq(users.id, row.id));
        tokenUsers.forget(row.id);
      }
      // Only after the password matched: a blocked account must not tell strangers that the e-mail exists.
      if (row.blockedAt) throw new AppError('forbidden', accountBlockedMessage(config.supportContact));
      const token = await startSession({ userId: row.id, email: row.email, generation: row.sessionsGeneration }, client, { mailNewDevice: true });
      return { user: publicUser({ ...row, role }), token };
    },

    /** What a verification link's page shows (read only); null when it cannot be used. */
    inspectVerificationLink: (token: string) => verification.inspect(token),
    /** Why a verification link is not live, for its page's words. */
    explainVerificationLink: (token: string) => verification.explain(token),
    /**
     * Uses a verification link, from its page's POST (email-verification.ts); null when it is unknown,
     * used, expired or for an address the account no longer has.
     */
    async verifyEmail(token: string, options: VerificationOptions = {}) {
      const verified = await verification.verify(token, options);
      if (verified) {
        tokenUsers.forget(verified.userId);
        if (verified.promoted) {
          keysRevoked?.(verified.userId);
          notices.tell(verified.userId, 'password_changed');
        }
      }
      return verified;
    },
    /** A new verification link for a signed-in user, within its own hourly limit. */
    resendVerification: (userId: string) => verification.resend(userId),

    /**
     * The user a dashboard token belongs to; a token of a deleted user, or one issued before the user's
     * sessions were ended (an older generation), is as good as a forged one. Role and blocking come from
     * the row as cached now (token-users.ts: every change reaches every instance's cache at its commit),
     * so a change applies to tokens already issued without a database read per request. `fresh`: read
     * the row now (operator routes: rare, and the role must be the stored one at this very moment).
     */
    async userFromToken(token: string, options: { fresh?: boolean } = {}): Promise<TokenUser | null> {
      const claims = await jwt.verify(token);
      if (!claims || !isUuid(claims.userId)) return null;
      const row = await (options.fresh ? tokenUsers.getFresh(claims.userId) : tokenUsers.get(claims.userId));
      if (!row || row.sessionsGeneration !== claims.generation) return null;
      if (claims.sessionId) {
        if (row.endedSessions.has(claims.sessionId)) return null;
        sessions.touch(claims.sessionId);
      }
      return { id: row.id, email: row.email, role: asRole(row.role), blocked: row.blocked };
    },

    /**
     * Changes the password of a signed-in user who knows the current one, ends every other session and
     * answers a fresh token. Wrong guesses of the current password are counted per user as failed logins
     * are (a stolen token must not become a way to guess the password), reserved before the check.
     */
    async changePassword(userId: string, currentPassword: string, newPassword: string, client: SignInClient): Promise<{ token: string }> {
      const reserved = await throttle.reserve('password_change_user', userId, addressDelay);
      if (!reserved.allowed) {
        throw new AppError('rate_limit_exceeded', accountsMessages.tooManyPasswordAttempts, {
          headers: { 'retry-after': String(reserved.retryAfterSeconds) },
        });
      }
      const [row] = await db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId)).limit(1);
      if (!row) throw new AppError('unauthorized', accountsMessages.invalidToken);
      if (!(await verifyPassword(row.passwordHash, currentPassword))) {
        throw new AppError('invalid_request_error', accountsMessages.currentPasswordWrong, { param: 'currentPassword' });
      }
      await throttle.refund('password_change_user', userId, addressDelay.freeAttempts);
      const passwordHash = await hashPassword(newPassword);
      const token = await db.transaction(async (tx) => {
        const [updated] = await tx.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning({ email: users.email });
        const generation = await endSessions(tx, userId);
        return startSession({ userId, email: updated!.email, generation }, client, { executor: tx });
      });
      tokenUsers.forget(userId);
      notices.tell(userId, 'password_changed');
      return { token };
    },

    /** Ends every session of the user, the caller's included, and every mailed link issued before. */
    async logoutAll(userId: string): Promise<void> {
      await db.transaction((tx) => endSessions(tx, userId));
      tokenUsers.forget(userId);
    },

    /** Mails a reset link if the address has an account; the same answer either way (password-reset.ts). */
    requestPasswordReset: (email: string, clientAddress: string) => passwordReset.request(normaliseEmail(email), clientAddress),

    /**
     * Uses a reset link: the new password is set, every earlier session ends, and the answer signs the
     * user in as login does (a blocked account gets its password set but no session). The e-mail's failed
     * login count starts over: the owner proved who they are.
     */
    async confirmPasswordReset(token: string, password: string, totpCode: string | undefined, client: SignInClient): Promise<SessionResult> {
      const reset = await useResetLink(token, password, totpCode, client.address);
      if (reset.blocked) throw new AppError('forbidden', accountBlockedMessage(config.supportContact));
      const [row] = await db.select(userColumns).from(users).where(eq(users.id, reset.id)).limit(1);
      const user = row ? publicUser(row) : null;
      if (!user) throw new AppError('invalid_request_error', accountsMessages.passwordResetLinkInvalid, { param: 'token' });
      return { user, token: await startSession({ userId: reset.id, email: reset.email, generation: reset.generation }, client) };
    },

    /**
     * The reset link's page (password-reset-page.ts), GET: whether the link is live and whether its form
     * must ask for a second factor's code. Changes nothing.
     */
    async inspectPasswordResetLink(token: string): Promise<{ twoFactor: boolean } | null> {
      const link = await passwordReset.inspect(token);
      if (!link) return null;
      return { twoFactor: (await twoFactor.status(link.userId)).enabled };
    },
    /**
     * The reset link's form, POST: the same use of the link as confirmPasswordReset (the same limits, the
     * same code rule, every session and link ended), but no session is handed out: the person signs in.
     */
    async resetPasswordByForm(token: string, password: string, totpCode: string | undefined, clientAddress: string): Promise<{ blockedMessage: string | null }> {
      const reset = await useResetLink(token, password, totpCode, clientAddress);
      return { blockedMessage: reset.blocked ? accountBlockedMessage(config.supportContact) : null };
    },

    /** For the operator console: a link issued in the operator's transaction, mailed after its commit. */
    passwordReset: { issueFor: passwordReset.issueFor, deliverIssued: passwordReset.deliverIssued },
    /** For writers elsewhere (the operator console) that ended a user's sessions: this instance forgets at once. */
    sessionsEnded: (userId: string) => tokenUsers.forget(userId),

    /** The session a genuine token names (null for a token from before sessions were listed). */
    async sessionOf(token: string): Promise<string | null> {
      return (await jwt.verify(token))?.sessionId ?? null;
    },

    async getPublicUser(userId: string): Promise<PublicUser | null> {
      const [row] = await db.select(userColumns).from(users).where(eq(users.id, userId)).limit(1);
      return row ? publicUser(row) : null;
    },

    /** What the overview promises until the address is confirmed (0 when nothing waits). */
    pendingBonusNano: (user: Pick<PublicUser, 'id' | 'emailVerified'>) => pendingRegistrationBonus(db, user.id, user.emailVerified, config.registrationBonusNano),

    /** Starts the pruning of stale counters and expired links (every instance may run it: it only deletes). */
    start: () => prune.start(),
    async stop() {
      await prune.stop();
      await verification.stop();
      await passwordReset.stop();
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
