/**
 * The plumbing the outbound API clients (VK, Telegram, YCLIENTS, YooKassa) share: one HTTP call with a
 * per-call timeout that also honours a caller's signal, the classification of how it failed, and the
 * scrubbing of secrets out of anything that may reach an error message or a log. Each client keeps its
 * own error classes and wording; this module only decides the facts those are built from, so that the
 * four of them cannot drift apart (issue 14, point 7).
 */

export const REDACTED = '[redacted]';

/**
 * Replaces every given secret spelling with `[redacted]`. Spellings shorter than 3 characters are kept:
 * scrubbing "a" would mangle the whole text and protects nothing.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 3) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** JSON of an answer; null when the body is empty or not JSON (the caller classifies that itself). */
export function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why a call produced no HTTP answer. */
export interface CallFailure {
  /** Our own per-call timeout fired (the far side is slow or silent). */
  timedOut: boolean;
  /** The caller's signal aborted the call: nobody waits for the answer any more. */
  aborted: boolean;
  /** `Name: message` of the transport error, not yet redacted. */
  reason: string;
}

/** A call that got an HTTP answer, whatever its status. */
export interface CallAnswer {
  response: Response;
  status: number;
  text: string;
  /** Parsed JSON, or null when the body is empty or unparseable. */
  body: unknown;
  /** True when there was a body but it is not JSON (an HTML error page from a proxy, say). */
  unparseable: boolean;
}

export type CallOutcome = ({ ok: true } & CallAnswer) | ({ ok: false } & CallFailure);

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * One request: `timeoutMs` counts from here to the end of the body, so a server that sends headers and
 * then stalls still times out. Never throws for transport trouble: the caller turns the outcome into its
 * own error class, with its own wording.
 */
export async function httpCall(
  doFetch: FetchLike,
  url: string,
  init: Omit<RequestInit, 'signal'>,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CallOutcome> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await doFetch(url, { ...init, signal });
    const text = await response.text();
    const body = parseJson(text);
    return { ok: true, response, status: response.status, text, body, unparseable: body === null && text.trim() !== '' };
  } catch (cause) {
    return { ok: false, ...classifyFailure(cause, options.signal) };
  }
}

/**
 * How a fetch failed. A caller's abort is told apart from our timeout by the caller's own signal; before
 * this module every client counted any AbortError as a timeout, which stays so when no caller signal fired.
 */
export function classifyFailure(cause: unknown, callerSignal?: AbortSignal): CallFailure {
  const name = cause instanceof Error ? cause.name : '';
  const aborted = callerSignal?.aborted === true;
  const timedOut = !aborted && (name === 'TimeoutError' || name === 'AbortError');
  const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return { timedOut, aborted, reason };
}

/**
 * The message a client puts in its network error: `<what> did not answer within N ms` or
 * `<what> could not be reached (<reason>)`, the latter scrubbed since a transport error may quote the URL.
 */
export function failureMessage(what: string, failure: CallFailure, timeoutMs: number, secrets: Iterable<string>): string {
  if (failure.timedOut) return `${what} did not answer within ${timeoutMs} ms`;
  if (failure.aborted) return redact(`${what} was cancelled by the caller (${failure.reason})`, secrets);
  return redact(`${what} could not be reached (${failure.reason})`, secrets);
}

/**
 * Base of the clients' "could not be reached / did not answer" errors for REST APIs addressed by path
 * (YCLIENTS, YooKassa). Each client subclasses it under its own name, so `instanceof` and `name` stay
 * what the services match on. No `cause` on purpose: a transport error may quote a URL with a secret.
 */
export class HttpCallNetworkError extends Error {
  readonly method: string;
  /** Path relative to the base URL, without the query string. */
  readonly path: string;
  readonly timedOut: boolean;

  constructor(init: { message: string; method: string; path: string; timedOut: boolean }) {
    super(init.message);
    this.method = init.method;
    this.path = init.path;
    this.timedOut = init.timedOut;
  }
}
