// REFERRAL_* as an operator sets them: defaults (off, 12 months, same domain allowed), a percent with up to
// four decimals kept exact, and what start-up refuses, naming the variable.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';

const dirs: string[] = [];
const load = (env: Record<string, string> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-referral-config-'));
  dirs.push(dir);
  return loadConfig({ JWT_SECRET: 'j'.repeat(40), ENCRYPTION_KEY: 'ab'.repeat(32), DATA_DIR: dir, ...env }).config.referral;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('REFERRAL_PERCENT, REFERRAL_MONTHS, REFERRAL_SAME_DOMAIN', () => {
  test('defaults: payouts off, 12 months, same domain allowed', () => {
    expect(load()).toEqual({ percent: 0, shareMillionths: 0n, months: 12, sameDomain: 'allow' });
  });

  test('a percent with up to four decimals is kept exact in millionths', () => {
    expect(load({ REFERRAL_PERCENT: '7.5', REFERRAL_MONTHS: '6', REFERRAL_SAME_DOMAIN: 'refuse' })).toEqual({
      percent: 7.5,
      shareMillionths: 75_000n,
      months: 6,
      sameDomain: 'refuse',
    });
    expect(load({ REFERRAL_PERCENT: '3.3333' }).shareMillionths).toBe(33_333n);
    expect(load({ REFERRAL_PERCENT: '100' }).shareMillionths).toBe(1_000_000n);
  });

  test('start-up refuses a percent out of range or too precise, months out of range, an unknown domain rule', () => {
    for (const [name, value] of [
      ['REFERRAL_PERCENT', '-1'],
      ['REFERRAL_PERCENT', '100.5'],
      ['REFERRAL_PERCENT', '7.12345'],
      ['REFERRAL_PERCENT', 'пять'],
      ['REFERRAL_MONTHS', '0'],
      ['REFERRAL_MONTHS', '1.5'],
      ['REFERRAL_SAME_DOMAIN', 'maybe'],
    ] as const) {
      expect(() => load({ [name]: value })).toThrow(new RegExp(name));
    }
  });
});
