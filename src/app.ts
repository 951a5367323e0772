// Composes the HTTP surface from the feature modules; no logic of its own.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Elysia } from 'elysia';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { withBodyRead } from './http/body';
import { isFormPost, verifyEmailPage, verifyEmailSubmit } from './accounts/verify-page';
import { emailChangeFormSubmit, emailChangePageResponse } from './accounts/email-change-page';
import { passwordResetFormSubmit, passwordResetPageResponse } from './accounts/password-reset-page';
import { clientAddressOf } from './http/client-address';
import { failedByClientLeaving } from './http/connection-guard';
import { createDashboard } from './http/dashboard';
import { DOCS_HTML, docsAsset } from './http/docs-page';
import { AppError, errorCodes, renderError, toAppError } from './http/errors';
import { withQueryInputChecked } from './http/json';
import { errorMessages } from './http/messages';
import { gatewayMessages } from './gateway/texts';
import { requestIdOf } from './http/request-id';
import { acceptsHtml, DASHBOARD_REDIRECT_HTML } from './http/site-root';
import { bearerToken } from './http/bearer';
import { metricsTokenMatches } from './metrics/registry';
import { modelIdOf } from './gateway/models';
import { upstreamStatus } from './gateway/routing/status';
import { createRestHandler, restRouteTemplates } from './trpc/rest';
import { SERVICE_NAME, SERVICE_VERSION } from './service-info';
import type { Services } from './services';
import { batchRefusal } from './trpc/batch-policy';
import { trpcAppError } from './trpc/errors';
import type { Context } from './trpc/init';
import { appRouter } from './trpc/router';

const withVary = (response: Response) => {
  response.headers.set('vary', 'Accept');
  return response;
};

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

