// Invitation codes: short enough to read out, random enough that a guess names nobody (31^8 ≈ 8.5e11),
// url-safe, in one case so a code typed in capitals still matches.
import { randomInt } from 'node:crypto';

/** No 0/o, 1/l/i: a code read off a screen is typed back right. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const LENGTH = 8;

export function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** The stored form of a code someone sent, or null when it cannot be one (then it names nobody). */
export function normaliseReferralCode(sent: string): string | null {
  const code = sent.trim().toLowerCase();
  return /^[a-z0-9]{6,32}$/.test(code) ? code : null;
}
