// Numbers and dates as a Russian reader expects them.
import { currencySign, formatMoneyText, type MoneyKind, unitsToNanoRounded } from '@server/money';

export type { MoneyKind };

const integer = new Intl.NumberFormat('ru-RU');
const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });
const dayMonth = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit' });

/**
 * A sum in currency units (a JSON number from the API) as the server's one money formatter writes it:
 * «1 599,50 ₽» for an `amount` (a balance, a payment, a price per 1M tokens), «0,00045 ₽» for a request's `cost`,
 * every digit for `exact` (see MoneyKind in src/money.ts). Not a number: «—».
 */
export function formatMoney(value: number, currency: string | undefined, kind: MoneyKind): string {
  if (!Number.isFinite(value)) return '—';
  return formatMoneyText(unitsToNanoRounded(value), currency, kind);
}
export const formatInt = (value: number) => integer.format(value);
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatDay = (day: string) => dayMonth.format(new Date(`${day}T00:00:00`));
const clock = new Intl.DateTimeFormat('ru-RU', { hour: '2-digit', minute: '2-digit' });
/** A moment as «14:05» in this browser's time zone. */
export const formatClock = (iso: string) => clock.format(new Date(iso));
const utcDate = new Intl.DateTimeFormat('ru-RU', { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric' });
/** A UTC calendar day (YYYY-MM-DD) as «23.11.2026», whatever this browser's time zone. */
export const formatUtcDay = (day: string) => utcDate.format(new Date(`${day}T00:00:00Z`));

/** The local calendar day of a timestamp, as YYYY-MM-DD. */
export function localDay(date: Date): string {
  const y = date.getFullYear();
  const m = String(date.getMonth() + 1).padStart(2, '0');
  const d = String(date.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}

/** «₽» for RUB, «$» for USD, «€» for EUR; any other currency by its code (the money formatter's own signs). */
export const currencySymbol = currencySign;

/** An ISO moment as the value of an <input type="datetime-local"> in this browser's time zone. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  return `${localDay(d)}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/**
 * The value of an <input type="datetime-local"> (local time) as an ISO moment; '' → undefined. Text the
 * browser would not take is passed on as it is, for the server's schema to name the expected format.
 */
export function fromLocalInput(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

const exact = new Intl.NumberFormat('ru-RU', { maximumFractionDigits: 9 });
/** A price per 1M tokens to the nano-unit the server keeps: «0,125», «11,111111019», «90». */
export const formatExact = (value: number) => exact.format(value);

/**
 * A decimal text times 10^digits, done on the digits so nothing is lost: ("0.0000001234567891", 6) →
 * "0.1234567891". Text that is not a plain decimal comes back as it is.
 */
export function shiftDecimal(text: string, digits: number): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return text;
  const [, sign, whole, fraction = ''] = match;
  const all = whole! + fraction.padEnd(digits, '0');
  const point = whole!.length + digits;
  const intPart = all.slice(0, point).replace(/^0+(?=\d)/, '');
  const fracPart = all.slice(point).replace(/0+$/, '');
  return `${sign}${intPart}${fracPart ? `.${fracPart}` : ''}`;
}

const localStart = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit' });

/**
 * Where a key limit's period began (always a UTC midnight), in this browser's time, no «UTC» jargon: «период с 03:00»
 * for a day (in Moscow), with the date for a week or a month («период с 01.11, 03:00»; a day that began the evening
 * before here names that evening's date).
 */
export function periodStartText(iso: string, reset: 'day' | 'week' | 'month'): string {
  const at = new Date(iso);
  // West of Greenwich a UTC midnight is the evening before: then the local day is named too.
  const sameDay = at.getDate() === at.getUTCDate();
  return `период с ${reset === 'day' && sameDay ? formatClock(iso) : localStart.format(at)}`;
}
