// Composes the HTTP surface from the feature modules; no logic of its own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Elysia } from 'elysia';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { withBodyRead } from './http/body';
import { clientAddressOf } from './http/client-address';
import { failedByClientLeaving } from './http/connection-guard';
import { AppError, errorCodes, renderError, toAppError } from './http/errors';
import { withQueryInputChecked } from './http/json';
import { errorMessages } from './http/messages';
import { requestIdOf } from './http/request-id';
import { informationEndpoints } from './http/information';
import { openApiDocumentRoute } from './openapi/document.route';
import { bindRawRoutes, rawRouteDefinitions } from './raw-routes';
import { createRestHandler, restRouteTemplates } from './trpc/rest';
import type { Services } from './services';
import { batchRefusal } from './trpc/batch-policy';
import { trpcAppError } from './trpc/errors';
import type { Context } from './trpc/init';
import { listedProcedures } from './trpc/meta';
import { appRouter } from './trpc/router';

export function createApp(services: Services) {
  const { logger } = services;
  // The REST bridge hands procedures a stand-in for the request; what the server recorded about the
  // request (its id, the client's address) is keyed by the original, which this carries to createContext.
  const restRequests = new AsyncLocalStorage<Request>();
  const createContext = (req: Request, original: Request = req): Context => ({
    req,
    config: services.config,
    database: services.database,
    authenticator: services.authenticator,
    use: services.feature,
    requestId: requestIdOf(original),
    clientAddress: clientAddressOf(original, services.config.trustProxy),
  });
  const logInternal = (error: unknown, req: Request) => {
    // A client gone mid-request (a slow body cut at the receive deadline, a hang-up) fails the read of its
    // body: nothing here broke, and a slow sender's connections must not flood the error log.
    if (failedByClientLeaving(error, req)) {
      logger.debug('client left before its request arrived', { requestId: requestIdOf(req) });
      return;
    }
    logger.error('unhandled error', { requestId: requestIdOf(req), error });
  };

  const rest = createRestHandler({
    router: appRouter,
    createContext: (req) => createContext(req, restRequests.getStore()),
    bodyLimitBytes: services.config.bodyLimitBytes,
    onInternalError: logInternal,
  });

  const app = new Elysia()
    .onError(({ code, error, request }) => {
      // With the request, the renderer gives /v1 OpenAI's error shape and every other route the dashboard's.
      // Elysia's own for an unknown route; an AppError('not_found') a handler throws carries its own message.
      if (code === 'NOT_FOUND' && !(error instanceof AppError)) return renderError(new AppError('not_found', errorMessages.routeNotFound), request);
      if (code === 'PARSE') return renderError(new AppError('invalid_request_error', errorMessages.malformedJson, { code: errorCodes.invalidJson }), request);
      const appError = toAppError(error);
      if (appError.type === 'internal_error' || appError.type === 'service_unavailable') logInternal(error, request);
      return renderError(appError, request);
    })
    .all(
      '/trpc/*',
      async ({ request }) =>
        fetchRequestHandler({
          endpoint: '/trpc',
          // tRPC reads the body itself, with no limit: it gets one already read under ours, and no JSON
          // (body or a query's `input`) nested deeper than http/json.ts allows.
          req: await withBodyRead(withQueryInputChecked(request), services.config.bodyLimitBytes, { json: true }),
          router: appRouter,
          createContext: () => createContext(request),
          onError: ({ error }) => {
            const type = trpcAppError(error).type;
            if (type === 'internal_error' || type === 'service_unavailable') logInternal(error, request);
          },
        }),
      {
        parse: 'none',
        // Before the body is read: a batch that may not run costs nothing.
        beforeHandle({ request }) {
          const refusal = batchRefusal(request, '/trpc');
          if (refusal) throw refusal;
        },
      },
    );
  // Each raw route once, from its definition; one a request is not for (a JSON POST to a mailed link's
  // page) is the REST procedure's on the same path.
  const restBridge = (request: Request) => restRequests.run(request, () => rest(request));
  // GET / lists the operations of the procedures and of these routes.
  const endpoints = informationEndpoints([...listedProcedures(appRouter), ...rawRouteDefinitions(), openApiDocumentRoute]);
  const routes = [...bindRawRoutes(services.base, services.feature, endpoints), { route: openApiDocumentRoute, deps: undefined as never }];
  for (const { route, deps } of routes) {
    const { serves } = route;
    app.route(
      route.method,
      route.path,
      // async, so that Elysia awaits the answer inside its error handling: a handler's rejection
      // (an AppError thrown) then reaches onError as it does from an inline handler.
      async ({ request, params }: { request: Request; params: Record<string, string> }) =>
        serves && !serves(request) ? restBridge(request) : await route.handle({ request, params }, deps),
      route.parse ? { parse: route.parse } : {},
    );
  }
  app.all('/api/*', ({ request }) => restBridge(request), { parse: 'none' });
  // Requests are counted by the route that serves them: under /api the procedure's own path, and anything
  // the catch-all passes on that no procedure takes is unmatched.
  services.metrics.setRoutes([
    ...app.routes.filter((route) => route.path !== '/api/*').map(({ method, path }) => ({ method, path })),
    ...restRouteTemplates(appRouter),
  ]);
  return app;
}

export type App = ReturnType<typeof createApp>;
