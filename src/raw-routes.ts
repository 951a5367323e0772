// Every raw route (no tRPC procedure) the app mounts, in one list: app.ts mounts them in this order and the
// OpenAPI document describes them in it. Each definition lives with its feature (*.route.ts).
//
// Elysia prefers a static segment to a parameter and a parameter to `*` whatever the order, so the order
// here is the document's; what depends on mounting order (the /api/* catch-all of the REST bridge after
// everything) stays in app.ts.
import { mailedLinkPageRoutes } from './accounts/mailed-links.route';
import { adminStatsExportRoute } from './admin/stats-export.route';
import { yookassaNotificationsRoute } from './billing/yookassa-notifications.route';
import { orderPaymentWebhookRoute } from './commerce/payment-webhook.route';
import { chatCompletionsRoute } from './gateway/chat-completions.route';
import { embeddingsRoute } from './gateway/embeddings.route';
import { modelsListRoute, modelsRetrieveRoute } from './gateway/models.route';
import { responsesCreateRoute, responsesDeleteRoute, responsesGetRoute } from './gateway/responses.route';
import { adminUsageExportRoute, usageExportRoute } from './gateway/usage-export.route';
import { healthRoute, upstreamHealthRoute } from './http/health.route';
import { dashboardFilesRoute, dashboardPageRoute, docsAssetRoute, docsPageRoute, siteRootRoute } from './http/site.route';
import { telegramWebhookRoute } from './integrations/messenger/webhook.route';
import { socialCallbackRoute, socialConfirmationCodeRoute } from './integrations/social/webhook.route';
import { metricsRoute } from './metrics/metrics.route';
import { closingDocumentRoute, statementExportRoute } from './statement/exports.route';

export const rawRoutes = [
  chatCompletionsRoute,
  embeddingsRoute,
  responsesCreateRoute,
  responsesGetRoute,
  responsesDeleteRoute,
  modelsListRoute,
  modelsRetrieveRoute,
  socialConfirmationCodeRoute,
  socialCallbackRoute,
  telegramWebhookRoute,
  orderPaymentWebhookRoute,
  yookassaNotificationsRoute,
  healthRoute,
  upstreamHealthRoute,
  adminUsageExportRoute,
  usageExportRoute,
  siteRootRoute,
  statementExportRoute,
  closingDocumentRoute,
  adminStatsExportRoute,
  metricsRoute,
  docsPageRoute,
  docsAssetRoute,
  dashboardPageRoute,
  dashboardFilesRoute,
  ...mailedLinkPageRoutes,
];
