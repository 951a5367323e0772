// The dashboard's phone formatter (web/src/dialogues/phone-format.ts): how the inbox and the transcript show a client's number.
import { expect, test } from 'bun:test';
import { formatPhone } from '../../web/src/dialogues/phone-format';

test('a Russian number in any common spelling reads «+7 916 123-45-67»', () => {
  for (const spelling of ['79161234567', '89161234567', '+7 (916) 123-45-67', '8 916 123 45 67', ' +7-916-123-45-67 ']) {
    expect(formatPhone(spelling)).toBe('+7 916 123-45-67');
  }
});

test('other numbers keep their digits, bare ones get a plus; text that is not a number is left alone', () => {
  expect(formatPhone('375291234567')).toBe('+375291234567');
  expect(formatPhone('+44 20 7946 0958')).toBe('+44 20 7946 0958');
  expect(formatPhone('7916123456')).toBe('+7916123456');
  expect(formatPhone('916 123 45 67 доб. 12')).toBe('916 123 45 67 доб. 12');
  expect(formatPhone('')).toBe('');
});
