// Money and dates as the closing documents and the statement's file print them: «1 234,50 ₽», «30.11.2026».
import { formatMoneyText, NANO_PER_UNIT } from '../money';

const KOPECK_NANO = NANO_PER_UNIT / 100n;

/** Nano-units rounded to whole kopecks, half away from zero. */
export function roundToKopecks(nano: bigint): bigint {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const kopecks = (abs + KOPECK_NANO / 2n) / KOPECK_NANO;
  return negative ? -kopecks : kopecks;
}

/** «1 234,50 ₽»: the money formatter's text of the sum in whole kopecks (a document never prints less). */
export function formatDocumentAmount(nano: bigint, currency: string): string {
  return formatMoneyText(roundToKopecks(nano) * KOPECK_NANO, currency, 'amount');
}

/** A UTC day (YYYY-MM-DD, or the start of an ISO instant) as «30.11.2026». */
export function formatDocumentDay(day: string): string {
  return `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
}
