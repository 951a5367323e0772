// tRPC's failures in the service's terms, for the /trpc formatter and the REST bridge: the one place that
// knows how tRPC wraps what a procedure throws. Everything else fails with http/errors.ts's AppError alone.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { AppError, type ErrorType, domainError, errorCodes, errorTypes, toAppError } from '../http/errors';
import { errorMessages } from '../http/messages';

/** tRPC's own refusals (no procedure of ours threw them) by the type they mean here. */
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

function ownFailure(error: TRPCError): AppError | undefined {
  if (error.code === 'PARSE_ERROR') return new AppError('invalid_request_error', errorMessages.malformedJson, { code: errorCodes.invalidJson });
  if (error.code === 'UNSUPPORTED_MEDIA_TYPE') return new AppError('invalid_request_error', errorMessages.unsupportedMediaType);
  if (error.code === 'NOT_FOUND' || error.code === 'METHOD_NOT_SUPPORTED') return new AppError('not_found', errorMessages.routeNotFound);
  const type = TRPC_CODE_TO_TYPE[error.code];
  // tRPC's own messages are English; only the type survives, the text comes from our table.
  return type ? new AppError(type, undefined, { cause: error }) : undefined;
}

/**
 * What a tRPC call failed with, as the service's error: the AppError (or failed schema) it wraps first,
 * then tRPC's own refusal by its code, then the database's or an unknown failure (http/errors.ts).
 * `procedure` (`agents.create`) names the form whose input failed, for its labels.
 */
export function trpcAppError(error: unknown, procedure?: string): AppError {
  const domain = domainError(error, procedure);
  if (domain) return domain;
  const own = error instanceof TRPCError ? ownFailure(error) : undefined;
  return own ?? toAppError(error, procedure);
}

/**
 * The tRPC code a failure answers with. tRPC wraps a thrown AppError as INTERNAL_SERVER_ERROR with the
 * AppError as its cause: the AppError's type names the code, as the table says. tRPC's own failures and
 * unknown crashes keep theirs.
 */
export function trpcCodeOf(error: TRPCError): TRPC_ERROR_CODE_KEY {
  return error.code === 'INTERNAL_SERVER_ERROR' && error.cause instanceof AppError ? errorTypes[error.cause.type].trpc : error.code;
}
