// Cross-origin access (CORS_ORIGINS): browser pages on other origins calling /v1, and the dashboard API
// for origins the operator lists.
//
// /v1 authenticates with bearer keys only, never cookies, so `*` (the default) lets a page do no more than
// its key allows. The dashboard API also takes bearer tokens, but a page that holds a user's session is a
// different matter: it answers only origins listed by name, never `*`.
import { isOpenAiPath } from './errors';

/** Request headers a browser may send: the SDKs' own (x-stainless-*, openai-*, anthropic-*) and the ones we read (x-api-key on /v1/messages). */
const ALLOWED_HEADER =
  /^(authorization|content-type|accept|idempotency-key|x-request-id|x-conduit-cache|x-api-key|openai-[a-z0-9-]+|anthropic-[a-z0-9-]+|x-stainless-[a-z0-9-]+|trpc-[a-z0-9-]+)$/;

/**
 * Named in every preflight answer even when not asked for, so a cached answer covers the next request.
 * Allow-Headers takes no wildcards but a bare `*` (which never covers Authorization): the SDK's
 * x-stainless-* headers are listed, and any other of that family asked for is echoed back.
 */
const BASE_ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'idempotency-key',
  'x-request-id',
  'x-conduit-cache',
  'openai-organization',
  'openai-project',
  'openai-beta',
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
  'x-stainless-helper-method',
  'x-stainless-async',
];

/** Response headers a page's script may read: what the SDK and a careful client look at. */
const EXPOSE_HEADERS = [
  'x-request-id',
  'x-conduit-cost',
  'x-conduit-cache',
  'openai-processing-ms',
  'x-should-retry',
  'retry-after',
  'x-ratelimit-limit-requests',
  'x-ratelimit-remaining-requests',
  'x-ratelimit-reset-requests',
  'x-ratelimit-limit-tokens',
  'x-ratelimit-remaining-tokens',
  'x-ratelimit-reset-tokens',
].join(', ');

const V1_METHODS = 'GET, POST, DELETE, OPTIONS';
const DASHBOARD_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** Browsers clamp this (Chromium to 2 h); a day lets each keep what it can. */
const MAX_AGE_SECONDS = '86400';

const isDashboardPath = (path: string) => path === '/api' || path.startsWith('/api/') || path === '/trpc' || path.startsWith('/trpc/');

export function createCors(origins: readonly string[]) {
  const anyOrigin = origins.includes('*');
  const listed = new Set(origins.filter((o) => o !== '*'));

  /** The Access-Control-Allow-Origin value for this request, or null when it gets no CORS headers. */
  function allowOrigin(path: string, origin: string | null): string | null {
    if (origin === null) return null;
    if (isOpenAiPath(path)) {
      if (listed.has(origin)) return origin;
      return anyOrigin ? '*' : null;
    }
    if (isDashboardPath(path) && listed.has(origin)) return origin;
    return null;
  }

  function allowHeaders(requested: string | null): string {
    const names = new Set(BASE_ALLOW_HEADERS);
    for (const raw of (requested ?? '').split(',')) {
      const name = raw.trim().toLowerCase();
      if (ALLOWED_HEADER.test(name)) names.add(name);
    }
    return [...names].join(', ');
  }

  return {
    /**
     * The answer to a browser's preflight, or null when this is no preflight the service answers itself.
     * /v1 answers every preflight (204; without CORS headers when the origin is not allowed, which the
     * browser takes as a refusal); the dashboard API only those of listed origins, others go on to the
     * routes as before.
     */
    preflight(request: Request, path: string): Response | null {
      if (request.method !== 'OPTIONS' || !request.headers.has('access-control-request-method')) return null;
      const v1 = isOpenAiPath(path);
      const allowed = allowOrigin(path, request.headers.get('origin'));
      if (!v1 && allowed === null) return null;
      const headers = new Headers({ vary: 'Origin, Access-Control-Request-Headers' });
      if (allowed !== null) {
        headers.set('access-control-allow-origin', allowed);
        headers.set('access-control-allow-methods', v1 ? V1_METHODS : DASHBOARD_METHODS);
        headers.set('access-control-allow-headers', allowHeaders(request.headers.get('access-control-request-headers')));
        headers.set('access-control-max-age', MAX_AGE_SECONDS);
      }
      return new Response(null, { status: 204, headers });
    },

    /** Adds the CORS headers an actual (non-preflight) answer carries; headers must be mutable. */
    decorate(request: Request, path: string, response: Response): void {
      const allowed = allowOrigin(path, request.headers.get('origin'));
      if (allowed === null) return;
      response.headers.set('access-control-allow-origin', allowed);
      response.headers.set('access-control-expose-headers', EXPOSE_HEADERS);
      if (allowed !== '*') response.headers.append('vary', 'Origin');
    },

    /** Whether an answer to this request may get CORS headers (so the server makes its headers mutable). */
    applies(request: Request, path: string): boolean {
      return allowOrigin(path, request.headers.get('origin')) !== null;
    },
  };
}

export type Cors = ReturnType<typeof createCors>;
