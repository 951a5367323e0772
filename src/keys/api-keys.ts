// API key material: generation without modulo bias, SHA-256 hashing, format checks.
import { randomBytes } from 'node:crypto';

export const KEY_SERVICE_PREFIX = 'cdt-';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Length of the keyPrefix segment after `cdt-`. */
export const KEY_SEGMENT_LENGTH = 8;
/** Length of the secret tail, per the specification. */
export const KEY_SECRET_LENGTH = 32;
export const KEY_LENGTH = KEY_SERVICE_PREFIX.length + KEY_SEGMENT_LENGTH + KEY_SECRET_LENGTH;
const KEY_PATTERN = new RegExp(`^${KEY_SERVICE_PREFIX}[A-Za-z0-9]{${KEY_SEGMENT_LENGTH + KEY_SECRET_LENGTH}}$`);

// 248 = 4 × 62: bytes at or above it are dropped so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

export function randomAlphanumeric(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) {
        out += ALPHABET[byte % ALPHABET.length];
        if (out.length === length) break;
      }
    }
  }
  return out;
}

export interface GeneratedKey {
  key: string;
  keyPrefix: string;
  keyHash: string;
}

/**
 * Runs on every /v1 request: Bun's one-shot hasher, not node:crypto's createHash, whose Hash object (a
 * stream) left ~670 bytes of garbage a call, about 6 % of what a request allocates.
 */
export function hashApiKey(key: string): string {
  return Bun.CryptoHasher.hash('sha256', key, 'hex');
}

export function generateApiKey(): GeneratedKey {
  const keyPrefix = KEY_SERVICE_PREFIX + randomAlphanumeric(KEY_SEGMENT_LENGTH);
  const key = keyPrefix + randomAlphanumeric(KEY_SECRET_LENGTH);
  return { key, keyPrefix, keyHash: hashApiKey(key) };
}

export function looksLikeApiKey(token: string): boolean {
  return token.length === KEY_LENGTH && KEY_PATTERN.test(token);
}
