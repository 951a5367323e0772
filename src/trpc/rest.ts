// Serves the tRPC router's OpenAPI-annotated procedures as REST under /api: a route is matched from the
// same meta the OpenAPI document is generated from, and the procedure is called through a tRPC caller
// with the request's input as sent.
//
// Why not trpc-to-openapi's request handlers (its document generator is still what src/openapi/document.ts uses):
// before each call they set `_def.coerce = true` on every number, boolean, bigint and date field of the
// procedure's input schema — for JSON bodies as well as query strings. `"false"` became true (a shop's
// payment secret was rotated by `rotateWebhookSecret: "false"`), `null`, `""` and `[5]` became 0 or 5,
// and because the flag is set on the shared zod schema, the typed /trpc path started coercing too.
// Undoing the flag after the call would race with concurrent calls; wrapping the schemas would hide
// them from the generator. So the input rules here are ours and explicit:
// - a JSON body must be an object and is validated as sent: a boolean is true or false, a number is a number;
// - query and path parameters arrive as strings, and a query schema that wants a number says so itself
//   (`z.coerce.number()` for a page limit); a repeated query parameter arrives as a list, which none takes.
import type { AnyTRPCRouter } from '@trpc/server';
import { AppError, renderError } from '../http/errors';
import { readBodyText } from '../http/body';
import { fieldNameOf } from '../http/field-labels';
import { assertJsonDepth } from '../http/json';
import { errorMessages } from '../http/messages';
import { trpcAppError } from './errors';
import { procedureMetas } from './meta';

export interface RestHandlerOptions<TContext> {
  router: AnyTRPCRouter;
  createContext: (req: Request) => TContext;
  bodyLimitBytes: number;
  onInternalError: (error: unknown, req: Request) => void;
}

interface Route {
  method: string;
  pattern: RegExp;
  /** Dotted tRPC path, e.g. `commerce.updateProduct`. */
  procedure: string[];
  /** False for a z.void() input: the procedure is called without one, whatever the request carries. */
  takesInput: boolean;
  successStatus: number;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);
const VOID_INPUTS = new Set(['void', 'undefined', 'never']);

/** `/api/agents/{id}` → a pattern with one named group per parameter (case-insensitive, as before). */
function pathPattern(path: string): RegExp {
  const normalized = `/${path.replace(/^\/|\/$/g, '')}`;
  const source = normalized
    .split(/(\{\w+\})/)
    .map((part) => (/^\{\w+\}$/.test(part) ? `(?<${part.slice(1, -1)}>[^/]+)` : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}

function takesInput(procedure: unknown): boolean {
  const inputs = (procedure as { _def: { inputs: { _zod?: { def?: { type?: string } } }[] } })._def.inputs;
  return inputs.length > 0 && !inputs.every((input) => VOID_INPUTS.has(input._zod?.def?.type ?? ''));
}

function routesOf(router: AnyTRPCRouter): Route[] {
  const procedures = router._def.procedures as Record<string, unknown>;
  return procedureMetas(router).flatMap(({ path, meta }) => {
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    return [
      {
        method: openapi.method,
        pattern: pathPattern(openapi.path),
        procedure: path.split('.'),
        takesInput: takesInput(procedures[path]),
        successStatus: meta.successStatus ?? 200,
      },
    ];
  });
}

/** Query parameters as strings; one given more than once as the list of its values. */
function queryInput(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

function pathInput(groups: Record<string, string> | undefined): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(groups ?? {})) {
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      throw new AppError('invalid_request_error', errorMessages.pathParameterInvalid(fieldNameOf(name)), { param: name });
    }
  }
  return params;
}

/** The JSON body as an object; an empty body is an empty object (a POST that only names its path). */
async function bodyInput(request: Request, limitBytes: number): Promise<Record<string, unknown>> {
  const contentType = request.headers.get('content-type');
  if (contentType && !contentType.toLowerCase().startsWith('application/json')) {
    throw new AppError('invalid_request_error', errorMessages.unsupportedMediaType);
  }
  const text = await readBodyText(request, limitBytes);
  if (text.trim() === '') return {};
  assertJsonDepth(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request_error', errorMessages.malformedJson);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('invalid_request_error', errorMessages.bodyNotObject);
  }
  return body as Record<string, unknown>;
}

/** The REST routes as templates (`/api/keys/{id}` → `/api/keys/:id`), for counting requests by route. */
export function restRouteTemplates(router: AnyTRPCRouter): { method: string; path: string }[] {
  return procedureMetas(router).flatMap(({ meta }) => {
    const openapi = meta?.openapi;
    if (!openapi || openapi.enabled === false) return [];
    return [{ method: openapi.method, path: `/${openapi.path.replace(/^\/|\/$/g, '')}`.replace(/\{(\w+)\}/g, ':$1') }];
  });
}

export function createRestHandler<TContext>(options: RestHandlerOptions<TContext>) {
  const routes = routesOf(options.router);

  /** `matched.procedure`: the route's tRPC path once known, so a validation error uses that form's labels. */
  async function respond(request: Request, matched: { procedure?: string }): Promise<Response> {
    const url = new URL(request.url);
    const path = `/${url.pathname.replace(/^\/|\/$/g, '')}`;
    let route: Route | undefined;
    let groups: Record<string, string> | undefined;
    for (const candidate of routes) {
      if (candidate.method !== request.method) continue;
      const match = candidate.pattern.exec(path);
      if (match) {
        route = candidate;
        groups = match.groups;
        break;
      }
    }
    if (!route) throw new AppError('not_found', errorMessages.routeNotFound);
    matched.procedure = route.procedure.join('.');

    // Path parameters win over body or query fields of the same name: the URL names the resource.
    const params = pathInput(groups);
    const fields = METHODS_WITH_BODY.has(request.method) ? await bodyInput(request, options.bodyLimitBytes) : queryInput(url);
    const input = route.takesInput ? { ...fields, ...params } : undefined;

    let target: unknown = options.router.createCaller(options.createContext(request));
    for (const segment of route.procedure) target = (target as Record<string, unknown>)[segment];
    const data = await (target as (input: unknown) => Promise<unknown>)(input);
    return new Response(JSON.stringify(data), {
      status: route.successStatus,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
  }

  return async function handleRest(request: Request): Promise<Response> {
    const matched: { procedure?: string } = {};
    try {
      return await respond(request, matched);
    } catch (failure) {
      const error = trpcAppError(failure, matched.procedure);
      if (error.type === 'internal_error') options.onInternalError(failure, request);
      return renderError(error, request);
    }
  };
}
