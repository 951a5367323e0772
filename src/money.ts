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

/**
 * Nano-units as a Russian reader writes a sum, the way the dashboard shows it: «100 000,00 ₽», «0,00001 ₽»,
 * «1 500,50 USD» — thousands grouped by a no-break space, a decimal comma, at least two decimals and every
 * further digit that is not zero (a message never rounds what it promises), the currency's sign after a
 * no-break space. The one money text of every server message that names an amount.
 */
export function formatMoneyText(nano: bigint, currency: string): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = (abs / NANO_PER_UNIT).toString().replace(/\B(?=(\d{3})+(?!\d))/g, '\u00a0');
  const fraction = (abs % NANO_PER_UNIT).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${negative ? '-' : ''}${whole},${fraction}\u00a0${CURRENCY_SIGNS[currency] ?? currency}`;
}
