// What a failed YCLIENTS call means to our caller, as one of the service's errors.
import { AppError } from '../../http/errors';
import { bookingMessages } from './texts';
import { YclientsApiError, YclientsNetworkError } from './client';

/**
 * `login`: the call checked credentials the user just gave (their mistake → 400).
 * `use`: the call served a request with stored settings (YCLIENTS' or the settings' fault → 502).
 */
export function bookingFailure(error: unknown, context: 'login' | 'use', companyId?: number): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof YclientsNetworkError) return new AppError('upstream_error', bookingMessages.bookingUnavailable, { cause: error });
  if (!(error instanceof YclientsApiError)) return new AppError('internal_error', undefined, { cause: error });
  switch (error.kind) {
    case 'auth':
      return context === 'login'
        ? new AppError('invalid_request_error', bookingMessages.bookingLoginRejected, { cause: error })
        : new AppError('upstream_error', bookingMessages.bookingAccessDenied, { cause: error });
    case 'not_found':
      return context === 'login' && companyId !== undefined
        ? new AppError('invalid_request_error', bookingMessages.bookingCompanyNotFound(companyId), { cause: error })
        : new AppError('invalid_request_error', bookingMessages.bookingNotFound, { cause: error });
    case 'slot_busy':
      return new AppError('conflict', bookingMessages.slotTaken, { cause: error });
    case 'validation':
      return new AppError('invalid_request_error', bookingMessages.bookingRejected(error.message.slice(0, 300)), { cause: error });
    case 'rate_limited':
      return new AppError('rate_limit_exceeded', bookingMessages.bookingRateLimited, {
        cause: error,
        headers: { 'retry-after': String(error.retryAfterSeconds ?? 5) },
      });
    default:
      return new AppError('upstream_error', bookingMessages.bookingUnavailable, { cause: error });
  }
}
