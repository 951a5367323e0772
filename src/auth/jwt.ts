// Dashboard session tokens: HS256 only, 24 h, subject = user id.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export const JWT_LIFETIME_SECONDS = 24 * 60 * 60;
const ALGORITHM = 'HS256';

export interface JwtClaims {
  userId: string;
  email: string;
}

export interface JwtService {
  sign(claims: JwtClaims): Promise<string>;
  /** Returns the claims, or null for any token that is malformed, forged, expired or of another algorithm. */
  verify(token: string): Promise<JwtClaims | null>;
}

export function createJwtService(secret: string, now: () => number = () => Date.now()): JwtService {
  const key = new TextEncoder().encode(secret);
  return {
    async sign({ userId, email }) {
      const issuedAt = Math.floor(now() / 1000);
      return new SignJWT({ email })
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
        return { userId: payload.sub, email: payload.email };
      } catch (error) {
        if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
        throw error;
      }
    },
  };
}
