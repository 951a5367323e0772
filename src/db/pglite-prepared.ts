// Prepared statements on PGlite, for DatabaseHandle.query's `prepared` option. PGlite sends every query
// unnamed, so PostgreSQL parses, analyses and plans it again each time, and on PGlite that work runs on the
// server's own thread: the settlement batch statement (gateway/billing/rows.ts, ten CTEs over a partitioned
// table) cost more to plan than to run for the batches of a light load (bench/history/2026-11-29-pglite-tail.md).
// Here a statement is PREPAREd once in PGlite's one session and then run as EXECUTE, its parameters given
// as literals, since EXECUTE takes no bind parameters of its own.

/** What runs SQL on the one PGlite session. */
export interface PgliteSession {
  exec(text: string): Promise<unknown>;
  query<T>(text: string): Promise<{ rows: T[] }>;
}

/**
 * A parameter as an SQL literal: quoted text, which PostgreSQL reads with the input function of the type
 * the statement gave the parameter, as it reads a bound value. null when the value has no such form here
 * (the caller then runs the statement unprepared). Text is quoted by doubling its quotes, which is the
 * whole escaping a standard string needs: standard_conforming_strings is on (checked when the first
 * statement is prepared), so a backslash is an ordinary character.
 */
export function literal(value: unknown): string | null {
  if (value === null || value === undefined) return 'null';
  let text: string;
  if (typeof value === 'string') text = value;
  else if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    text = String(value);
  } else if (typeof value === 'bigint' || typeof value === 'boolean') text = String(value);
  else if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    text = value.toISOString();
  } else return null;
  // PostgreSQL text holds no NUL: left to the unprepared path, which refuses it as before.
  if (text.includes('\0')) return null;
  return `'${text.replaceAll("'", "''")}'`;
}

export function preparedStatements(session: PgliteSession) {
  /** Statement text → its name, once its PREPARE has succeeded (or while it runs). */
  const names = new Map<string, Promise<string>>();
  let checked: Promise<void> | null = null;

  const prepare = (text: string): Promise<string> => {
    let name = names.get(text);
    if (!name) {
      const id = `conduit_prepared_${names.size + 1}`;
      name = (async () => {
        checked ??= session.query<{ standard_conforming_strings: string }>('show standard_conforming_strings').then(({ rows }) => {
          if (rows[0]?.standard_conforming_strings !== 'on') throw new Error('standard_conforming_strings is off: parameters cannot be given as literals');
        });
        await checked;
        await session.exec(`prepare ${id} as ${text}`);
        return id;
      })();
      names.set(text, name);
      // A failed PREPARE is tried again next time (its error reaches this caller).
      name.catch(() => names.delete(text));
    }
    return name;
  };

  /** The rows of `text` run as a prepared statement; null when a parameter cannot be given as a literal. */
  return async function run<T>(text: string, params: unknown[]): Promise<T[] | null> {
    const literals: string[] = [];
    for (const value of params) {
      const l = literal(value);
      if (l === null) return null;
      literals.push(l);
    }
    const name = await prepare(text);
    const call = literals.length > 0 ? `execute ${name}(${literals.join(', ')})` : `execute ${name}`;
    return (await session.query<T>(call)).rows;
  };
}
