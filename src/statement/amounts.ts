// Money and dates as the closing documents and the statement's file print them: «1 234,50 ₽», «30.11.2026».
import { NANO_PER_UNIT } from '../money';

const KOPECK_NANO = NANO_PER_UNIT / 100n;
const NBSP = '\u00a0';

/** Nano-units rounded to whole kopecks, half away from zero. */
export function roundToKopecks(nano: bigint): bigint {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const kopecks = (abs + KOPECK_NANO / 2n) / KOPECK_NANO;
  return negative ? -kopecks : kopecks;
}

const SYMBOLS: Record<string, string> = { RUB: '₽', USD: '$', EUR: '€' };

/** «1 234,50 ₽»: kopecks, groups of three digits and the currency's sign, parted by no-break spaces. */
export function formatDocumentAmount(nano: bigint, currency: string): string {
  const kopecks = roundToKopecks(nano);
  const negative = kopecks < 0n;
  const abs = negative ? -kopecks : kopecks;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, NBSP);
  const fraction = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '−' : ''}${whole},${fraction}${NBSP}${SYMBOLS[currency] ?? currency}`;
}

/** A UTC day (YYYY-MM-DD, or the start of an ISO instant) as «30.11.2026». */
export function formatDocumentDay(day: string): string {
  return `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
}
