// Whether PostgreSQL knows a time zone by name. This process (ICU) and PostgreSQL (its own copy of the tz
// database) disagree at the edges: US/Pacific-New, dropped from tzdata in 2020, is still a zone to ICU,
// and a name PostgreSQL does not know fails the whole query it is used in. Asked once per name.
import type { DatabaseHandle } from './client';

const answers = new WeakMap<object, Map<string, boolean>>();

/**
 * Callers check the name against Intl first, so the names asked about (and cached) are real zone names,
 * a few hundred at most.
 */
export async function databaseKnowsTimeZone(database: Pick<DatabaseHandle, 'query'>, name: string): Promise<boolean> {
  let known = answers.get(database);
  if (!known) answers.set(database, (known = new Map()));
  // PostgreSQL reads zone names case-insensitively.
  const key = name.toLowerCase();
  const cached = known.get(key);
  if (cached !== undefined) return cached;
  const [row] = await database.query<{ known: boolean }>('select exists (select 1 from pg_timezone_names where lower(name) = $1) as known', [key]);
  const answer = row?.known === true;
  known.set(key, answer);
  return answer;
}
