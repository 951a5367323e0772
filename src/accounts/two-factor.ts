// Two-factor login with TOTP (RFC 6238, via the otpauth library): a secret set up and confirmed with a
// first code, ten one-time recovery codes, and the check login makes once the password is right.
// The secret is sealed with the secret box (as integration secrets are); recovery codes are kept only as
// SHA-256 hashes. A code is accepted once: the step it belongs to is remembered and a code of that step or
// an earlier one is refused, so a code seen over a shoulder or in a log cannot log in again.
//
// An account with an ADMIN_EMAILS address that is not admin yet cannot turn the factor on (409): its
// address is unproven until the mailbox holder submits the verification link's form (email-verification.ts),
// and a factor set by whoever registered the address would make that form ask for their code, keeping the
// holder out for good.
import { createHash, randomInt } from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import { twoFactorRecoveryCodes, twoFactorSecrets, users } from './tables';
import { AppError, errorCodes } from '../http/errors';
import { accountsMessages } from './texts';
import type { SecurityNotices } from './security-notices';
import type { GrowingDelay, Throttle } from './throttle';

const ISSUER = 'Conduit';
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** One step either side: a phone clock a little off, or a code typed as it changed, still works. */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
// 32 letters and digits without look-alikes (no i, l, o, u): ten of them carry 50 random bits.
const RECOVERY_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const SECRET_SETTING = 'totpSecret';

/** Wrong codes are counted per account over this long (TOTP_MAX_FAILURES of them lock the factor). */
const CODE_WINDOW_SECONDS = 3600;

const TOTP_PATTERN = /^\d{6}$/;

export type LoginFactorCheck = 'not_enabled' | 'accepted' | 'required' | 'wrong';

/** TOTP_MAX_FAILURES wrong codes per account lock the factor for TOTP_LOCKOUT_SECONDS. */
export interface CodeLock {
  maxFailures: number;
  lockoutSeconds: number;
}

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The 30-second step a code belongs to, when it is one of the current window's; null otherwise. */
function stepOf(totp: TOTP, code: string): number | null {
  const clean = code.replace(/\s+/g, '');
  if (!TOTP_PATTERN.test(clean)) return null;
  const delta = totp.validate({ token: clean, window: WINDOW });
  return delta === null ? null : totp.counter() + delta;
}

/** Lower-case, without spaces and dashes: a code read aloud or copied with its dash is the same code. */
const normaliseRecoveryCode = (code: string) => code.toLowerCase().replace(/[\s-]+/g, '');
const hashRecoveryCode = (userId: string, code: string) =>
  createHash('sha256')
    .update(`${userId}:${normaliseRecoveryCode(code)}`)
    .digest('hex');

function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

const tooManyCodes = (retryAfterSeconds: number) =>
  new AppError('rate_limit_exceeded', accountsMessages.tooManyTotpAttempts, { headers: { 'retry-after': String(retryAfterSeconds) } });
const wrongCode = () => new AppError('invalid_request_error', accountsMessages.totpInvalid, { param: 'code', code: errorCodes.totpInvalid });

export interface TwoFactorDeps {
  db: Database;
  box: SecretBox;
  throttle: Throttle;
  lock: CodeLock;
  /** The owner is mailed when the factor goes on or off, a recovery code is used, or the factor locks. */
  notices: Pick<SecurityNotices, 'tell'>;
  /** ADMIN_EMAILS: an account with one of these addresses turns the factor on only once it is admin. */
  adminEmails: readonly string[];
}

