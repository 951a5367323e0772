// What an upstream call that brought no usable answer means: a non-2xx answer (passed through, or 502) and a
// fetch that failed before an answer (timeout, client gone, unreachable), each with its usage status, its
// detail and whose fault it is.
import { AppError, errorCodes } from '../http/errors';
import type { Logger } from '../logger';
import type { UsageStatus } from './billing';
import { readUpstreamText } from './upstream-body';
import { faultEvidence, upstreamFault, type UpstreamFault } from './upstream-fault';
import { classifyFetchFailure, upstreamErrorInfo, type UpstreamFailureKind } from './upstream';

/** An upstream's error body read at most: an error message is a few hundred bytes. */
export const ERROR_BODY_BYTES = 64 * 1024;

/** The upstream's retry-after, when it sent a usable one (whole seconds). */
function retryAfterOf(response: Response): Record<string, string> {
  const value = response.headers.get('retry-after')?.trim();
  return value && /^\d{1,6}$/.test(value) ? { 'retry-after': value } : {};
}

export interface UpstreamRejection {
  /** How the usage row records it. */
  status: UsageStatus;
  /** The usage row's error text. */
  detail: string;
  /** What the client is told. */
  error: AppError;
  /** Whose fault it is (upstream-fault.ts): what, if anything, counts against the provider. */
  fault: UpstreamFault;
}

/**
 * What a non-2xx upstream answer means for the client: a 4xx to its request (a moderation refusal
 * included) passes through with the upstream's status, message, param and code; the operator's account
 * problems and 5xx become 502. Whose fault it is decides what counts against the provider (upstream-fault.ts).
 */
export async function readUpstreamRejection(response: Response, logger: Logger, requestId: string, redact: (text: string) => string): Promise<UpstreamRejection> {
  let text = '';
  try {
    text = await readUpstreamText(response, ERROR_BODY_BYTES);
  } catch {
    // The error body was lost (or is no error message: far too long); the status still tells what happened.
  }
  // Taken out before the message goes anywhere: the client, the usage row and the log.
  const redacted = redact(text);
  const info = upstreamErrorInfo(redacted);
  const fault = upstreamFault(response.status, faultEvidence(redacted));
  if (fault === 'account' || fault === 'unaffordable') {
    // The client hears 502 and the operator reads the detail in the log.
    if (fault === 'account') {
      logger.error('the upstream refused the operator’s credentials or account', {
        requestId,
        status: response.status,
        upstreamMessage: info?.message.slice(0, 500) ?? null,
      });
    }
    return {
      status: 'upstream_error',
      detail:
        fault === 'account'
          ? `upstream refused the operator's account (status ${response.status})`
          : `upstream account cannot afford this request (status ${response.status})`,
      error: new AppError('upstream_error'),
      fault,
    };
  }
  if (response.status >= 400 && response.status < 500 && response.status !== 408) {
    return {
      status: 'upstream_rejected',
      detail: info?.message.slice(0, 500) ?? `status ${response.status}`,
      error: AppError.passthrough(
        response.status,
        info?.message ?? `Сервис модели отклонил запрос (статус ${response.status})`,
        info?.type ?? 'invalid_request_error',
        // The upstream's own rate limit: its retry-after is the wait the client should keep.
        { param: info?.param ?? null, code: info?.code ?? null, headers: retryAfterOf(response) },
      ),
      fault,
    };
  }
  return {
    status: 'upstream_error',
    detail: info?.message.slice(0, 500) ?? `status ${response.status}`,
    // Anthropic's "overloaded": a Messages client is told so (529), an OpenAI one hears 502 as for any 5xx.
    error: new AppError('upstream_error', undefined, response.status === 529 ? { code: errorCodes.upstreamOverloaded } : {}),
    fault,
  };
}

/** A fetch of the upstream that failed before an answer: how it is recorded and what the client hears. */
export function fetchFailure(error: unknown, signal: AbortSignal): UpstreamRejection & { kind: UpstreamFailureKind } {
  const kind = classifyFetchFailure(error, signal);
  if (kind === 'timeout') {
    return { kind, status: 'upstream_timeout', detail: 'no response in time', error: new AppError('upstream_timeout'), fault: 'trouble' };
  }
  if (kind === 'client_closed') {
    return {
      kind,
      status: 'client_closed',
      detail: 'client closed before the upstream answered',
      error: new AppError('invalid_request_error', 'Клиент закрыл соединение'),
      fault: 'client',
    };
  }
  return {
    kind,
    status: 'upstream_error',
    detail: error instanceof Error ? error.message.slice(0, 200) : 'fetch failed',
    error: new AppError('upstream_error'),
    fault: 'trouble',
  };
}
