// The headers the OpenAI SDKs read on every /v1 answer, added in one place whatever route answered.
import { isAnthropicPath, pathOf } from '../http/errors';
import { requestIdOf } from '../http/request-id';
import { rateStandingOf, setRateLimitHeaders } from './rate-limit';

/**
 * x-should-retry overrides the SDKs' own guess from the status. A retry cannot fix a refused key, a
 * missing balance, a bad body or an unknown route, so those say false (the SDK would otherwise retry
 * nothing of these either, but other clients read it too); an overload, a limit or an upstream failure
 * says true. 408, 409 and 500 keep the SDKs' defaults: whether a retry helps depends on the case.
 */
export function shouldRetry(status: number): boolean | null {
  if (status === 429 || status === 502 || status === 503 || status === 504) return true;
  if (status >= 400 && status < 500 && status !== 408 && status !== 409) return false;
  return null;
}

/**
 * Adds openai-processing-ms (time until the headers, not the end of a stream), x-should-retry on errors
 * and, on the answer to a request whose key was checked, the x-ratelimit-* six. The headers must be mutable.
 */
export function decorateOpenAiResponse(request: Request, response: Response, startedMs: number): void {
  const headers = response.headers;
  headers.set('openai-processing-ms', String(Math.max(0, Math.round(performance.now() - startedMs))));
  const retry = shouldRetry(response.status);
  if (retry !== null) headers.set('x-should-retry', String(retry));
  // Anthropic's SDKs read the request id from `request-id`.
  if (isAnthropicPath(pathOf(request))) headers.set('request-id', requestIdOf(request));
  const standing = rateStandingOf(request);
  if (standing) setRateLimitHeaders(headers, standing);
}

/**
 * Sets the request id, and returns the response itself when its headers could take it, else a copy that
 * shares its body (headers of a relayed fetch Response are immutable) with the id set.
 */
export function withRequestId(response: Response, requestId: string): Response {
  try {
    response.headers.set('x-request-id', requestId);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set('x-request-id', requestId);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
