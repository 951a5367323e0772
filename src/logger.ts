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

function errorFields(value: unknown): unknown {
  if (value instanceof Error) {
    // Drizzle writes the statement and all its parameters (e-mails, key hashes, webhook payloads, whole
    // usage batches) into the message: keep only the database's own code and message, and the statement's
    // opening words to tell which one failed.
    if (value.message.startsWith('Failed query:')) {
      const cause = (value as { cause?: { code?: unknown; message?: unknown } }).cause;
      return {
        name: 'DatabaseError',
        code: typeof cause?.code === 'string' ? cause.code : undefined,
        message: typeof cause?.message === 'string' ? cause.message : 'query failed',
        statement: value.message.slice('Failed query:'.length, value.message.indexOf('\n') > 0 ? value.message.indexOf('\n') : 120).trim().slice(0, 120),
      };
    }
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(typeof code === 'string' ? { code } : {}), stack: value.stack };
  }
  return value;
}

export function createLogger(
  level: Level | 'silent' = 'info',
  base: LogFields = {},
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Logger {
  const threshold = ORDER[level];
  const emit = (lvl: Level, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < threshold) return;
    const record: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) record[k] = errorFields(v);
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
