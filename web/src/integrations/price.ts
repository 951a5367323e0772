// Shop prices: integer minor units (kopecks, cents) on the wire, roubles with kopecks on the screen.
// What the owner types is parsed as a decimal string, digit by digit, so 1499,99 is 149999 exactly —
// never 1499.99 * 100, which a float makes 149998.99999999997.
import { formatMoneyText, NANO_PER_UNIT } from '@server/money';

const MINOR_DIGITS = 2;
/** 149999, 'RUB' → «1 499,99 ₽»: hundredths as nano-units, through the one money formatter. */
export function formatPrice(minor: number, currency: string): string {
  return formatMoneyText(BigInt(minor) * (NANO_PER_UNIT / 100n), currency.toUpperCase(), 'amount');
}

/** 149999 → «1499,99»: the form field's value for a stored price. */
export function minorToInput(minor: number): string {
  const abs = Math.abs(minor);
  return `${minor < 0 ? '-' : ''}${Math.floor(abs / 100)},${String(abs % 100).padStart(MINOR_DIGITS, '0')}`;
}

export const PRICE_FORMAT_ERROR = 'Цена: укажите сумму цифрами, копейки — не больше двух знаков после запятой, например 1 499,90';

/**
 * «1 499,9», «1499.90» or «1499» → minor units; spaces (also non-breaking) group thousands, a comma or a
 * point separates kopecks. Anything else, a sign included, is an error for the form.
 */
export function parsePrice(text: string): { ok: true; minor: number } | { ok: false; message: string } {
  const compact = text.replace(/[\s\u00a0\u202f]/g, '');
  const match = /^(\d+)(?:[.,](\d{0,2}))?$/.exec(compact);
  if (!match) return { ok: false, message: compact === '' ? 'Цена: укажите цену товара' : PRICE_FORMAT_ERROR };
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[2] ?? '').padEnd(MINOR_DIGITS, '0');
  // Beyond 15 digits a double is no longer exact; the schema's upper bound refuses such a price anyway.
  if (whole.length > 13) return { ok: false, message: 'Цена: слишком большая цена' };
  return { ok: true, minor: Number(whole) * 100 + Number(fraction) };
}
