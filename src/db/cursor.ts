// Keyset paging over (created_at, id): the cursor carries PostgreSQL's own text of the instant, to the
// microsecond, because a JavaScript Date keeps milliseconds and rows sharing a truncated instant would
// fall between two pages.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { isIsoInstant } from '../http/date-input';
import { AppError } from '../http/errors';

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const BAD_CURSOR = 'Курсор страницы: некорректное значение, используйте nextCursor из предыдущего ответа';

export interface Cursor {
  createdAt: string;
  id: string;
}

/** The select expression whose value goes into the next cursor. */
export function cursorTime(column: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

export function encodeCursor(createdAt: string, id: string | number | bigint): string {
  return Buffer.from(`${createdAt}|${id}`).toString('base64url');
}

/** The largest PostgreSQL bigint: a longer run of digits fails the comparison in SQL, not here. */
const MAX_BIGINT = 9_223_372_036_854_775_807n;

/**
 * `idPattern` says what an id of this table looks like (digits, a uuid…). A cursor is the client's to
 * send, so everything PostgreSQL would refuse is refused here: an instant Date would roll over or that
 * lies outside years 0001–9999, an id of digits beyond bigint.
 */
export function decodeCursor(cursor: string, idPattern: RegExp): Cursor {
  const [at, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  if (!id || !idPattern.test(id) || !at || !CURSOR_TIME.test(at) || !isIsoInstant(at) || (/^\d+$/.test(id) && BigInt(id) > MAX_BIGINT)) {
    throw new AppError('invalid_request_error', BAD_CURSOR, { param: 'cursor' });
  }
  return { createdAt: at, id };
}

/** Rows after the cursor in newest-first order (`desc`) or oldest-first order. */
export function afterCursor(createdAtColumn: SQLWrapper, idColumn: SQLWrapper, cursor: Cursor, order: 'desc' | 'asc'): SQL {
  const at = sql`${cursor.createdAt}::timestamptz`;
  return order === 'desc'
    ? sql`(${createdAtColumn} < ${at} or (${createdAtColumn} = ${at} and ${idColumn} < ${cursor.id}))`
    : sql`(${createdAtColumn} > ${at} or (${createdAtColumn} = ${at} and ${idColumn} > ${cursor.id}))`;
}

/**
 * Splits `limit + 1` fetched rows into the page and the cursor of the next one (null at the end):
 * the extra row only tells that there is more.
 */
export function keysetPage<R extends { cursorAt: string }>(
  rows: R[],
  limit: number,
  idOf: (row: R) => string | number | bigint,
): { page: R[]; nextCursor: string | null } {
  const page = rows.length > limit ? rows.slice(0, limit) : rows;
  const last = page.at(-1);
  return { page, nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, idOf(last)) : null };
}
