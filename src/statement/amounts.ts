// Money and dates as the closing documents print them: «1 234,50 ₽», «1 234,50», «30.11.2026», «30 ноября 2026 г.».
import { MONTH_NAMES_GENITIVE } from './texts';
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

/** «1 234,50»: kopecks, groups of three digits parted by no-break spaces; a document's table and totals. */
export function formatDocumentNumber(nano: bigint): string {
  const kopecks = roundToKopecks(nano);
  const negative = kopecks < 0n;
  const abs = negative ? -kopecks : kopecks;
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, NBSP);
  const fraction = (abs % 100n).toString().padStart(2, '0');
  return `${negative ? '−' : ''}${whole},${fraction}`;
}

/** «1 234,50 ₽»: the figures and the currency's sign after a no-break space. */
export function formatDocumentAmount(nano: bigint, currency: string): string {
  return `${formatDocumentNumber(nano)}${NBSP}${SYMBOLS[currency] ?? currency}`;
}

/** A day (YYYY-MM-DD) as «30.11.2026». */
export function formatDocumentDay(day: string): string {
  return `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
}

/** A day (YYYY-MM-DD) as a document's heading dates it: «30 ноября 2026 г.». */
export function formatDocumentDate(day: string): string {
  return `${Number(day.slice(8, 10))} ${MONTH_NAMES_GENITIVE[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)} г.`;
}
