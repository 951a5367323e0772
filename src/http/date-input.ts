// Dates and instants as clients write them, in query strings and bodies: zod only, so the dashboard's
// forms can use the same rules. JavaScript's Date takes more than PostgreSQL does — it rolls 2026-02-30
// over into March and holds years 0, -200000 and 275760, which PostgreSQL refuses, failing the query (a
// 500) when such a Date reaches it. So only ISO 8601 naming a day that exists, in years 0001–9999, passes.
import { z } from 'zod';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT = /^(\d{4}-\d{2}-\d{2})(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)?)?$/;
const MAX_INSTANT_LENGTH = 64;

/**
 * 0001-01-01T00:00:00Z, the earliest instant PostgreSQL and ISO 8601 both take: a period computed back
 * from a client's `to` (the default «30 days before») is clamped here rather than land in year 0.
 */
export const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00Z');

/** YYYY-MM-DD naming a day that exists, in years 0001–9999. */
export function isCalendarDay(text: string): boolean {
  const match = DAY.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (year < 1) return false;
  // setUTCFullYear, not Date.UTC: the latter reads years below 100 as 19xx.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * An ISO 8601 date (midnight UTC) or date and time (with an offset, or in this process's zone without
 * one, as Date reads it) whose day exists and whose instant falls in years 0001–9999 UTC.
 */
export function isIsoInstant(text: string): boolean {
  if (text.length > MAX_INSTANT_LENGTH) return false;
  const match = INSTANT.exec(text);
  if (!match || !isCalendarDay(match[1]!)) return false;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return false;
  const year = new Date(time).getUTCFullYear();
  return year >= 1 && year <= 9999;
}

/** A query's date filter (from, to): ISO 8601, parsed into a Date. */
export const isoInstantInput = z
  .string()
  .meta({
    format: 'date-time',
    description: 'ISO 8601: дата и время (2026-01-31T12:00:00Z) или дата (2026-01-31 — полночь UTC)',
    example: '2026-01-31T00:00:00Z',
  })
  .refine(isIsoInstant, 'ожидается дата в формате ISO 8601 (год от 0001 до 9999), например 2026-01-31 или 2026-01-31T12:00:00Z')
  .transform((s) => new Date(s));
