// The information document (GET / for an API client): the service's name and version, where its
// documentation and dashboard are, and the operations it offers, as the specification lists them.
import type { Config } from '../config';
import { SERVICE_NAME, SERVICE_VERSION } from '../service-info';

export function informationDocument(config: Pick<Config, 'supportContact' | 'tokenPrice' | 'publicBaseUrl'>) {
  return {
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    documentation: '/docs',
    dashboard: '/app',
    // SUPPORT_CONTACT, for a login page or a client to show; null when the operator set none.
    supportContact: config.supportContact ?? null,
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
      tokenPrice: config.tokenPrice,
      // The OpenAI-compatible base URL clients use; the upstream Conduit calls is an internal address.
      upstreamProxy: `${config.publicBaseUrl}/v1`,
    },
  };
}
