// Row identifiers are uuids: a lookup by anything else finds nothing, and must not reach SQL (PostgreSQL
// would refuse the cast with an error instead of answering "no such row").
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Identifiers are uuids; anything else cannot name a row and must not reach SQL as one. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