export function createTwoFactor({ db, box, throttle, lock, notices, adminEmails }: TwoFactorDeps) {
  // Every code checked for an account counts here (login, reset, the signed-in routes), whichever client
  // address it came from: the password is already proven, so no fresh-address exemption applies.
  const codeDelay: GrowingDelay = { freeAttempts: lock.maxFailures, maxDelaySeconds: lock.lockoutSeconds, windowSeconds: CODE_WINDOW_SECONDS, fixed: true };

  async function secretRow(userId: string) {
    const [row] = await db.select().from(twoFactorSecrets).where(eq(twoFactorSecrets.userId, userId)).limit(1);
    return row ?? null;
  }

  /**
   * Refuses the factor to a listed address whose holder has not taken the account over yet (see the top):
   * the holder's verification form must stay usable without anyone else's code.
   */
  async function refuseUnprovenAdminAddress(userId: string): Promise<void> {
    if (adminEmails.length === 0) return;
    const [user] = await db.select({ email: users.email, role: users.role }).from(users).where(eq(users.id, userId)).limit(1);
    if (user && adminEmails.includes(user.email) && user.role !== 'admin') {
      throw new AppError('conflict', accountsMessages.totpNeedsConfirmedAddress);
    }
  }

  /**
   * Takes the code's step as the last one used, only if it is later than the last: one statement, so two
   * parallel logins with the same code cannot both pass.
   */
  async function claimStep(userId: string, step: number): Promise<boolean> {
    const claimed = await db
      .update(twoFactorSecrets)
      .set({ lastUsedStep: step })
      .where(
        and(
          eq(twoFactorSecrets.userId, userId),
          isNotNull(twoFactorSecrets.enabledAt),
          or(isNull(twoFactorSecrets.lastUsedStep), lt(twoFactorSecrets.lastUsedStep, step)),
        ),
      )
      .returning({ userId: twoFactorSecrets.userId });
    return claimed.length > 0;
  }

  /** Uses up a recovery code: deleting its row is what makes it one-time. The owner is told. */
  async function useRecoveryCode(userId: string, code: string): Promise<boolean> {
    if (normaliseRecoveryCode(code).length !== 10) return false;
    const used = await db
      .delete(twoFactorRecoveryCodes)
      .where(and(eq(twoFactorRecoveryCodes.userId, userId), eq(twoFactorRecoveryCodes.codeHash, hashRecoveryCode(userId, code))))
      .returning({ userId: twoFactorRecoveryCodes.userId });
    if (used.length === 0) return false;
    notices.tell(userId, 'recovery_code_used');
    return true;
  }

  /** A current TOTP code (not used before) or an unused recovery code of an enabled factor. */
  async function acceptEnabledCode(userId: string, secretSealed: string, code: string): Promise<boolean> {
    const step = stepOf(totpFor(box.open(secretSealed, SECRET_SETTING), userId), code);
    if (step !== null) return claimStep(userId, step);
    return useRecoveryCode(userId, code);
  }

  /**
   * Counts a code attempt before it is checked, as if it were going to be wrong, so parallel guesses cannot
   * all be checked; while the factor is locked every code is refused (429). Answers the attempt's number.
   */
  async function reserveAttempt(userId: string): Promise<number> {
    const verdict = await throttle.reserve('two_factor_code', userId, codeDelay);
    if (!verdict.allowed) throw tooManyCodes(verdict.retryAfterSeconds);
    return verdict.hits;
  }
  /** A right code proves the factor: the count starts over. */
  const codeAccepted = (userId: string) => throttle.reset('two_factor_code', userId);
  /** A wrong code stays counted; the one that locks the factor tells the owner (once per lock). */
  const codeRefused = (userId: string, attempt: number) => {
    if (attempt === codeDelay.freeAttempts) notices.tell(userId, 'two_factor_locked');
  };

  /** Checks a code of the enabled factor, counted and locked as above. */
  async function checkEnabledCode(userId: string, secretSealed: string, code: string): Promise<boolean> {
    const attempt = await reserveAttempt(userId);
    if (await acceptEnabledCode(userId, secretSealed, code)) {
      await codeAccepted(userId);
      return true;
    }
    codeRefused(userId, attempt);
    return false;
  }

  return {
    async status(userId: string): Promise<{ enabled: boolean }> {
      const row = await secretRow(userId);
      return { enabled: row?.enabledAt != null };
    },

    /**
     * A new secret waiting for its first code (any earlier pending one is replaced). Refused while the
     * factor is on: replacing its secret would be switching it off without a code.
     */
    async setup(userId: string): Promise<{ secret: string; otpauthUrl: string; qrSvg: string }> {
      const existing = await secretRow(userId);
      if (existing?.enabledAt) throw new AppError('conflict', accountsMessages.totpAlreadyEnabled);
      await refuseUnprovenAdminAddress(userId);
      const secret = new Secret({ size: 20 }).base32;
      const sealed = box.seal(secret);
      const replaced = await db
        .insert(twoFactorSecrets)
        .values({ userId, secretSealed: sealed })
        .onConflictDoUpdate({
          target: twoFactorSecrets.userId,
          set: { secretSealed: sealed, lastUsedStep: null, createdAt: sql`now()` },
          // Enabled in the meantime by a parallel request: leave it alone.
          setWhere: isNull(twoFactorSecrets.enabledAt),
        })
        .returning({ userId: twoFactorSecrets.userId });
      if (replaced.length === 0) throw new AppError('conflict', accountsMessages.totpAlreadyEnabled);
      // The label the authenticator app shows beside the code: which account it is for.
      const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
      const otpauthUrl = totpFor(secret, user?.email ?? userId).toString();
      const qrSvg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      return { secret, otpauthUrl, qrSvg };
    },

    /** Switches the pending secret on with its first code; answers the recovery codes, the only time they are shown. */
    async enable(userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
      const row = await secretRow(userId);
      if (row?.enabledAt) throw new AppError('conflict', accountsMessages.totpAlreadyEnabled);
      if (!row) throw new AppError('invalid_request_error', accountsMessages.totpNotSetUp);
      // Again here: a secret set up before the address was listed must not be switched on either.
      await refuseUnprovenAdminAddress(userId);
      // Counted like every code (no mail: a factor being set up guards nothing yet).
      await reserveAttempt(userId);
      const step = stepOf(totpFor(box.open(row.secretSealed, SECRET_SETTING), userId), code);
      if (step === null) throw wrongCode();
      const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const enabled = await db.transaction(async (tx) => {
        const claimed = await tx
          .update(twoFactorSecrets)
          .set({ lastUsedStep: step, enabledAt: sql`now()` })
          .where(and(eq(twoFactorSecrets.userId, userId), isNull(twoFactorSecrets.enabledAt), eq(twoFactorSecrets.secretSealed, row.secretSealed)))
          .returning({ userId: twoFactorSecrets.userId });
        if (claimed.length === 0) return false;
        await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
        await tx.insert(twoFactorRecoveryCodes).values(codes.map((c) => ({ userId, codeHash: hashRecoveryCode(userId, c) })));
        return true;
      });
      // Another request enabled it, or set up a new secret, between the read and the claim.
      if (!enabled) throw new AppError('conflict', accountsMessages.totpAlreadyEnabled);
      await codeAccepted(userId);
      notices.tell(userId, 'two_factor_enabled');
      return { recoveryCodes: codes };
    },

    /** Switches the factor off with a current code or a recovery code; the recovery codes go with it. */
    async disable(userId: string, code: string): Promise<void> {
      const row = await secretRow(userId);
      if (!row?.enabledAt) throw new AppError('invalid_request_error', accountsMessages.totpNotEnabled);
      if (!(await checkEnabledCode(userId, row.secretSealed, code))) throw wrongCode();
      await db.transaction(async (tx) => {
        await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
        await tx.delete(twoFactorSecrets).where(eq(twoFactorSecrets.userId, userId));
      });
      notices.tell(userId, 'two_factor_disabled');
    },

    /**
     * The second step of login and of a mailed link that sets the password, after the password or the link
     * was proven: `not_enabled` (no factor, or one not confirmed yet), `required` (no code given),
     * `accepted`, or `wrong` (a wrong, used or stale code); a locked factor is a 429.
     */
    async checkAtLogin(userId: string, code: string | undefined): Promise<LoginFactorCheck> {
      const row = await secretRow(userId);
      if (!row?.enabledAt) return 'not_enabled';
      if (code === undefined || code.trim() === '') return 'required';
      return (await checkEnabledCode(userId, row.secretSealed, code)) ? 'accepted' : 'wrong';
    },
  };
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;
