// Database failures a retry (now, or by the client in a moment) can cure, as opposed to a bad statement.

const RETRYABLE_CODES = new Set([
  '40P01', // deadlock detected
  '40001', // serialization failure
  '57P01', // admin shutdown (the server is restarting)
  '57P03', // cannot connect now (the server is starting)
  '53300', // too many connections
  '08000', // connection exception
  '08001', // could not establish a connection
  '08003', // connection does not exist
  '08006', // connection failure
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
]);

/** True when the error (possibly wrapped, e.g. by Drizzle) is a transient database failure. */
export function isTransientDatabaseError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RETRYABLE_CODES.has(code)) return true;
    // 57P04 database dropped, 3D000 database does not exist: not transient, fall through.
    if (e instanceof Error && /database system is (starting up|shutting down)|terminating connection|is not currently accepting connections/.test(e.message)) {
      return true;
    }
  }
  return false;
}
