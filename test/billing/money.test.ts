// Money as text: formatMoneyText for messages; nanoToDecimalString splits in doubles below 2^53 and in BigInts beyond; both give the
// exact decimal, checked against a BigInt-only rendering over boundary and random amounts and scales.
import { describe, expect, test } from 'bun:test';
import { formatMoneyText, NANO_PER_UNIT, nanoToDecimalString } from '../../src/money';

function reference(nano: bigint, scaleDigits: number): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const unit = 10n ** BigInt(scaleDigits);
  const fraction = (abs % unit).toString().padStart(scaleDigits, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${abs / unit}${fraction ? `.${fraction}` : ''}`;
}

describe('nanoToDecimalString', () => {
  test('the amounts answers and the dashboard show', () => {
    expect(nanoToDecimalString(5_750n)).toBe('0.00000575');
    expect(nanoToDecimalString(3_000_000_000n)).toBe('3');
    expect(nanoToDecimalString(2_999_975_000n)).toBe('2.999975');
    expect(nanoToDecimalString(-125n)).toBe('-0.000000125');
    expect(nanoToDecimalString(0n)).toBe('0');
    expect(nanoToDecimalString(125_000_000n, 15)).toBe('0.000000125');
  });

  test('equals the BigInt rendering at the 2^53 edge, beyond it and at random', () => {
    const edge = 2n ** 53n;
    const amounts = [1n, 999_999_999n, 1_000_000_000n, 1_000_000_001n, edge - 2n, edge - 1n, edge, edge + 1n, 10n ** 18n + 7n, 10n ** 30n];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 5_000; i++) amounts.push(BigInt(next()) * BigInt(next() % 5_000_000));
    let cases = 0;
    for (const amount of amounts) {
      for (const sign of [1n, -1n]) {
        for (const scale of [0, 1, 6, 9, 15, 16, 18]) {
          expect(nanoToDecimalString(amount * sign, scale)).toBe(reference(amount * sign, scale));
          cases += 1;
        }
      }
    }
    expect(cases).toBe(5_010 * 2 * 7);
  });
});

test('formatMoneyText writes a sum as the dashboard does: groups, a decimal comma, two decimals at least, the sign', () => {
  const nbsp = '\u00a0';
  expect(formatMoneyText(100_000n * NANO_PER_UNIT, 'RUB')).toBe(`100${nbsp}000,00${nbsp}₽`);
  expect(formatMoneyText(10n * NANO_PER_UNIT, 'RUB')).toBe(`10,00${nbsp}₽`);
  expect(formatMoneyText(10_000n, 'RUB')).toBe(`0,00001${nbsp}₽`);
  expect(formatMoneyText(502_987_488_125n, 'RUB')).toBe(`502,987488125${nbsp}₽`);
  expect(formatMoneyText(1_500_500_000_000n, 'USD')).toBe(`1${nbsp}500,50${nbsp}$`);
  expect(formatMoneyText(-3_500_000_000n, 'EUR')).toBe(`-3,50${nbsp}€`);
  expect(formatMoneyText(0n, 'KZT')).toBe(`0,00${nbsp}KZT`);
});
