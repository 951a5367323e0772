// Money is kept in integer nano-units (1e-9 of the balance currency); floats appear only in JSON output.

export const NANO_PER_UNIT = 1_000_000_000n;

/** Renders nano-units as a JSON number in currency units (2999999875n → 2.999999875). */
export function nanoToUnits(nano: bigint): number {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = abs / NANO_PER_UNIT;
  const frac = abs % NANO_PER_UNIT;
  // Building the decimal text first keeps the rendering as close as a double allows.
  const text = `${negative ? '-' : ''}${whole}.${frac.toString().padStart(9, '0')}`;
  return Number(text);
}

/** Cost of a number of tokens at a price per token in nano-units. */
export function tokensCostNano(tokens: number, tokenPriceNano: bigint): bigint {
  return BigInt(tokens) * tokenPriceNano;
}

/**
 * A decimal amount in currency units (a JSON number such as 100.5 or 1.25e-7) as exact nano-units, read
 * from its shortest decimal text rather than by binary multiplication; null when it is not a whole
 * number of nano-units or not finite.
 */
export function unitsToNano(value: number): bigint | null {
  if (!Number.isFinite(value)) return null;
  const [mantissa = '0', exponentText = '0'] = Math.abs(value).toExponential().split('e');
  const exponent = Number(exponentText);
  const [intPart = '0', fracPart = ''] = mantissa.split('.');
  const digits = BigInt(intPart + fracPart);
  const shift = exponent - fracPart.length + 9;
  let nano: bigint;
  if (shift >= 0) nano = digits * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) return null;
    nano = digits / divisor;
  }
  return value < 0 ? -nano : nano;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Nano-units as an exact decimal string in currency units ("2.999975", "100.00" keeps no trailing zeros: "100").
 * Every /v1 answer states its cost with it: below 2^53 the split into whole and fraction is done in doubles
 * (exact for such integers), without the four BigInts the general way makes.
 */
export function nanoToDecimalString(nano: bigint, scaleDigits = 9): string {
  const negative = nano < 0n;
  let whole: string;
  let fraction: string;
  if (nano <= MAX_SAFE && nano >= -MAX_SAFE && scaleDigits <= 15) {
    const abs = Math.abs(Number(nano));
    const unit = 10 ** scaleDigits;
    const rest = abs % unit;
    whole = String((abs - rest) / unit);
    fraction = rest === 0 ? '' : String(rest).padStart(scaleDigits, '0');
  } else {
    const abs = negative ? -nano : nano;
    const unit = 10n ** BigInt(scaleDigits);
    whole = (abs / unit).toString();
    fraction = (abs % unit).toString().padStart(scaleDigits, '0');
  }
  fraction = fraction.replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Nano-units as currency units with all nine decimals ("0.000001375", "100.000000000"): exact, and a column of them lines up. */
export function nanoToFixedString(nano: bigint): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  return `${negative ? '-' : ''}${abs / NANO_PER_UNIT}.${(abs % NANO_PER_UNIT).toString().padStart(9, '0')}`;
}

/** Signs of the currencies a balance is kept in; any other currency is written by its code. */
const CURRENCY_SIGNS: Readonly<Record<string, string>> = { RUB: '₽', USD: '$', EUR: '€' };

/** «₽» for RUB, «$» for USD, «€» for EUR; any other currency by its code. */
export const currencySign = (currency: string): string => CURRENCY_SIGNS[currency] ?? currency;

/** Between groups of three digits: a narrow no-break space («1 599,50»), as Russian typography sets it. */
export const DIGIT_GROUP_SPACE = '\u202f';
/** Between the number and the currency's sign: a no-break space, so «₽» never starts a line. */
export const SIGN_SPACE = '\u00a0';

/**
 * What a sum is, which decides how many decimals it is shown with:
 * - `amount`: balances, payments, credits, limits, thresholds, totals and prices per 1 million tokens (sums
 *   of whole-ruble scale) — two decimals, rounded to the kopeck (half away from zero): «1 599,50 ₽»,
 *   «0,13 ₽» for 0,125 (the exact price is `exact`, shown on hover). A sum that is not zero but under half a
 *   kopeck keeps three significant digits («0,00001 ₽»), so spending never reads as nothing.
 * - `cost`: a per-token cost, what one request cost — two decimals from one unit up, below it three
 *   significant digits without trailing zeros («0,50 ₽», «0,00045 ₽», «0,000000125 ₽ за токен»).
 * - `exact`: every digit the ledger keeps (at least two decimals): the text on hover beside a rounded sum.
 */
export type MoneyKind = 'amount' | 'cost' | 'exact';

const KOPECK_NANO = NANO_PER_UNIT / 100n;

/** A fraction below one unit (in nano-units) rounded to three significant digits, half up. */
function threeSignificant(nano: bigint): bigint {
  const digits = nano.toString().length;
  if (digits <= 3) return nano;
  const step = 10n ** BigInt(digits - 3);
  return ((nano + step / 2n) / step) * step;
}

/**
 * The one money text: nano-units as a Russian reader writes a sum — groups of three digits, a decimal comma,
 * the currency's sign after a no-break space («1 599,50 ₽», «0,000000125 ₽», «1 500,50 USD»); how many
 * decimals `kind` says. Without a currency, the number alone. Every sum the server writes (messages, mails,
 * PDFs) and the dashboard shows goes through it.
 */
export function formatMoneyText(nano: bigint, currency: string | undefined, kind: MoneyKind = 'amount'): string {
  const negative = nano < 0n;
  let abs = negative ? -nano : nano;
  let exact = kind === 'exact';
  if (kind === 'cost' && abs < NANO_PER_UNIT) {
    abs = threeSignificant(abs);
    exact = true;
  } else if (!exact) {
    const rounded = ((abs + KOPECK_NANO / 2n) / KOPECK_NANO) * KOPECK_NANO;
    if (rounded === 0n && abs !== 0n) {
      abs = threeSignificant(abs);
      exact = true;
    } else abs = rounded;
  }
  const whole = (abs / NANO_PER_UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, DIGIT_GROUP_SPACE);
  const nine = (abs % NANO_PER_UNIT).toString().padStart(9, '0');
  const fraction = exact ? nine.replace(/0+$/, '').padEnd(2, '0') : nine.slice(0, 2);
  const number = `${negative && abs !== 0n ? '-' : ''}${whole},${fraction}`;
  return currency ? `${number}${SIGN_SPACE}${currencySign(currency)}` : number;
}

/**
 * A JSON number in currency units (what the API answers) as exact nano-units, for formatMoneyText: read from
 * its shortest decimal text; a value with more than nine decimals (never one the server sends) is rounded.
 */
export function unitsToNanoRounded(value: number): bigint {
  return unitsToNano(value) ?? BigInt(Math.round(value * 1e9));
}
