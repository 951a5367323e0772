// Numbers and dates as a Russian reader expects them.

const money = new Intl.NumberFormat('ru-RU', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
const integer = new Intl.NumberFormat('ru-RU');
const dateTime = new Intl.DateTimeFormat('ru-RU', { dateStyle: 'short', timeStyle: 'medium' });
const dayMonth = new Intl.DateTimeFormat('ru-RU', { day: '2-digit', month: '2-digit' });

/** A balance or cost in currency units: at least 2 decimals, up to the 6 a per-token price needs. */
export const formatMoney = (value: number) => money.format(value);
export const formatInt = (value: number) => integer.format(value);
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));
export const formatDay = (day: string) => dayMonth.format(new Date(`${day}T00:00:00`));

/** The local calendar day of a timestamp, as YYYY-MM-DD. */
export function localDay(date: Date): string {
  const y = date.getFullYear();
  const m = String(date.getMonth() + 1).padStart(2, '0');
  const d = String(date.getDate()).padStart(2, '0');
  return `${y}-${m}-${d}`;
}
