// The upstream model host: an OpenAI-compatible API at UPSTREAM_BASE_URL, or Anthropic's Messages API
// (UPSTREAM_PROTOCOL, a provider's `protocol`).
import type { Config } from '../config';

export type UpstreamFailureKind = 'timeout' | 'client_closed' | 'unreachable';

/** Reasons passed to AbortController.abort, so a failed fetch can tell why it was aborted. */
export const ABORT_TIMEOUT = 'upstream_timeout';
export const ABORT_CLIENT_CLOSED = 'client_closed';

export function classifyFetchFailure(error: unknown, signal: AbortSignal): UpstreamFailureKind {
  if (signal.aborted) return signal.reason === ABORT_TIMEOUT ? 'timeout' : 'client_closed';
  void error;
  return 'unreachable';
}

export interface UpstreamErrorInfo {
  message: string;
  type: string;
  /** OpenAI's `param` and `code` (model_not_found…), relayed on /v1 as the upstream gave them. */
  param: string | null;
  code: string | null;
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : null);

/** The error an upstream put in its body (OpenAI shape, or a bare message), if any. */
export function upstreamErrorInfo(text: string): UpstreamErrorInfo | null {
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown; type?: unknown; param?: unknown; code?: unknown } | string;
      message?: unknown;
    };
    if (parsed && typeof parsed.error === 'object' && parsed.error && typeof parsed.error.message === 'string') {
      return {
        message: parsed.error.message,
        type: typeof parsed.error.type === 'string' && parsed.error.type ? parsed.error.type : 'invalid_request_error',
        param: stringOrNull(parsed.error.param),
        code: stringOrNull(parsed.error.code),
      };
    }
    if (typeof parsed.error === 'string') return { message: parsed.error, type: 'invalid_request_error', param: null, code: null };
    if (typeof parsed.message === 'string') return { message: parsed.message, type: 'invalid_request_error', param: null, code: null };
  } catch {
    // Not JSON: nothing to relay.
  }
  return null;
}

/** A bearer credential as an upstream may echo it: the scheme and the token after it. */
const BEARER_ECHO = /\bBearer\s+[^\s"'\\,;]+/gi;
const REDACTED = '[redacted]';

/**
 * Upstream text with our provider keys taken out: each configured key wherever it appears, and any
 * `Bearer …` an upstream echoes from our Authorization header (a proxy's 401 page, a debug message).
 * Applied wherever an upstream's message reaches a client, a usage row or the log.
 */
export function createRedactor(keys: readonly (string | undefined)[]): (text: string) => string {
  // Keys too short to be real would take out ordinary words.
  const secrets = keys.filter((key): key is string => typeof key === 'string' && key.length >= 8);
  return (text) => {
    let out = text;
    for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, REDACTED);
    return /bearer/i.test(out) ? out.replace(BEARER_ECHO, `Bearer ${REDACTED}`) : out;
  };
}

/** The API a provider speaks: OpenAI's chat completions, or Anthropic's Messages (gateway/anthropic/). */
export type Protocol = 'openai' | 'anthropic';

/** The Messages API version sent when the client named none. */
export const ANTHROPIC_VERSION = '2023-06-01';

/** What of an Anthropic client's headers a Messages provider gets: its API version and beta features. */
export interface AnthropicHeaders {
  version: string | null;
  beta: string | null;
}

export function createUpstream(config: Pick<Config, 'upstreamBaseUrl' | 'upstreamApiKey'> & { upstreamProtocol?: Protocol }) {
  const protocol: Protocol = config.upstreamProtocol ?? 'openai';
  const chatUrl = `${config.upstreamBaseUrl}/chat/completions`;
  const modelsUrl = `${config.upstreamBaseUrl}/models`;
  // Anthropic takes its key in x-api-key and wants the API version on every call, GET /models included.
  const credentials: Record<string, string> = {};
  if (protocol === 'anthropic') {
    credentials['anthropic-version'] = ANTHROPIC_VERSION;
    if (config.upstreamApiKey) credentials['x-api-key'] = config.upstreamApiKey;
  } else if (config.upstreamApiKey) credentials.authorization = `Bearer ${config.upstreamApiKey}`;
  const baseHeaders: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...credentials };
  const getHeaders: Record<string, string> = { accept: 'application/json', ...credentials };

  return {
    protocol,
    /** The upstream's text with our provider keys taken out (createRedactor). */
    redact: createRedactor([config.upstreamApiKey]),
    chatCompletions(body: string, signal: AbortSignal): Promise<Response> {
      return fetch(chatUrl, { method: 'POST', headers: baseHeaders, body, signal });
    },
    /** Anthropic's POST {base}/messages, with the client's API version and beta features when it named them. */
    messages(body: string, signal: AbortSignal, client: AnthropicHeaders | null): Promise<Response> {
      const headers = { ...baseHeaders };
      if (client?.version) headers['anthropic-version'] = client.version;
      if (client?.beta) headers['anthropic-beta'] = client.beta;
      return fetch(`${config.upstreamBaseUrl}/messages`, { method: 'POST', headers, body, signal });
    },
    models(signal: AbortSignal): Promise<Response> {
      return fetch(modelsUrl, { headers: getHeaders, signal });
    },
    embeddings(body: string, signal: AbortSignal): Promise<Response> {
      return fetch(`${config.upstreamBaseUrl}/embeddings`, { method: 'POST', headers: baseHeaders, body, signal });
    },
    responses(body: string, signal: AbortSignal): Promise<Response> {
      return fetch(`${config.upstreamBaseUrl}/responses`, { method: 'POST', headers: baseHeaders, body, signal });
    },
    /** GET or DELETE of a stored response; `search` (with its `?`) carries the client's query, such as `include[]`. */
    response(method: 'GET' | 'DELETE', id: string, search: string, signal: AbortSignal): Promise<Response> {
      const url = `${config.upstreamBaseUrl}/responses/${encodeURIComponent(id)}${search}`;
      return fetch(url, { method, headers: getHeaders, signal });
    },
  };
}

export type Upstream = ReturnType<typeof createUpstream>;
