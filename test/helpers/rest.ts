// A typed REST client for tests: `rest(app.url, token).keys.create({ name })` sends what a client of the
// REST API sends (the procedure's OpenAPI method and path, path parameters from the input, a GET's or a
// DELETE's input as the query, anything else's as a JSON body) and reads the answer back the way `call`
// does. The request and answer types are the routers' own zod schemas (inferRouterInputs/Outputs), so a
// renamed field or a changed answer fails the typecheck of the tests that use it, not only their run.
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { appRouter, type AppRouter } from '../../src/trpc/router';
import { call } from './app';

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;

/** A procedure's input as the router's zod schema types it, e.g. RestInput<'agents', 'create'>. */
export type RestInput<R extends keyof Inputs, P extends keyof Inputs[R]> = Inputs[R][P];

/** The dashboard API's error answer (src/http/errors.ts), as a client reads it. */
export interface RestError {
  error: { message: string; type: string; code?: string };
}

/** An answer: `ok` (a 2xx) narrows `body` to the procedure's output, otherwise to the error body. */
export type RestAnswer<T> = { status: number; headers: Headers; text: string } & ({ ok: true; body: T } | { ok: false; body: RestError });

/** One procedure as a call: the input may be left out when the procedure takes none or only optional fields. */
type RestCall<I, O> = undefined extends I ? (input?: I) => Promise<RestAnswer<O>> : (input: I) => Promise<RestAnswer<O>>;

export type RestClient = {
  [R in keyof Inputs]: { [P in keyof Inputs[R]]: RestCall<Inputs[R][P], P extends keyof Outputs[R] ? Outputs[R][P] : never> };
};

interface OpenApiMeta {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
}

const routes = new Map<string, OpenApiMeta>(
  Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { openapi?: OpenApiMeta } } }>).flatMap(([name, procedure]) => {
    const openapi = procedure._def.meta?.openapi;
    return openapi ? [[name, openapi] as const] : [];
  }),
);

/** A query value as a URL carries it: repeated keys for a list, text for anything else. */
function appendQuery(query: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined) return;
  if (Array.isArray(value)) for (const item of value) appendQuery(query, name, item);
  else query.append(name, value instanceof Date ? value.toISOString() : String(value));
}

/** The URL and body a REST client sends for `input` to the route `openapi` describes. */
export function restRequest(openapi: OpenApiMeta, input: unknown): { path: string; body?: unknown } {
  const rest: Record<string, unknown> = input && typeof input === 'object' ? { ...(input as Record<string, unknown>) } : {};
  const path = openapi.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (rest[name] === undefined) throw new Error(`${openapi.method} ${openapi.path}: the input has no ${name}`);
    const value = String(rest[name]);
    delete rest[name];
    return encodeURIComponent(value);
  });
  if (openapi.method === 'GET' || openapi.method === 'DELETE') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(rest)) appendQuery(query, name, value);
    const search = query.toString();
    return { path: search ? `${path}?${search}` : path };
  }
  return { path, body: input === undefined ? undefined : rest };
}

/**
 * The REST API of the app at `base`, as the holder of `token` (a login JWT or an API key) calls it; `headers`
 * go with every request (X-Conduit-Organization: acting in an organisation).
 */
export function rest(base: string, token?: string, headers?: Record<string, string>): RestClient {
  return new Proxy({} as RestClient, {
    get: (_, router: string) =>
      new Proxy(
        {},
        {
          get: (__, procedure: string) => async (input?: unknown) => {
            const name = `${router}.${procedure}`;
            const openapi = routes.get(name);
            if (!openapi) throw new Error(`${name} has no REST route (no meta.openapi)`);
            const request = restRequest(openapi, input);
            const res = await call<unknown>(base, openapi.method, request.path, { token, body: request.body, headers });
            return { ...res, ok: res.status >= 200 && res.status < 300 };
          },
        },
      ),
  });
}

/** The output of a 2xx answer; any other answer fails the test with its status and error body. */
export function okBody<T>(answer: RestAnswer<T>): T {
  if (!answer.ok) throw new Error(`expected a 2xx answer, got ${answer.status} ${answer.text}`);
  return answer.body;
}

/** The error body of a refusal; a 2xx answer fails the test with what it returned. */
export function errorOf(answer: RestAnswer<unknown>): RestError['error'] {
  if (answer.ok) throw new Error(`expected a refusal, got ${answer.status} ${answer.text}`);
  return answer.body.error;
}
