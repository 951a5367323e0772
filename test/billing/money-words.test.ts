// The amount in words of the счёт and the акт (issue 41 point 6): whole rubles in words with the right gender
// and plural forms, kopecks in figures with theirs, up to hundreds of billions.
import { describe, expect, test } from 'bun:test';
import { amountInWords, MAX_WORDS_AMOUNT, numberInWords, pluralForm } from '../../src/money-words';

const rub = (rubles: bigint | number, kopecks = 0) => amountInWords(BigInt(rubles) * 100n + BigInt(kopecks));

describe('numberInWords', () => {
  test('zero, units, teens, tens, hundreds', () => {
    expect(numberInWords(0n)).toBe('ноль');
    expect(numberInWords(1n)).toBe('один');
    expect(numberInWords(2n)).toBe('два');
    expect(numberInWords(5n)).toBe('пять');
    expect(numberInWords(10n)).toBe('десять');
    const teens = ['одиннадцать', 'двенадцать', 'тринадцать', 'четырнадцать', 'пятнадцать', 'шестнадцать', 'семнадцать', 'восемнадцать', 'девятнадцать'];
    for (let n = 11; n <= 19; n++) expect(numberInWords(BigInt(n))).toBe(teens[n - 11]!);
    expect(numberInWords(20n)).toBe('двадцать');
    expect(numberInWords(21n)).toBe('двадцать один');
    expect(numberInWords(40n)).toBe('сорок');
    expect(numberInWords(99n)).toBe('девяносто девять');
    expect(numberInWords(100n)).toBe('сто');
    expect(numberInWords(101n)).toBe('сто один');
    expect(numberInWords(111n)).toBe('сто одиннадцать');
    expect(numberInWords(240n)).toBe('двести сорок');
    expect(numberInWords(999n)).toBe('девятьсот девяносто девять');
  });

  test('the gender of the noun counted: один рубль but одна копейка, два рубля but две копейки', () => {
    expect(numberInWords(1n, 'feminine')).toBe('одна');
    expect(numberInWords(2n, 'feminine')).toBe('две');
    expect(numberInWords(22n, 'feminine')).toBe('двадцать две');
    expect(numberInWords(3n, 'feminine')).toBe('три');
  });

  test('thousands are feminine, millions and billions masculine, empty groups left out', () => {
    expect(numberInWords(1_000n)).toBe('одна тысяча');
    expect(numberInWords(2_000n)).toBe('две тысячи');
    expect(numberInWords(5_000n)).toBe('пять тысяч');
    expect(numberInWords(11_000n)).toBe('одиннадцать тысяч');
    expect(numberInWords(21_000n)).toBe('двадцать одна тысяча');
    expect(numberInWords(1_000_000n)).toBe('один миллион');
    expect(numberInWords(2_000_000n)).toBe('два миллиона');
    expect(numberInWords(1_001_001n)).toBe('один миллион одна тысяча один');
    expect(numberInWords(12_000_000n)).toBe('двенадцать миллионов');
    expect(numberInWords(1_000_000_000n)).toBe('один миллиард');
    expect(numberInWords(3_000_000_001n)).toBe('три миллиарда один');
    expect(numberInWords(MAX_WORDS_AMOUNT)).toBe(
      'девятьсот девяносто девять миллиардов девятьсот девяносто девять миллионов девятьсот девяносто девять тысяч девятьсот девяносто девять',
    );
  });

  test('outside 0 … 999 999 999 999 is refused rather than spelled wrong', () => {
    expect(() => numberInWords(-1n)).toThrow(RangeError);
    expect(() => numberInWords(MAX_WORDS_AMOUNT + 1n)).toThrow(RangeError);
  });
});

describe('pluralForm', () => {
  const forms = ['рубль', 'рубля', 'рублей'] as const;
  test('1, 21, 101 → рубль; 2–4, 22, 104 → рубля; 0, 5–20, 111–114, 25 → рублей', () => {
    for (const n of [1, 21, 101, 1001, 31]) expect(pluralForm(BigInt(n), forms)).toBe('рубль');
    for (const n of [2, 3, 4, 22, 104, 1002]) expect(pluralForm(BigInt(n), forms)).toBe('рубля');
    for (const n of [0, 5, 10, 11, 12, 13, 14, 15, 19, 20, 25, 100, 111, 112, 114, 1000]) expect(pluralForm(BigInt(n), forms)).toBe('рублей');
  });
});

describe('amountInWords', () => {
  test('the accounting form: rubles in words, kopecks in figures, a capital first letter', () => {
    expect(rub(1234, 56)).toBe('Одна тысяча двести тридцать четыре рубля 56 копеек');
    expect(rub(0)).toBe('Ноль рублей 00 копеек');
    expect(rub(1)).toBe('Один рубль 00 копеек');
    expect(rub(2)).toBe('Два рубля 00 копеек');
    expect(rub(5)).toBe('Пять рублей 00 копеек');
    expect(rub(11)).toBe('Одиннадцать рублей 00 копеек');
    expect(rub(14)).toBe('Четырнадцать рублей 00 копеек');
    expect(rub(21)).toBe('Двадцать один рубль 00 копеек');
    expect(rub(101)).toBe('Сто один рубль 00 копеек');
    expect(rub(1_000)).toBe('Одна тысяча рублей 00 копеек');
    expect(rub(2_000)).toBe('Две тысячи рублей 00 копеек');
    expect(rub(1_000_000)).toBe('Один миллион рублей 00 копеек');
    expect(rub(1_001_001, 1)).toBe('Один миллион одна тысяча один рубль 01 копейка');
  });

  test('kopecks take their own plural form', () => {
    expect(rub(0, 1)).toBe('Ноль рублей 01 копейка');
    expect(rub(3, 2)).toBe('Три рубля 02 копейки');
    expect(rub(10, 11)).toBe('Десять рублей 11 копеек');
    expect(rub(7, 21)).toBe('Семь рублей 21 копейка');
    expect(rub(7, 44)).toBe('Семь рублей 44 копейки');
    expect(rub(7, 99)).toBe('Семь рублей 99 копеек');
  });

  test('other currencies: their nouns; an unknown code written after the number', () => {
    expect(amountInWords(150n, 'USD')).toBe('Один доллар США 50 центов');
    expect(amountInWords(2_201n, 'EUR')).toBe('Двадцать два евро 01 цент');
    expect(amountInWords(500n, 'KZT')).toBe('Пять KZT 00');
  });

  test('a negative amount is refused', () => {
    expect(() => amountInWords(-1n)).toThrow(RangeError);
  });
});
