// One error class and one renderer: every failure leaves the service as {error:{message,type}}.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { ZodError, z } from 'zod';
import { isTransientDatabaseError } from '../db/transient';
import { errorMessages } from './messages';

// Validation messages reach users, so zod speaks Russian everywhere in the process.
z.config(z.locales.ru());

export const errorTypes = {
  invalid_request_error: { status: 400, trpc: 'BAD_REQUEST', message: errorMessages.invalidRequest },
  unauthorized: { status: 401, trpc: 'UNAUTHORIZED', message: errorMessages.unauthorized },
  insufficient_balance: { status: 402, trpc: 'PAYMENT_REQUIRED', message: errorMessages.insufficientBalance },
  forbidden: { status: 403, trpc: 'FORBIDDEN', message: errorMessages.forbidden },
  not_found: { status: 404, trpc: 'NOT_FOUND', message: errorMessages.notFound },
  conflict: { status: 409, trpc: 'CONFLICT', message: errorMessages.conflict },
  payload_too_large: { status: 413, trpc: 'PAYLOAD_TOO_LARGE', message: errorMessages.payloadTooLarge },
  rate_limit_exceeded: { status: 429, trpc: 'TOO_MANY_REQUESTS', message: errorMessages.rateLimited },
  upstream_error: { status: 502, trpc: 'BAD_GATEWAY', message: errorMessages.upstreamError },
  upstream_timeout: { status: 504, trpc: 'GATEWAY_TIMEOUT', message: errorMessages.upstreamTimeout },
  service_unavailable: { status: 503, trpc: 'SERVICE_UNAVAILABLE', message: errorMessages.serviceUnavailable },
  internal_error: { status: 500, trpc: 'INTERNAL_SERVER_ERROR', message: errorMessages.internal },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY; message: string }>;

export type ErrorType = keyof typeof errorTypes;

export interface ErrorBody {
  error: { message: string; type: string };
}

/**
 * The service's one error. It is a TRPCError so tRPC keeps it intact (status and all) when a
 * procedure throws it; raw handlers throw it too.
 */
export class AppError extends TRPCError {
  readonly type: ErrorType;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(type: ErrorType, message?: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    const def = errorTypes[type];
    super({ code: def.trpc, message: message ?? def.message, cause: options.cause });
    this.name = 'AppError';
    this.type = type;
    this.status = def.status;
    this.headers = options.headers ?? {};
  }

  /** An error whose status and body were decided elsewhere (an upstream 4xx passed through). */
  static passthrough(status: number, message: string, type: string): PassthroughError {
    return new PassthroughError(status, message, type);
  }
}

/** An upstream 4xx relayed to the client with its own status, message and type. */
export class PassthroughError extends AppError {
  readonly passStatus: number;
  readonly passType: string;
  constructor(status: number, message: string, type: string) {
    super('invalid_request_error', message);
    this.passStatus = status;
    this.passType = type;
  }
}

const TRPC_CODE_TO_TYPE: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorType>> = {
  PARSE_ERROR: 'invalid_request_error',
  BAD_REQUEST: 'invalid_request_error',
  UNPROCESSABLE_CONTENT: 'invalid_request_error',
  UNSUPPORTED_MEDIA_TYPE: 'invalid_request_error',
  UNAUTHORIZED: 'unauthorized',
  PAYMENT_REQUIRED: 'insufficient_balance',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'not_found',
  CONFLICT: 'conflict',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  TOO_MANY_REQUESTS: 'rate_limit_exceeded',
  BAD_GATEWAY: 'upstream_error',
  GATEWAY_TIMEOUT: 'upstream_timeout',
  SERVICE_UNAVAILABLE: 'service_unavailable',
};

/** Russian text for a zod failure: the first few issues with their field paths. */
export function describeZodError(error: ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join('.');
    // Messages written for a field often name it already ("priceMinor: …"): say it once.
    const named = issue.path.length > 0 && issue.message.startsWith(`${String(issue.path.at(-1))}:`);
    return path && !named ? `${path}: ${issue.message}` : issue.message;
  });
  return `${errorMessages.validationFailed}: ${parts.join('; ')}`;
}

function findCause<T>(error: unknown, match: (e: unknown) => e is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps anything thrown anywhere into the service's error; unknown failures become internal_error. */
export function toAppError(error: unknown): AppError {
  const app = findCause(error, (e): e is AppError => e instanceof AppError);
  if (app) return app;
  const zod = findCause(error, (e): e is ZodError => e instanceof ZodError);
  if (zod) return new AppError('invalid_request_error', describeZodError(zod), { cause: error });
  if (error instanceof TRPCError) {
    if (error.code === 'PARSE_ERROR') return new AppError('invalid_request_error', errorMessages.malformedJson);
    if (error.code === 'UNSUPPORTED_MEDIA_TYPE')
      return new AppError('invalid_request_error', errorMessages.unsupportedMediaType);
    if (error.code === 'NOT_FOUND' || error.code === 'METHOD_NOT_SUPPORTED')
      return new AppError('not_found', errorMessages.routeNotFound);
    const type = TRPC_CODE_TO_TYPE[error.code];
    // tRPC's own messages are English; only the type survives, the text comes from our table.
    if (type) return new AppError(type, undefined, { cause: error });
  }
  // The database is away for a moment (restart, failover, network): the client should come back shortly.
  if (isTransientDatabaseError(error)) {
    return new AppError('service_unavailable', undefined, { cause: error, headers: { 'retry-after': '5' } });
  }
  return new AppError('internal_error', undefined, { cause: error });
}

export function errorStatus(error: AppError): number {
  return error instanceof PassthroughError ? error.passStatus : error.status;
}

export function errorBody(error: AppError): ErrorBody {
  const type = error instanceof PassthroughError ? error.passType : error.type;
  return { error: { message: error.message, type } };
}

/** The one renderer of error responses. */
export function errorResponse(error: AppError, extraHeaders: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(errorBody(error)), {
    status: errorStatus(error),
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers, ...extraHeaders },
  });
}

/** True when a database error (possibly wrapped by Drizzle) is a unique-constraint violation. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = findCause(error, (e): e is { code: string; constraint_name?: string; constraint?: string } =>
    typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505',
  );
  if (!pg) return false;
  if (!constraint) return true;
  return (pg.constraint_name ?? pg.constraint) === constraint;
}
