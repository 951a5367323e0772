// The model gateway as it plugs into the composition (src/features.ts).
import { outboxBacklog } from '../metrics/sources';
import { defineFeature } from '../platform/feature';
import { upstreamHealthRoute } from '../http/health.route';
import { accountRouter } from './account-router';
import { createGatewayApi, gatewaySlot } from './api';
import { chatCompletionsRoute } from './chat-completions.route';
import { embeddingsRoute } from './embeddings.route';
import { countTokensRoute, messagesRoute } from './messages.route';
import { modelsListRoute, modelsRetrieveRoute } from './models.route';
import { responsesCreateRoute, responsesDeleteRoute, responsesGetRoute } from './responses.route';
import { adminUsageExportRoute, usageExportRoute } from './usage-export.route';

export const gatewayFeature = defineFeature({
  slot: gatewaySlot,
  create: createGatewayApi,
  async start(gateway, { lifecycle, metrics, db }) {
    const { chat, billing, idempotencySweep, responseCacheSweep, rateLimitSweep, routing, usagePartitions } = gateway;
    metrics.setSources({
      streamsInFlight: () => chat.openStreams,
      settlementBacklog: () => ({ rows: billing.backlog, oldestAgeSeconds: billing.oldestUnwrittenSeconds }),
      outboxBacklog: () => outboxBacklog(db),
    });
    idempotencySweep.start();
    lifecycle.onShutdown('idempotency key sweep', () => idempotencySweep.stop());
    responseCacheSweep.start();
    lifecycle.onShutdown('response cache sweep', () => responseCacheSweep.stop());
    rateLimitSweep.start();
    lifecycle.onShutdown('request limit sweep', () => rateLimitSweep.stop());
    await routing.start();
    lifecycle.onShutdown('routing', () => routing.stop());
    await usagePartitions.start();
    lifecycle.onShutdown('usage partitions', () => usagePartitions.stop());
    await billing.start();
    lifecycle.onShutdown('billing', () => billing.stop());
  },
  // The balance and the usage history, read with a JWT or an API key.
  routers: { account: accountRouter },
  rawRoutes: [
    chatCompletionsRoute,
    messagesRoute,
    countTokensRoute,
    embeddingsRoute,
    responsesCreateRoute,
    responsesGetRoute,
    responsesDeleteRoute,
    modelsListRoute,
    modelsRetrieveRoute,
    upstreamHealthRoute,
    adminUsageExportRoute,
    usageExportRoute,
  ],
});
