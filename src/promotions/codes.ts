// Promo codes themselves: made from crypto randomness over an alphabet a person reads without doubt (no 0/O,
// 1/I), 16 characters = 80 bits, written in groups of four (XXXX-XXXX-XXXX-XXXX); found by the SHA-256 of
// their normalised form, so «xxxx xxxx-xxxx xxxx» typed by hand finds the same code.
import { randomBytes } from 'node:crypto';

/** 32 symbols: 5 bits each. */
export const CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_LENGTH = 16;
const GROUP = 4;

/** A fresh random code, grouped for reading. 32 divides 256, so a byte's low five bits are uniform. */
export function generateCode(): string {
  const bytes = randomBytes(CODE_LENGTH);
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) {
    if (i > 0 && i % GROUP === 0) code += '-';
    code += CODE_ALPHABET[bytes[i]! & 31];
  }
  return code;
}

/** What a code is compared by: upper case, without spaces and dashes (any Unicode dash or space). */
export function normaliseCode(typed: string): string {
  return typed.replace(/[\s\p{Pd}]+/gu, '').toUpperCase();
}

export function codeHash(typed: string): string {
  return Bun.CryptoHasher.hash('sha256', normaliseCode(typed), 'hex');
}
