// The documents' calendar: dates and month boundaries in Moscow time, as a Russian accountant reads them.
// Moscow keeps UTC+3 all year (no daylight saving since 2014), so a fixed offset gives the day in JavaScript;
// SQL names the zone.

/** The zone the SQL of the documents reads months in. */
export const DOCUMENT_TIME_ZONE = 'Europe/Moscow';
const MOSCOW_OFFSET_MS = 3 * 3_600_000;

/** The day in Moscow, YYYY-MM-DD. */
export const moscowDay = (at: Date) => new Date(at.getTime() + MOSCOW_OFFSET_MS).toISOString().slice(0, 10);

/** The month in Moscow, YYYY-MM. */
export const moscowMonth = (at: Date) => moscowDay(at).slice(0, 7);
