// Serves the tRPC router's OpenAPI-annotated procedures as REST under /api.
//
// trpc-to-openapi's own fetch adapter rebuilds its handler (and, outside production, the whole OpenAPI
// document) on every request; here the node-http handler is built once and fed a Request proxy whose
// body we have already read with our size limit. Its error bodies are replaced by our renderer's.
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import type { AnyTRPCRouter } from '@trpc/server';
import { AppError, errorResponse, toAppError } from './errors';
import { readJsonBody } from './body';
import { procedureMetas } from '../trpc/meta';

export interface RestHandlerOptions<TContext> {
  router: AnyTRPCRouter;
  createContext: (req: Request) => TContext;
  bodyLimitBytes: number;
  onInternalError: (error: unknown, req: Request) => void;
}

interface FakeNodeResponse {
  statusCode: number;
  setHeader(name: string, value: string | string[]): void;
  end(body?: string): void;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function createRestHandler<TContext>(options: RestHandlerOptions<TContext>) {
  const statuses = new Map<string, number>();
  for (const { path, meta } of procedureMetas(options.router)) {
    if (meta?.successStatus) statuses.set(path, meta.successStatus);
  }
  // Errors are carried from onError to the renderer through the request they belong to.
  const failures = new WeakMap<object, unknown>();
  const handler = createOpenApiNodeHttpHandler({
    router: options.router,
    createContext: ({ req }: { req: Request }) => options.createContext(req),
    responseMeta: ({ paths, errors }: { paths?: string[]; errors: unknown[] }) => {
      const status = errors.length === 0 && paths?.[0] ? statuses.get(paths[0]) : undefined;
      return status ? { status } : {};
    },
    onError: ({ error, req }: { error: unknown; req: object }) => {
      failures.set(req, error);
    },
  } as never) as unknown as (req: Request, res: FakeNodeResponse) => Promise<void>;

  return async function handleRest(request: Request): Promise<Response> {
    let body: unknown = undefined;
    let req = request;
    if (METHODS_WITH_BODY.has(request.method)) {
      const contentType = request.headers.get('content-type');
      if (contentType && !contentType.startsWith('application/json')) {
        throw new AppError('invalid_request_error', 'Ожидается тело запроса в формате application/json');
      }
      const hasBody = request.headers.get('content-length') !== '0' && request.body !== null;
      body = hasBody ? await readJsonBody(request, options.bodyLimitBytes) : {};
      if (!contentType) {
        // A body-less POST is fine; the handler insists on a JSON content type, so present one.
        req = new Request(request.url, {
          method: request.method,
          headers: { ...Object.fromEntries(request.headers), 'content-type': 'application/json' },
        });
      }
    }
    const proxy = new Proxy(req, {
      get(target, prop) {
        if (prop === 'body') return body;
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });

    const response = await new Promise<Response>((resolve, reject) => {
      const headers = new Headers();
      const res: FakeNodeResponse = {
        statusCode: 200,
        setHeader(name, value) {
          if (Array.isArray(value)) for (const v of value) headers.append(name, v);
          else headers.set(name, value);
        },
        end(text) {
          const failure = failures.get(proxy);
          if (failure !== undefined) {
            const error = toAppError(failure);
            if (error.type === 'internal_error') options.onInternalError(failure, request);
            resolve(errorResponse(error));
            return;
          }
          headers.set('content-type', 'application/json; charset=utf-8');
          resolve(new Response(text, { status: res.statusCode, headers }));
        },
      };
      handler(proxy, res).catch(reject);
    });
    return response;
  };
}
