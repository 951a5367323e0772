// Registration, login and the user behind a dashboard token.
import { eq, sql } from 'drizzle-orm';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../auth/passwords';
import type { JwtService } from '../auth/jwt';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { ledgerEntries, users } from '../db/schema';
import { AppError, isUniqueViolation } from '../http/errors';
import { errorMessages } from '../http/messages';
import { REGISTRATION_BONUS_NANO, nanoToUnits } from '../money';

export type Role = 'user' | 'admin';

export interface PublicUser {
  id: string;
  email: string;
  balance: number;
  role: Role;
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

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Identifiers are uuids; anything else cannot name a row and must not reach SQL as one. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const asRole = (stored: string): Role => (stored === 'admin' ? 'admin' : 'user');

function publicUser(row: { id: string; email: string; balanceNano: bigint; role: string }): PublicUser {
  return { id: row.id, email: row.email, balance: nanoToUnits(row.balanceNano), role: asRole(row.role) };
}

export interface AccountServiceDeps {
  db: Database;
  jwt: JwtService;
  config: Pick<Config, 'loginMaxFailures' | 'loginLockoutSeconds' | 'adminEmails'>;
}

export function createAccountService({ db, jwt, config }: AccountServiceDeps) {
  // ADMIN_EMAILS is the source of the role: applied at registration and again at every login, so adding
  // or removing an address takes effect the next time that person signs in.
  const roleFor = (normalisedEmail: string): Role => (config.adminEmails.includes(normalisedEmail) ? 'admin' : 'user');

  return {
    async register(email: string, password: string): Promise<SessionResult> {
      const normalised = normaliseEmail(email);
      const passwordHash = await hashPassword(password);
      let row: { id: string; email: string; balanceNano: bigint; role: string };
      try {
        row = await db.transaction(async (tx) => {
          const [user] = await tx
            .insert(users)
            .values({ email: normalised, passwordHash, balanceNano: REGISTRATION_BONUS_NANO, role: roleFor(normalised) })
            .returning({ id: users.id, email: users.email, balanceNano: users.balanceNano, role: users.role });
          await tx.insert(ledgerEntries).values({
            userId: user!.id,
            amountNano: REGISTRATION_BONUS_NANO,
            kind: 'registration_bonus',
          });
          return user!;
        });
      } catch (error) {
        if (isUniqueViolation(error, 'users_email_unique')) throw new AppError('conflict', errorMessages.emailTaken);
        throw error;
      }
      const token = await jwt.sign({ userId: row.id, email: row.email });
      return { user: publicUser(row), token };
    },

    async login(email: string, password: string): Promise<SessionResult> {
      const normalised = normaliseEmail(email);
      const [row] = await db
        .select({
          id: users.id,
          email: users.email,
          balanceNano: users.balanceNano,
          passwordHash: users.passwordHash,
          lockedUntil: users.lockedUntil,
          blockedAt: users.blockedAt,
        })
        .from(users)
        .where(eq(users.email, normalised))
        .limit(1);
      if (!row) {
        await burnPasswordCheck(password);
        throw new AppError('unauthorized', errorMessages.invalidCredentials);
      }
      const now = Date.now();
      if (row.lockedUntil && row.lockedUntil.getTime() > now) {
        const retryAfter = Math.ceil((row.lockedUntil.getTime() - now) / 1000);
        throw new AppError('rate_limit_exceeded', errorMessages.tooManyLoginAttempts, {
          headers: { 'retry-after': String(retryAfter) },
        });
      }
      if (!(await verifyPassword(row.passwordHash, password))) {
        // Every max failures in a row lock the account for the lockout period, then counting starts over.
        await db
          .update(users)
          .set({
            failedLogins: sql`case when ${users.failedLogins} + 1 >= ${config.loginMaxFailures} then 0 else ${users.failedLogins} + 1 end`,
            lockedUntil: sql`case when ${users.failedLogins} + 1 >= ${config.loginMaxFailures}
              then now() + make_interval(secs => ${config.loginLockoutSeconds}) else ${users.lockedUntil} end`,
          })
          .where(eq(users.id, row.id));
        throw new AppError('unauthorized', errorMessages.invalidCredentials);
      }
      const role = roleFor(normalised);
      await db.update(users).set({ failedLogins: 0, lockedUntil: null, role }).where(eq(users.id, row.id));
      // Only after the password matched: a blocked account must not tell strangers that the e-mail exists.
      if (row.blockedAt) throw new AppError('forbidden', errorMessages.accountBlocked);
      const token = await jwt.sign({ userId: row.id, email: row.email });
      return { user: publicUser({ ...row, role }), token };
    },

    /**
     * The user a dashboard token belongs to; a token of a deleted user is as good as a forged one. Role
     * and blocking are read from the row on every call, so a change applies to tokens already issued.
     */
    async userFromToken(token: string): Promise<TokenUser | null> {
      const claims = await jwt.verify(token);
      if (!claims || !isUuid(claims.userId)) return null;
      const [row] = await db
        .select({ id: users.id, email: users.email, role: users.role, blockedAt: users.blockedAt })
        .from(users)
        .where(eq(users.id, claims.userId))
        .limit(1);
      return row ? { id: row.id, email: row.email, role: asRole(row.role), blocked: row.blockedAt !== null } : null;
    },

    async getPublicUser(userId: string): Promise<PublicUser | null> {
      const [row] = await db
        .select({ id: users.id, email: users.email, balanceNano: users.balanceNano, role: users.role })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1);
      return row ? publicUser(row) : null;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
