import { describe, expect, test } from 'bun:test';
import { createHash, randomBytes } from 'node:crypto';
import { createSecretBox, maskSecret, SecretBoxError } from '../../src/crypto/secret-box';

const KEY_A = 'a'.repeat(64);
const KEY_B = randomBytes(32).toString('hex');
const BOT_TOKEN = '7012345678:AAH4bT-k3eXampleToken_9zQwErTyUiOpAs';

function failure(fn: () => unknown): SecretBoxError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SecretBoxError);
    return err as SecretBoxError;
  }
  throw new Error('expected a SecretBoxError');
}

/** Replaces one character of a base64url segment with a different one that still decodes canonically. */
function flipSegment(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const segment = parts[index]!;
  const at = 2; // inside the first full 6-bit group: changes the bytes, keeps the canonical form
  const replacement = segment[at] === 'A' ? 'B' : 'A';
  parts[index] = segment.slice(0, at) + replacement + segment.slice(at + 1);
  return parts.join('.');
}

describe('secret box', () => {
  test('round trip, including non-ASCII and empty text', () => {
    const box = createSecretBox({ current: KEY_A });
    for (const plain of [BOT_TOKEN, 'пароль администратора ✓', '', 'x'.repeat(5000)]) {
      expect(box.open(box.seal(plain), 'botToken')).toBe(plain);
    }
  });

  test('sealed form is v1.<keyId>.<iv>.<ciphertext>.<tag> and does not contain the secret', () => {
    const box = createSecretBox({ current: KEY_A });
    const sealed = box.seal(BOT_TOKEN);
    expect(sealed).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(box.keyId).toBe(createHash('sha256').update(Buffer.from(KEY_A, 'hex')).digest('hex').slice(0, 8));
    expect(sealed.split('.')[1]).toBe(box.keyId);
    expect(sealed).not.toContain(BOT_TOKEN);
    expect(sealed).not.toContain(Buffer.from(BOT_TOKEN).toString('base64url'));
  });

  test('a fresh IV per value: the same plaintext seals differently every time', () => {
    const box = createSecretBox({ current: KEY_A });
    const sealed = new Set(Array.from({ length: 50 }, () => box.seal(BOT_TOKEN)));
    expect(sealed.size).toBe(50);
    const ivs = new Set([...sealed].map((s) => s.split('.')[2]));
    expect(ivs.size).toBe(50);
  });

  test.each([
    ['iv', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('a tampered %s is rejected with an error naming the setting', (_name, index) => {
    const box = createSecretBox({ current: KEY_A });
    const sealed = box.seal(BOT_TOKEN);
    const tampered = flipSegment(sealed, index);
    expect(tampered).not.toBe(sealed);
    const err = failure(() => box.open(tampered, 'botToken'));
    expect(err.message).toBe('Не удалось расшифровать настройку «Токен бота»: ключ шифрования изменился или данные повреждены');
    expect(err.settingName).toBe('botToken');
    expect(err.reason).toBe('bad_tag');
    expect(err.message).not.toContain(tampered);
    expect(err.message).not.toContain(BOT_TOKEN);
  });

  test('a key id swapped for another known key fails on the tag, not by decrypting under the wrong key', () => {
    const box = createSecretBox({ current: KEY_A, previous: [KEY_B] });
    const otherId = createSecretBox({ current: KEY_B }).keyId;
    const sealed = box.seal(BOT_TOKEN);
    const parts = sealed.split('.');
    parts[1] = otherId;
    const err = failure(() => box.open(parts.join('.'), 'partnerToken'));
    expect(err.reason).toBe('bad_tag');
    expect(err.message).toContain('«Токен партнёра YCLIENTS»');
  });

  test('an unknown key id, a wrong version and garbage are rejected the same way', () => {
    const box = createSecretBox({ current: KEY_A });
    const sealed = box.seal(BOT_TOKEN);
    const parts = sealed.split('.');
    const unknown = [parts[0], '00000000', ...parts.slice(2)].join('.');
    expect(failure(() => box.open(unknown, 'accessToken')).reason).toBe('unknown_key');
    expect(failure(() => box.open(sealed.replace(/^v1/, 'v2'), 'accessToken')).reason).toBe('malformed');
    for (const junk of ['', 'plain text', BOT_TOKEN, `${sealed}.x`, sealed.slice(0, -1), sealed.replace(/\.[^.]+$/, '.@@@')]) {
      const err = failure(() => box.open(junk, 'accessToken'));
      // The setting by the name its form shows, not its English key.
      expect(err.message).toContain('«Ключ доступа сообщества»');
      if (junk !== '') expect(err.message).not.toContain(junk);
    }
  });

  test('truncated ciphertext (a whole block removed) is rejected', () => {
    const box = createSecretBox({ current: KEY_A });
    const sealed = box.seal('x'.repeat(40));
    const parts = sealed.split('.');
    const ct = Buffer.from(parts[3]!, 'base64url');
    parts[3] = ct.subarray(16).toString('base64url');
    expect(failure(() => box.open(parts.join('.'), 'password')).reason).toBe('bad_tag');
  });

  test('rotation: values sealed under the old key open once it is listed in previous; new values use the new key', () => {
    const oldBox = createSecretBox({ current: KEY_A });
    const sealedOld = oldBox.seal(BOT_TOKEN);

    const rotated = createSecretBox({ current: KEY_B, previous: [KEY_A] });
    expect(rotated.open(sealedOld, 'botToken')).toBe(BOT_TOKEN);
    const resealed = rotated.seal(BOT_TOKEN);
    expect(resealed.split('.')[1]).toBe(rotated.keyId);
    expect(rotated.keyId).not.toBe(oldBox.keyId);
    expect(oldBox.open(sealedOld, 'botToken')).toBe(BOT_TOKEN);
  });

  test('a wrong key cannot open the value', () => {
    const sealed = createSecretBox({ current: KEY_A }).seal(BOT_TOKEN);
    const other = createSecretBox({ current: KEY_B });
    const err = failure(() => other.open(sealed, 'botToken'));
    expect(err.reason).toBe('unknown_key');
    expect(err.message).toBe('Не удалось расшифровать настройку «Токен бота»: ключ шифрования изменился или данные повреждены');
    expect(err.message).not.toContain(KEY_A);
    expect(err.message).not.toContain(KEY_B);
  });

  test('a key that is not 64 hex characters is refused at construction, without echoing it', () => {
    for (const bad of ['', 'abc', 'g'.repeat(64), 'a'.repeat(63), 'a'.repeat(66)]) {
      let message = '';
      try {
        createSecretBox({ current: bad });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain('64 hex');
      if (bad.length > 3) expect(message).not.toContain(bad);
    }
    expect(() => createSecretBox({ current: KEY_A, previous: ['nope'] })).toThrow(/previous\[0\]/);
  });

  test('upper- and lower-case spellings of a key are the same key', () => {
    const hex = `${'AbCdEf'.repeat(10)}abcd`;
    const sealed = createSecretBox({ current: hex.toUpperCase() }).seal('x');
    expect(createSecretBox({ current: hex.toLowerCase() }).open(sealed, 'x')).toBe('x');
  });
});

describe('maskSecret', () => {
  test('visible 0 gives a fixed mask that does not reveal the length', () => {
    expect(maskSecret('a')).toBe('••••••••');
    expect(maskSecret('x'.repeat(200))).toBe('••••••••');
    expect(maskSecret(BOT_TOKEN, 0)).toBe(maskSecret('short', 0));
  });

  test('keeps the first characters and masks the rest, whatever the length', () => {
    const token = `vk1.a.${'Z'.repeat(180)}`;
    expect(maskSecret(token, 10)).toBe('vk1.a.ZZZZ••••••••');
    expect(maskSecret(`${token}more`, 10)).toBe(maskSecret(token, 10));
  });

  test('never shows a value that is not longer than the visible part', () => {
    expect(maskSecret('0123456789', 10)).toBe('••••••••');
    expect(maskSecret('012', 10)).toBe('••••••••');
    expect(maskSecret('01234567890', 10)).toBe('0123456789••••••••');
  });

  test('counts characters, not UTF-16 halves, and leaves an unset (empty) value empty', () => {
    expect(maskSecret('😀😀😀😀', 2)).toBe('😀😀••••••••');
    expect(maskSecret('')).toBe('');
    expect(maskSecret('', 10)).toBe('');
  });
});
