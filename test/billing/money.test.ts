// Money as text: formatMoneyText for messages; nanoToDecimalString splits in doubles below 2^53 and in BigInts beyond; both give the
// exact decimal, checked against a BigInt-only rendering over boundary and random amounts and scales.
import { describe, expect, test } from 'bun:test';
import { formatMoneyText, type MoneyKind, NANO_PER_UNIT, nanoToDecimalString, unitsToNanoRounded } from '../../src/money';
import { formatPrice } from '../../web/src/integrations/price';
import { formatMoney } from '../../web/src/shared/format';

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

describe('formatMoneyText: the one money text of the server and the dashboard', () => {
  const nbsp = '\u00a0';
  const thin = '\u202f';
  const rub = (nano: bigint, kind?: MoneyKind) => formatMoneyText(nano, 'RUB', kind);

  test('an amount: two decimals rounded to the kopeck, digits grouped by a narrow no-break space, the sign after a no-break space', () => {
    expect(rub(1_599_499_970_375n)).toBe(`1${thin}599,50${nbsp}₽`);
    expect(rub(1_599_494_999_999n, 'amount')).toBe(`1${thin}599,49${nbsp}₽`);
    expect(rub(100_000n * NANO_PER_UNIT)).toBe(`100${thin}000,00${nbsp}₽`);
    expect(rub(1_234_567_890n * NANO_PER_UNIT)).toBe(`1${thin}234${thin}567${thin}890,00${nbsp}₽`);
    expect(rub(10n * NANO_PER_UNIT)).toBe(`10,00${nbsp}₽`);
    expect(rub(500_000_000n)).toBe(`0,50${nbsp}₽`);
    expect(rub(-3_504_999_999n)).toBe(`-3,50${nbsp}₽`);
    expect(rub(-3_505_000_000n)).toBe(`-3,51${nbsp}₽`);
    expect(rub(0n)).toBe(`0,00${nbsp}₽`);
    expect(formatMoneyText(1_500_500_000_000n, 'USD')).toBe(`1${thin}500,50${nbsp}$`);
    expect(formatMoneyText(-3_500_000_000n, 'EUR')).toBe(`-3,50${nbsp}€`);
    expect(formatMoneyText(0n, 'KZT')).toBe(`0,00${nbsp}KZT`);
    expect(formatMoneyText(1_500_500_000_000n, undefined)).toBe(`1${thin}500,50`);
  });

  test('an amount under half a kopeck keeps three significant digits instead of reading as zero', () => {
    expect(rub(10_000n)).toBe(`0,00001${nbsp}₽`);
    expect(rub(832_000n)).toBe(`0,000832${nbsp}₽`);
    expect(rub(4_999_999n)).toBe(`0,005${nbsp}₽`);
    expect(rub(5_000_000n)).toBe(`0,01${nbsp}₽`);
    expect(rub(-125_000n)).toBe(`-0,000125${nbsp}₽`);
  });

  test('a price per 1M tokens is an amount: two decimals, its every digit in `exact`', () => {
    expect(rub(125_000_000n)).toBe(`0,13${nbsp}₽`);
    expect(rub(125_000_000n, 'exact')).toBe(`0,125${nbsp}₽`);
    expect(rub(15n * NANO_PER_UNIT)).toBe(`15,00${nbsp}₽`);
    expect(rub(11_111_111_019n)).toBe(`11,11${nbsp}₽`);
    expect(rub(1_500n * NANO_PER_UNIT)).toBe(`1${thin}500,00${nbsp}₽`);
  });

  test('a cost: two decimals from one unit, below it three significant digits without trailing zeros', () => {
    expect(rub(500_000_000n, 'cost')).toBe(`0,50${nbsp}₽`);
    expect(rub(450_000n, 'cost')).toBe(`0,00045${nbsp}₽`);
    expect(rub(678_123n, 'cost')).toBe(`0,000678${nbsp}₽`);
    expect(rub(125n, 'cost')).toBe(`0,000000125${nbsp}₽`);
    expect(rub(999_500_000n, 'cost')).toBe(`1,00${nbsp}₽`);
    expect(rub(2_345_678_901n, 'cost')).toBe(`2,35${nbsp}₽`);
    expect(rub(0n, 'cost')).toBe(`0,00${nbsp}₽`);
  });

  test('exact: every digit the ledger keeps, at least two decimals', () => {
    expect(rub(502_987_488_125n, 'exact')).toBe(`502,987488125${nbsp}₽`);
    expect(rub(3n * NANO_PER_UNIT, 'exact')).toBe(`3,00${nbsp}₽`);
    expect(rub(1_599_499_970_375n, 'exact')).toBe(`1${thin}599,499970375${nbsp}₽`);
  });

  test('a JSON number in currency units reaches it exactly', () => {
    expect(unitsToNanoRounded(1.25e-7)).toBe(125n);
    expect(unitsToNanoRounded(1599.499970375)).toBe(1_599_499_970_375n);
    expect(unitsToNanoRounded(0.1 + 0.2)).toBe(300_000_000n);
  });
});

test('the dashboard reads the same texts from the JSON numbers the API answers', () => {
  const nbsp = '\u00a0';
  const thin = '\u202f';
  expect(formatMoney(1599.499970375, 'RUB', 'amount')).toBe(`1${thin}599,50${nbsp}₽`);
  expect(formatMoney(0.5, 'RUB', 'cost')).toBe(`0,50${nbsp}₽`);
  expect(formatMoney(1, 'RUB', 'amount')).toBe(`1,00${nbsp}₽`);
  expect(formatMoney(0.125, 'RUB', 'amount')).toBe(`0,13${nbsp}₽`);
  expect(formatMoney(0.125, 'RUB', 'exact')).toBe(`0,125${nbsp}₽`);
  expect(formatMoney(1.25e-7, 'RUB', 'cost')).toBe(`0,000000125${nbsp}₽`);
  expect(formatMoney(2.999999875, 'RUB', 'exact')).toBe(`2,999999875${nbsp}₽`);
  expect(formatMoney(2.999999875, undefined, 'amount')).toBe('3,00');
  expect(formatMoney(Number.NaN, 'RUB', 'amount')).toBe('—');
  expect(formatPrice(149_999, 'RUB')).toBe(`1${thin}499,99${nbsp}₽`);
  expect(formatPrice(1_000, 'usd')).toBe(`10,00${nbsp}$`);
});
