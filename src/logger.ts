// Structured JSON logs, one object per line. Callers pass fields, never secrets.

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const DRIZZLE_PREFIX = 'Failed query:';
const MAX_DEPTH = 4;

/**
 * A database's message without the value it quotes at its end ('invalid input syntax for type uuid: "…"',
 * 'date/time field value out of range: "…"'): that value is one of the statement's parameters.
 * Quoted names in the middle (constraint "users_email_unique") stay.
 */
const withoutQuotedValue = (message: string) => message.replace(/: "[\s\S]*"$/, ': "…"');

/** The opening words of a statement, to tell which one failed (statements carry $n, never the values). */
const statementOpening = (query: string) => query.trim().slice(0, 120);

/**
 * Text that may hold Drizzle's "Failed query: <statement>\nparams: <values>" (a message passed on as a
 * string, a stack, a wrapping error's message): the parameters are cut off. Cheap when there is none.
 */
export function withoutSqlParameters(text: string): string {
  const at = text.indexOf(DRIZZLE_PREFIX);
  if (at < 0) return text;
  const params = text.indexOf('\nparams:', at);
  const statementEnd = params < 0 ? text.length : params;
  const statement = statementOpening(text.slice(at + DRIZZLE_PREFIX.length, Math.min(statementEnd, at + DRIZZLE_PREFIX.length + 400)));
  return `${text.slice(0, at)}${DRIZZLE_PREFIX} ${statement}`;
}

/** An error's message as it may be shown or stored elsewhere (a job's last error): no SQL parameters. */
export function safeErrorMessage(error: unknown): string {
  if (error instanceof Error) return safeError(error, 0).message as string;
  return withoutSqlParameters(String(error));
}

interface DriverError extends Error {
  code?: unknown;
  query?: unknown;
  params?: unknown;
  parameters?: unknown;
  cause?: unknown;
}

/**
 * An error as it is logged. Drizzle writes the statement and all its parameters (e-mails, key hashes,
 * webhook payloads, whole usage batches) into its message and keeps them in `params`; PGlite's and
 * postgres.js's own errors carry `params`/`parameters` and `query`, and their message may quote a value.
 * What is kept: the database's code and message, and the statement's opening words to tell which one
 * failed; any other error keeps name, message, code, stack and cause, with SQL parameters cut out of them.
 */
function safeError(value: DriverError, depth: number): Record<string, unknown> {
  if (value.message.startsWith(DRIZZLE_PREFIX)) {
    const cause = value.cause as DriverError | undefined;
    const newline = value.message.indexOf('\n');
    return {
      name: 'DatabaseError',
      code: typeof cause?.code === 'string' ? cause.code : undefined,
      message: typeof cause?.message === 'string' ? withoutQuotedValue(cause.message) : 'query failed',
      statement: statementOpening(value.message.slice(DRIZZLE_PREFIX.length, newline > 0 ? newline : DRIZZLE_PREFIX.length + 120)),
    };
  }
  if ('params' in value || 'parameters' in value || value.name === 'PostgresError') {
    return {
      name: 'DatabaseError',
      code: typeof value.code === 'string' ? value.code : undefined,
      message: withoutQuotedValue(value.message),
      ...(typeof value.query === 'string' ? { statement: statementOpening(value.query) } : {}),
    };
  }
  return {
    name: value.name,
    message: withoutSqlParameters(value.message),
    ...(typeof value.code === 'string' ? { code: value.code } : {}),
    stack: value.stack === undefined ? undefined : withoutSqlParameters(value.stack),
    ...(value.cause !== undefined && depth < MAX_DEPTH ? { cause: safeValue(value.cause, depth + 1) } : {}),
  };
}

/** Any field's value, with errors made safe wherever they sit in it (an object, an array, a cause). */
function safeValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return withoutSqlParameters(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return safeError(value, depth);
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => safeValue(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = safeValue(v, depth + 1);
  return out;
}

export function createLogger(
  level: Level | 'silent' = 'info',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Logger {
  const threshold = ORDER[level];
  const emit = (lvl: Level, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < threshold) return;
    const record: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = safeValue(v);
    let line: string;
    try {
      line = JSON.stringify(record, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    } catch {
      line = JSON.stringify({ time: record.time, level: lvl, msg, note: 'unserialisable fields' });
    }
    write(line);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}
