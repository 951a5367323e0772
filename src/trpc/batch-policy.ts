// What a /trpc batch may hold. tRPC runs every call of `/trpc/a,b,c?batch=1` in one request, so without a
// cap one request could register a thousand accounts or try a thousand passwords, and per-request limits
// in front of it would count it once.
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';

export const MAX_BATCH_CALLS = 10;

/** Calls that must arrive one per request, so that every per-request limit sees each of them. */
const UNBATCHABLE = new Set([
  'auth.register',
  'auth.login',
  'auth.resendVerification',
  'accountSecurity.requestPasswordReset',
  'accountSecurity.confirmPasswordReset',
  'auth.verifyEmail',
  'accountSecurity.changePassword',
]);

/**
 * The batch's refusal, or null when it may run. The procedure paths are read as tRPC reads them: after
 * the endpoint, percent-decoded (so `%2C` separates calls too), split on commas when `batch=1`. A lone
 * call in batch form is what the dashboard's batching client sends for a login, and is allowed.
 */
export function batchRefusal(request: Request, endpoint: string): AppError | null {
  const url = new URL(request.url);
  if (url.searchParams.get('batch') !== '1') return null;
  let path = url.pathname.slice(endpoint.length).replace(/^\/+|\/+$/g, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    return null; // tRPC answers a malformed path itself
  }
  const calls = path.split(',');
  if (calls.length > MAX_BATCH_CALLS) return new AppError('invalid_request_error', errorMessages.batchTooLarge(MAX_BATCH_CALLS));
  if (calls.length > 1 && calls.some((call) => UNBATCHABLE.has(call))) {
    return new AppError('invalid_request_error', errorMessages.batchedAuthMutation);
  }
  return null;
}
