// An amount in words, the way a Russian счёт or акт states its total under the figures: the whole units in
// words, the minor units in figures — «Одна тысяча двести тридцать четыре рубля 56 копеек». Pure, no I/O.

type Gender = 'masculine' | 'feminine';

/** Forms after 1 / 2–4 / 5–20 (and 0): «рубль, рубля, рублей». */
type Forms = readonly [one: string, few: string, many: string];

interface CurrencyWords {
  major: Forms;
  majorGender: Gender;
  minor: Forms;
}

const CURRENCIES: Readonly<Record<string, CurrencyWords>> = {
  RUB: { major: ['рубль', 'рубля', 'рублей'], majorGender: 'masculine', minor: ['копейка', 'копейки', 'копеек'] },
  USD: { major: ['доллар США', 'доллара США', 'долларов США'], majorGender: 'masculine', minor: ['цент', 'цента', 'центов'] },
  EUR: { major: ['евро', 'евро', 'евро'], majorGender: 'masculine', minor: ['цент', 'цента', 'центов'] },
};

const ONES_MASCULINE = ['', 'один', 'два', 'три', 'четыре', 'пять', 'шесть', 'семь', 'восемь', 'девять'];
const ONES_FEMININE = ['', 'одна', 'две', 'три', 'четыре', 'пять', 'шесть', 'семь', 'восемь', 'девять'];
const TEENS = ['десять', 'одиннадцать', 'двенадцать', 'тринадцать', 'четырнадцать', 'пятнадцать', 'шестнадцать', 'семнадцать', 'восемнадцать', 'девятнадцать'];
const TENS = ['', '', 'двадцать', 'тридцать', 'сорок', 'пятьдесят', 'шестьдесят', 'семьдесят', 'восемьдесят', 'девяносто'];
const HUNDREDS = ['', 'сто', 'двести', 'триста', 'четыреста', 'пятьсот', 'шестьсот', 'семьсот', 'восемьсот', 'девятьсот'];

/** Thousands are feminine («одна тысяча, две тысячи»), millions and billions masculine. */
const SCALES: readonly { forms: Forms; gender: Gender }[] = [
  { forms: ['тысяча', 'тысячи', 'тысяч'], gender: 'feminine' },
  { forms: ['миллион', 'миллиона', 'миллионов'], gender: 'masculine' },
  { forms: ['миллиард', 'миллиарда', 'миллиардов'], gender: 'masculine' },
];

/** The largest whole amount spelled: 999 999 999 999 (just under a trillion). */
export const MAX_WORDS_AMOUNT = 999_999_999_999n;

/** The form of a noun after `count`: 1, 21, 101 → one; 2–4, 22–24 → few; 0, 5–20, 11–14, 25 … → many. */
export function pluralForm(count: bigint, forms: Forms): string {
  const tens = count % 100n;
  const ones = count % 10n;
  if (tens >= 11n && tens <= 14n) return forms[2];
  if (ones === 1n) return forms[0];
  if (ones >= 2n && ones <= 4n) return forms[1];
  return forms[2];
}

/** 1…999 in words, in the noun's gender («одна», «две» for feminine). */
function triadWords(n: number, gender: Gender): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds) words.push(HUNDREDS[hundreds]!);
  if (rest >= 10 && rest < 20) words.push(TEENS[rest - 10]!);
  else {
    const tens = Math.floor(rest / 10);
    const ones = rest % 10;
    if (tens) words.push(TENS[tens]!);
    if (ones) words.push((gender === 'feminine' ? ONES_FEMININE : ONES_MASCULINE)[ones]!);
  }
  return words;
}

/** A whole number 0 … MAX_WORDS_AMOUNT in words, lower case, for a noun of `gender`: «одна тысяча один». */
export function numberInWords(value: bigint, gender: Gender = 'masculine'): string {
  if (value < 0n || value > MAX_WORDS_AMOUNT) throw new RangeError(`numberInWords: ${value} is outside 0…${MAX_WORDS_AMOUNT}`);
  if (value === 0n) return 'ноль';
  const words: string[] = [];
  for (let scale = SCALES.length; scale >= 0; scale--) {
    const triad = (value / 1000n ** BigInt(scale)) % 1000n;
    if (triad === 0n) continue;
    const level = scale === 0 ? null : SCALES[scale - 1]!;
    words.push(...triadWords(Number(triad), level ? level.gender : gender));
    if (level) words.push(pluralForm(triad, level.forms));
  }
  return words.join(' ');
}

/**
 * An amount in minor units (kopecks) as a document writes it: «Одна тысяча двести тридцать четыре рубля 56 копеек»,
 * «Ноль рублей 00 копеек». The currency's words when known (RUB, USD, EUR), else its code after the figures.
 */
export function amountInWords(minor: bigint, currency = 'RUB'): string {
  if (minor < 0n) throw new RangeError('amountInWords: a negative amount');
  const whole = minor / 100n;
  const cents = minor % 100n;
  const words = CURRENCIES[currency];
  const major = words ? `${numberInWords(whole, words.majorGender)} ${pluralForm(whole, words.major)}` : `${numberInWords(whole)} ${currency}`;
  const fraction = `${cents.toString().padStart(2, '0')}${words ? ` ${pluralForm(cents, words.minor)}` : ''}`;
  const text = `${major} ${fraction}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