export function informationDocument(services: Services) {
  return {
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    documentation: '/docs',
    dashboard: '/app',
    // SUPPORT_CONTACT, for a login page or a client to show; null when the operator set none.
    supportContact: services.config.supportContact ?? null,
    endpoints: {
      auth: { register: 'POST /api/auth/register', login: 'POST /api/auth/login' },
      // The specification fixes this object's three names; changing a key's limits is listed beside it.
      keys: { list: 'GET /api/keys', create: 'POST /api/keys', delete: 'DELETE /api/keys/:id' },
      keyUpdate: 'PATCH /api/keys/:id',
      agents: {
        list: 'GET /api/agents',
        create: 'POST /api/agents',
        get: 'GET /api/agents/:id',
        update: 'PATCH /api/agents/:id',
        delete: 'DELETE /api/agents/:id',
      },
      messenger: {
        settings: 'GET|PUT /api/v1/messenger/:agentId/settings',
        checkChannelAdmin: 'GET /api/v1/messenger/:agentId/check-channel-admin',
        notifications: 'GET /api/v1/messenger/:agentId/notifications',
        webhook: 'POST /api/v1/messenger/:agentId/webhook',
      },
      social: {
        settings: 'GET|PUT /api/v1/social/:agentId/settings',
        checkConnection: 'POST /api/v1/social/check-connection',
        confirmationCode: 'GET /api/v1/social/:agentId/confirmation-code',
        registerWebhook: 'POST /api/v1/social/:agentId/webhook',
        callback: 'GET|POST /api/v1/social/webhook/:agentId',
      },
      commerce: {
        settings: 'GET|PUT /api/v1/commerce/:agentId/settings',
        products: 'GET|POST /api/v1/commerce/:agentId/products, GET|PATCH|DELETE /api/v1/commerce/:agentId/products/:productId',
        importProducts: 'POST /api/v1/commerce/:agentId/products/import',
        orders: 'GET /api/v1/commerce/:agentId/orders, GET /api/v1/commerce/:agentId/orders/:orderId',
        paymentWebhook: 'POST /api/v1/commerce/webhook/:agentId?token=<secret>',
      },
      dialogues: {
        list: 'GET /api/v1/agents/:agentId/dialogues?state=bot|escalated|operator|closed&q=&limit=&cursor=',
        get: 'GET /api/v1/agents/:agentId/dialogues/:dialogueId',
        messages: 'GET /api/v1/agents/:agentId/dialogues/:dialogueId/messages?limit=&cursor=&afterId=',
        reply: 'POST /api/v1/agents/:agentId/dialogues/:dialogueId/messages',
        takeover: 'POST /api/v1/agents/:agentId/dialogues/:dialogueId/takeover',
        release: 'POST /api/v1/agents/:agentId/dialogues/:dialogueId/release',
        read: 'POST /api/v1/agents/:agentId/dialogues/:dialogueId/read',
        delete: 'DELETE /api/v1/agents/:agentId/dialogues/:dialogueId',
        results: 'GET /api/v1/agents/:agentId/results?from=&to=',
      },
      booking: {
        settings: 'GET|PUT /api/v1/booking/:agentId/settings',
        specialists: 'GET /api/v1/booking/:agentId/specialists',
        services: 'GET /api/v1/booking/:agentId/services',
        slots: 'GET /api/v1/booking/:agentId/slots?date=YYYY-MM-DD&specialistId=&serviceId=',
        appointments: 'POST /api/v1/booking/:agentId/appointments',
      },
      admin: {
        users: 'GET /api/admin/users?search=&limit=&cursor=, GET /api/admin/users/:id',
        credit: 'POST /api/admin/users/:id/credit',
        block: 'POST /api/admin/users/:id/block, POST /api/admin/users/:id/unblock',
        dailyStats: 'GET /api/admin/stats/daily?from=YYYY-MM-DD&to=YYYY-MM-DD',
        usageExport: 'GET /api/admin/users/:id/usage/export?from=&to=&keyId=&format= (CSV, with provider columns)',
        audit: 'GET /api/admin/audit?limit=&cursor=',
        prices: 'GET|PUT /api/admin/prices, DELETE /api/admin/prices?pattern=',
        priceImport: 'POST /api/admin/prices/import/preview, POST /api/admin/prices/import',
        providers: 'GET|POST /api/admin/providers, GET|PATCH|DELETE /api/admin/providers/:id',
        routes: 'GET|PUT /api/admin/routes, DELETE /api/admin/routes?pattern=',
        requisites: 'GET|PUT /api/admin/requisites',
      },
      billing: {
        config: 'GET /api/billing/config',
        topups: 'GET|POST /api/billing/topups, GET /api/billing/topups/:id',
        yookassaNotifications: 'POST /api/billing/yookassa/notifications',
      },
      chatCompletions: 'POST /v1/chat/completions',
      embeddings: 'POST /v1/embeddings',
      responses: 'POST /v1/responses, GET|DELETE /v1/responses/:id',
      models: 'GET /v1/models',
      currentUser: 'GET /api/auth/me',
      emailVerification: 'GET /api/auth/verify-email?token=<from the e-mail>, POST /api/auth/resend-verification',
      twoFactor: 'GET /api/auth/2fa, POST /api/auth/2fa/setup, POST /api/auth/2fa/enable, POST /api/auth/2fa/disable',
      emailChange: 'POST /api/account/email, GET|POST /api/account/email/confirm',
      passwordReset: 'POST /api/auth/password-reset, GET|POST /api/auth/password-reset/confirm',
      balance: 'GET /api/balance',
      usage: 'GET /api/usage',
      usageSummary: 'GET /api/usage/summary',
      usageExport: 'GET /api/usage/export?from=&to=&keyId= (CSV)',
      statement: 'GET /api/account/statement?from=YYYY-MM-DD&to=YYYY-MM-DD&timeZone=, GET /api/account/statement/export (CSV)',
      documents: 'GET /api/account/documents, GET /api/account/documents/:month/invoice.pdf, GET /api/account/documents/:month/act.pdf',
      customerRequisites: 'GET /api/account/requisites, PUT /api/account/requisites',
      support: 'GET /api/support',
      health: 'GET /health',
      upstreamHealth: 'GET /health/upstream',
      openapi: 'GET /openapi.json',
      docs: 'GET /docs',
    },
    config: {
      tokenPrice: services.config.tokenPrice,
      // The OpenAI-compatible base URL clients use; the upstream Conduit calls is an internal address.
      upstreamProxy: `${services.config.publicBaseUrl}/v1`,
    },
  };
}

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

  const dashboard = createDashboard();
  /** Payment notifications as webhook events in the metrics: answered 2xx is handled, anything else failed. */
  const counted = async (answer: Promise<Response>) => {
    try {
      const response = await answer;
      services.metrics.webhookEvent('payments', response.status < 400 ? 'handled' : 'failed');
      return response;
    } catch (error) {
      services.metrics.webhookEvent('payments', 'failed');
      throw error;
    }
  };
  // The generator (trpc-to-openapi and what it loads: ~6 MB of resident memory) is loaded when the document
  // is first asked for, not by every instance at start; the document is built once.
  let openApiText: Promise<string> | undefined;
  const openApi = () => (openApiText ??= import('./openapi/document').then(({ buildOpenApiDocument }) => JSON.stringify(buildOpenApiDocument())));

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
    // A browser (it asks for HTML) goes to the dashboard; API clients get the information document.
    .get('/', ({ request }) =>
      acceptsHtml(request.headers.get('accept'))
        ? new Response(DASHBOARD_REDIRECT_HTML, { status: 302, headers: { location: '/app', vary: 'Accept', 'content-type': 'text/html; charset=utf-8' } })
        : withVary(json(informationDocument(services))),
    )
    .get('/health', async () => {
      try {
        await services.database.query('select 1');
        return json({ status: 'ok' });
      } catch (error) {
        logger.warn('health check failed', { error });
        return json({ status: 'unavailable', database: 'unreachable' }, 503);
      }
    })
    // For a load balancer, `{status}` only; the providers, their states and last errors for an admin's JWT
    // (another credential is refused as on any admin route).
    .get('/health/upstream', async ({ request }) => {
      const asAdmin = request.headers.has('authorization');
      if (asAdmin) await services.authenticator.admin(request.headers);
      const status = upstreamStatus(services.routing, await services.models.probe());
      return json(asAdmin ? status : { status: status.status }, status.status === 'ok' ? 200 : 503);
    })
    .post('/v1/chat/completions', ({ request }) => services.chat.handle(request), { parse: 'none' })
    .post('/v1/embeddings', ({ request }) => services.embeddings.handle(request), { parse: 'none' })
    .post('/v1/responses', ({ request }) => services.responses.handle(request), { parse: 'none' })
    .get('/v1/responses/:id', ({ request, params }) => services.responses.get(request, params.id))
    .delete('/v1/responses/:id', ({ request, params }) => services.responses.delete(request, params.id), { parse: 'none' })
    .get(
      '/v1/models',
      async () =>
        new Response(services.prices.pricedListJson(await services.models.list()), {
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
    )
    // The SDK's models.retrieve(): the id may hold a slash ("acme/chat"), sent as is or as %2F.
    .get('/v1/models/*', async ({ params }) => {
      const id = modelIdOf(params['*']);
      // A model a request could not ask for (a refused variant, an unpriced one under UNPRICED_MODELS=refuse) is not listed.
      const model = id === null || services.prices.resolve(id).kind !== 'priced' ? undefined : (await services.models.list()).data.find((m) => m.id === id);
      if (!model) throw new AppError('not_found', gatewayMessages.modelNotFound, { param: 'model', code: errorCodes.modelNotFound });
      return new Response(services.prices.pricedModelJson(model), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    })
    .get('/metrics', async ({ request }) => {
      const token = services.config.metricsToken;
      if (token && !metricsTokenMatches(token, bearerToken(request.headers))) {
        throw new AppError('unauthorized', errorMessages.metricsToken);
      }
      const { body, contentType } = await services.metrics.render();
      return new Response(body, { headers: { 'content-type': contentType } });
    })
    .get('/openapi.json', async () => new Response(await openApi(), { headers: { 'content-type': 'application/json; charset=utf-8' } }))
    .get('/docs', () => new Response(DOCS_HTML, { headers: { 'content-type': 'text/html; charset=utf-8' } }))
    .get('/app', () => dashboard.serve(''))
    .get('/app/*', ({ params }) => dashboard.serve(params['*']))
    .get('/docs/assets/:name', ({ params }) => {
      const asset = docsAsset(params.name);
      if (!asset) throw new AppError('not_found', errorMessages.routeNotFound);
      return asset;
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
    )
    // Called by Telegram, verified by its secret header: raw, outside the JWT-guarded REST routes.
    .post('/api/v1/messenger/:agentId/webhook', ({ request, params }) => services.messenger.webhook.handle(request, params.agentId), {
      parse: 'none',
    })
    // VK's Callback API, verified by the secret in each event: raw, like the messenger webhook.
    .get('/api/v1/social/webhook/:agentId', ({ params }) => services.social.webhook.confirmation(params.agentId))
    .post('/api/v1/social/webhook/:agentId', ({ request, params }) => services.social.webhook.handle(request, params.agentId), {
      parse: 'none',
    })
    // The payment provider's notifications, verified by the per-agent secret in the URL.
    .post('/api/v1/commerce/webhook/:agentId', ({ request, params }) => counted(services.commerce.payments.handle(request, params.agentId)), {
      parse: 'none',
    })
    // YooKassa's top-up notifications: unsigned, so each one is verified by re-reading the payment.
    .post('/api/billing/yookassa/notifications', ({ request }) => counted(services.topups.notifications.handle(request)), { parse: 'none' })
    // Usage as a CSV file, streamed: not JSON, so a raw route beside the procedures (gateway/usage-export.ts).
    .get('/api/usage/export', ({ request }) => services.usageExport.handle(request))
    // The statement as CSV and the monthly closing documents as PDF (statement/routes.ts).
    .get('/api/account/statement/export', ({ request }) => services.statement.routes.csv(request))
    .get('/api/account/documents/:month/:file', ({ request, params }) => services.statement.routes.document(request, params.month, params.file))
    .get('/api/admin/users/:id/usage/export', ({ request, params }) => services.usageExport.handleAdmin(request, params.id))
    .get('/api/admin/stats/daily/export', ({ request }) => services.adminStatsExport.handle(request))
    // The link in the verification mail, opened in a browser: a page that changes nothing; its form posts
    // here form-encoded and gets a page back, a client's JSON POST is the REST procedure.
    .get('/api/auth/verify-email', ({ request }) => verifyEmailPage(services.accounts, request))
    .post(
      '/api/auth/verify-email',
      ({ request }) => (isFormPost(request) ? verifyEmailSubmit(services.accounts, request) : restRequests.run(request, () => rest(request))),
      { parse: 'none' },
    )
    // The link in the e-mail change mail, opened in a browser, like the verification link; the page's form
    // posts here form-encoded, a client's JSON POST is the REST procedure.
    .get('/api/account/email/confirm', ({ request }) => emailChangePageResponse(services.emailChange, request))
    .post(
      '/api/account/email/confirm',
      ({ request }) => (isFormPost(request) ? emailChangeFormSubmit(services.emailChange, request) : restRequests.run(request, () => rest(request))),
      { parse: 'none' },
    )
    // The link in the password-reset mail, opened in a browser, like the two above; the page's form posts
    // here form-encoded (and hands out no session), a client's JSON POST is the REST procedure.
    .get('/api/auth/password-reset/confirm', ({ request }) => passwordResetPageResponse(services.accounts, request))
    .post(
      '/api/auth/password-reset/confirm',
      ({ request }) =>
        isFormPost(request)
          ? passwordResetFormSubmit(services.accounts, request, clientAddressOf(request, services.config.trustProxy))
          : restRequests.run(request, () => rest(request)),
      { parse: 'none' },
    )
    .all('/api/*', ({ request }) => restRequests.run(request, () => rest(request)), { parse: 'none' });
  // Requests are counted by the route that serves them: under /api the procedure's own path, and anything
  // the catch-all passes on that no procedure takes is unmatched.
  services.metrics.setRoutes([
    ...app.routes.filter((route) => route.path !== '/api/*').map(({ method, path }) => ({ method, path })),
    ...restRouteTemplates(appRouter),
  ]);
  return app;
}

export type App = ReturnType<typeof createApp>;
