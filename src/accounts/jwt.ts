// Dashboard session tokens: HS256 only, 24 h, subject = user id, `gen` = the user's sessions generation
// when issued (a token whose generation is behind the user's has been ended: accounts/token-users.ts).
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export const JWT_LIFETIME_SECONDS = 24 * 60 * 60;
const ALGORITHM = 'HS256';

export interface JwtClaims {
  userId: string;
  email: string;
  /** The user's sessions_generation at issue; tokens from before the claim existed count as 0. */
  generation: number;
  /** The sign-in's row (sessions.ts); tokens from before sessions were listed carry none. */
  sessionId?: string;
}

export interface JwtService {
  sign(claims: JwtClaims): Promise<string>;
  /** Returns the claims, or null for any token that is malformed, forged, expired or of another algorithm. */
  verify(token: string): Promise<JwtClaims | null>;
}

export function createJwtService(secret: string, now: () => number = () => Date.now()): JwtService {
  const key = new TextEncoder().encode(secret);
  return {
    async sign({ userId, email, generation, sessionId }) {
      const issuedAt = Math.floor(now() / 1000);
      return new SignJWT({ email, gen: generation, ...(sessionId ? { sid: sessionId } : {}) })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(userId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + JWT_LIFETIME_SECONDS)
        .sign(key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          currentDate: new Date(now()),
          requiredClaims: ['sub', 'exp'],
        });
        if (typeof payload.sub !== 'string' || typeof payload.email !== 'string') return null;
        const generation = payload.gen === undefined ? 0 : payload.gen;
        if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 0) return null;
        if (payload.sid !== undefined && typeof payload.sid !== 'string') return null;
        return { userId: payload.sub, email: payload.email, generation, ...(payload.sid ? { sessionId: payload.sid } : {}) };
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
        throw error;
      }
    },
  };
}
