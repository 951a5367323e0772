// Sealed integration secrets (bot tokens, partner tokens, passwords): AES-256-CBC, then HMAC-SHA256
// over everything that is decrypted or used to pick a key. CBC is what the spec names; on its own it is
// malleable and open to padding oracles, so the MAC is checked (in constant time) before any byte is
// decrypted and a forged value fails exactly like a corrupted one.
//
// Sealed form: v1.<keyId>.<iv>.<ciphertext>.<tag>, the last three base64url. The key id travels with the
// value so a rotated ENCRYPTION_KEY can still open what the previous one sealed.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { fieldLabel } from '../http/field-labels';

const VERSION = 'v1';
const IV_BYTES = 16;
const TAG_BYTES = 32;
const KEY_ID_PATTERN = /^[0-9a-f]{8}$/;
const HEX_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
// Domain separation: the same ENCRYPTION_KEY must never serve as both the AES and the HMAC key, nor
// collide with any other use a later feature might make of it.
const HKDF_SALT = Buffer.from('conduit/secret-box', 'utf8');
const HKDF_INFO_ENC = Buffer.from('v1 aes-256-cbc', 'utf8');
const HKDF_INFO_MAC = Buffer.from('v1 hmac-sha256', 'utf8');

/** Why a value could not be opened; for logs only, the user sees the Russian message. */
export type SecretBoxFailure = 'malformed' | 'unknown_key' | 'bad_tag' | 'decrypt_failed';

/**
 * A sealed value could not be opened. The message names the setting so the user knows what to
 * re-enter; it never carries the sealed string, the plaintext or a key.
 */
export class SecretBoxError extends Error {
  override readonly name = 'SecretBoxError';
  readonly settingName: string;
  readonly reason: SecretBoxFailure;

  constructor(settingName: string, reason: SecretBoxFailure) {
    super(`Не удалось расшифровать настройку «${fieldLabel([settingName]) ?? settingName}»: ключ шифрования изменился или данные повреждены`);
    this.settingName = settingName;
    this.reason = reason;
  }
}

export interface SecretBoxKeys {
  /** ENCRYPTION_KEY: 64 hex characters (32 bytes). Everything is sealed with it. */
  current: string;
  /** Earlier keys, only to open values sealed before a rotation. */
  previous?: string[];
}

export interface SecretBox {
  seal(plain: string): string;
  /** `settingName` only labels the error (e.g. "botToken"). */
  open(sealed: string, settingName: string): string;
  /** Id of the current key, as embedded in every value it seals. */
  readonly keyId: string;
}

interface DerivedKey {
  id: string;
  enc: Buffer;
  mac: Buffer;
}

export function createSecretBox(keys: SecretBoxKeys): SecretBox {
  const current = deriveKey(keys.current, 'current');
  const byId = new Map<string, DerivedKey[]>();
  for (const key of [current, ...(keys.previous ?? []).map((hex, i) => deriveKey(hex, `previous[${i}]`))]) {
    const bucket = byId.get(key.id) ?? [];
    // The same key listed twice would only double the work on a failed open.
    if (!bucket.some((k) => k.enc.equals(key.enc))) bucket.push(key);
    byId.set(key.id, bucket);
  }

  return {
    keyId: current.id,

    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-cbc', current.enc, iv);
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const tag = computeTag(current, iv, ciphertext);
      return [VERSION, current.id, b64url(iv), b64url(ciphertext), b64url(tag)].join('.');
    },

    open(sealed, settingName) {
      const parsed = parse(sealed);
      if (!parsed) throw new SecretBoxError(settingName, 'malformed');
      const candidates = byId.get(parsed.keyId);
      if (!candidates) throw new SecretBoxError(settingName, 'unknown_key');

      // Ids are 32 bits, so two keys may share one; the tag tells which of them sealed the value.
      const key = candidates.find((k) => tagMatches(computeTag(k, parsed.iv, parsed.ciphertext), parsed.tag));
      if (!key) throw new SecretBoxError(settingName, 'bad_tag');

      try {
        const decipher = createDecipheriv('aes-256-cbc', key.enc, parsed.iv);
        const plain = Buffer.concat([decipher.update(parsed.ciphertext), decipher.final()]);
        return new TextDecoder('utf-8', { fatal: true }).decode(plain);
      } catch {
        // A valid tag means we sealed it, so this should not happen; node's own error text (which
        // may quote data) still never leaves.
        throw new SecretBoxError(settingName, 'decrypt_failed');
      }
    },
  };
}

/**
 * The one masking function for secrets on every read. `visible` leading characters stay readable
 * (the community access token shows 10); a value no longer than that is masked completely, and the
 * mask never depends on the value's length. An empty value stays empty so "not set" stays visible.
 */
export function maskSecret(value: string, visible = 0): string {
  const MASK = '••••••••';
  if (value === '') return '';
  const chars = Array.from(value);
  const shown = Math.max(0, Math.floor(visible));
  if (shown === 0 || chars.length <= shown) return MASK;
  return chars.slice(0, shown).join('') + MASK;
}

function deriveKey(hex: string, label: string): DerivedKey {
  // A bad key is a configuration error found at start-up, not a user-facing condition.
  if (!HEX_KEY_PATTERN.test(hex)) throw new Error(`secret box: ${label} key must be 64 hex characters (32 bytes)`);
  const raw = Buffer.from(hex, 'hex');
  return {
    id: createHash('sha256').update(raw).digest('hex').slice(0, 8),
    enc: Buffer.from(hkdfSync('sha256', raw, HKDF_SALT, HKDF_INFO_ENC, 32)),
    mac: Buffer.from(hkdfSync('sha256', raw, HKDF_SALT, HKDF_INFO_MAC, 32)),
  };
}

/** Header, IV and tag have fixed lengths, so plain concatenation cannot be ambiguous. */
function computeTag(key: DerivedKey, iv: Buffer, ciphertext: Buffer): Buffer {
  return createHmac('sha256', key.mac).update(`${VERSION}.${key.id}.`, 'utf8').update(iv).update(ciphertext).digest();
}

function tagMatches(expected: Buffer, actual: Buffer): boolean {
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function parse(sealed: string): { keyId: string; iv: Buffer; ciphertext: Buffer; tag: Buffer } | null {
  if (typeof sealed !== 'string') return null;
  const parts = sealed.split('.');
  if (parts.length !== 5) return null;
  const [version, keyId, ivText, ctText, tagText] = parts as [string, string, string, string, string];
  if (version !== VERSION || !KEY_ID_PATTERN.test(keyId)) return null;
  const iv = fromB64url(ivText);
  const ciphertext = fromB64url(ctText);
  const tag = fromB64url(tagText);
  if (!iv || !ciphertext || !tag) return null;
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) return null;
  if (ciphertext.length === 0 || ciphertext.length % 16 !== 0) return null;
  return { keyId, iv, ciphertext, tag };
}

function b64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/** Node's decoder skips junk silently; only the canonical spelling of some bytes is accepted. */
function fromB64url(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}
