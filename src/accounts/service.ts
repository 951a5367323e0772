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

export interface PublicUser {
  id: string;
  email: string;
  balance: number;
  role: 'user';
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

function publicUser(row: { id: string; email: string; balanceNano: bigint }): PublicUser {
  // Only the role 'user' is ever shown, whatever the stored value (the specification hides others).
  return { id: row.id, email: row.email, balance: nanoToUnits(row.balanceNano), role: 'user' };
}

export interface AccountServiceDeps {
  db: Database;
  jwt: JwtService;
  config: Pick<Config, 'loginMaxFailures' | 'loginLockoutSeconds'>;
}

export function createAccountService({ db, jwt, config }: AccountServiceDeps) {
  return {
    async register(email: string, password: string): Promise<SessionResult> {
      const normalised = normaliseEmail(email);
      const passwordHash = await hashPassword(password);
      let row: { id: string; email: string; balanceNano: bigint };
      try {
        row = await db.transaction(async (tx) => {
          const [user] = await tx
            .insert(users)
            .values({ email: normalised, passwordHash, balanceNano: REGISTRATION_BONUS_NANO })
            .returning({ id: users.id, email: users.email, balanceNano: users.balanceNano });
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
      await db.update(users).set({ failedLogins: 0, lockedUntil: null }).where(eq(users.id, row.id));
      const token = await jwt.sign({ userId: row.id, email: row.email });
      return { user: publicUser(row), token };
    },

    /** The user a dashboard token belongs to; a token of a deleted user is as good as a forged one. */
    async userFromToken(token: string): Promise<{ id: string; email: string } | null> {
      const claims = await jwt.verify(token);
      if (!claims || !isUuid(claims.userId)) return null;
      const [row] = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .where(eq(users.id, claims.userId))
        .limit(1);
      return row ?? null;
    },

    async getPublicUser(userId: string): Promise<PublicUser | null> {
      const [row] = await db
        .select({ id: users.id, email: users.email, balanceNano: users.balanceNano })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1);
      return row ? publicUser(row) : null;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
