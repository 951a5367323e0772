// Money and dates as the closing documents print them: «1 234,50 ₽», «1 234,50», «30.11.2026», «30 ноября 2026 г.».
import { MONTH_NAMES_GENITIVE } from './texts';
import { formatMoneyText, NANO_PER_UNIT } from '../money';

const KOPECK_NANO = NANO_PER_UNIT / 100n;

/** Nano-units rounded to whole kopecks, half away from zero. */
export function roundToKopecks(nano: bigint): bigint {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const kopecks = (abs + KOPECK_NANO / 2n) / KOPECK_NANO;
  return negative ? -kopecks : kopecks;
}

/** «1 234,50»: a document's table and totals in whole kopecks — the money formatter's number alone. */
export function formatDocumentNumber(nano: bigint): string {
  return formatMoneyText(roundToKopecks(nano) * KOPECK_NANO, undefined, 'amount');
}

/** «1 234,50 ₽»: the money formatter's text of the sum in whole kopecks (a document never prints less). */
export function formatDocumentAmount(nano: bigint, currency: string): string {
  return formatMoneyText(roundToKopecks(nano) * KOPECK_NANO, currency, 'amount');
}

/** A day (YYYY-MM-DD) as «30.11.2026». */
export function formatDocumentDay(day: string): string {
  return `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
}

/** A day (YYYY-MM-DD) as a document's heading dates it: «30 ноября 2026 г.». */
export function formatDocumentDate(day: string): string {
  return `${Number(day.slice(8, 10))} ${MONTH_NAMES_GENITIVE[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)} г.`;
}
