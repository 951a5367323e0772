// argon2id password hashing (OWASP parameters: 19 MiB, 2 passes, 1 lane).
import { hash, verify, type Algorithm } from '@node-rs/argon2';

// Algorithm is a const enum in the typings, which isolatedModules cannot import as a value.
const ARGON2ID = 2 as Algorithm;
const OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same time as a real check for an e-mail nobody registered, so response timing does not
 * tell which e-mails have accounts.
 */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('conduit-dummy-password');
  await verifyPassword(await dummyHash, password);
}
