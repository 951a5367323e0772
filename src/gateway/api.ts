// The model gateway's API: the /v1 handlers, the billing behind them (leases, batched settlements), the
// providers and their routes, and the usage history; built from the base, the keys, the authenticator and
// the price book.
import { join } from 'node:path';
import { authSlot } from '../auth';
import { keysSlot, keyChanged } from '../keys';
import { createPeriodicJob } from '../jobs/periodic';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { pricingSlot } from '../pricing/api';
import { createBilling } from './billing';
import { createChatHandler } from './chat';
import { createEmbeddingsHandler } from './embeddings';
import { createTranscriptionsHandler } from './audio-transcriptions';
import { charged } from './events';
import { createIdempotency } from './idempotency';
import { createMessagesHandler } from './messages';
import { createModelCatalog } from './models';
import { createRateLimiter } from './rate-limit';
import { createResponsesHandler } from './responses';
import { createAttemptCounts, isCutAnswer } from './routing/attempt-counts';
import { createHealthStore } from './routing/health';
import { createProviderProbes } from './routing/probes';
import { createRouting } from './routing/registry';
import { createUpstream } from './upstream';
import { createUsageExport } from './usage-export';
import { createUsagePartitions } from './usage-partitions';
import { createUsageReport } from './usage-report';
import { createResponseCache } from './response-cache/serve';
import { createResponseCacheStore } from './response-cache/store';
import { createPayerGroups, createViewerGroup } from './price-group';

/**
 * Settlements per batch statement on PGlite, whose statements run on the server's own thread: a batch of a
 * light load's 50 ms (~75–100 rows at c=4) held requests for as long as it wrote; in statements of 32 with the
 * event loop let run between them, the share of batch statements over 5 ms fell from 15 % to 2.4 % (traced
 * on the shared 2-core machine, bench/history/2026-11-29-pglite-tail.md). PostgreSQL writes whole batches.
 */
const PGLITE_STATEMENT_ROWS = 32;

export function createGatewayApi(base: Base, use: Use) {
  const { config, database, db, logger, instanceId, events, secretBox, metrics } = base;
  const { verifier } = use(keysSlot);
  const { authenticator } = use(authSlot);
  const { prices } = use(pricingSlot);
  const idempotency = createIdempotency({ db });
  // Keys are kept 24 h; expired ones are taken over when reused, and swept here so the table stays small.
  const idempotencySweep = createPeriodicJob({ name: 'idempotency key sweep', intervalMs: 10 * 60_000, run: () => idempotency.purge(), logger });
  // Always there: a key may have limits of its own whatever the defaults, and every answer carries the headers.
  const rateLimiter = createRateLimiter({ defaults: config, db, logger });
  const rateLimitSweep = createPeriodicJob({
    name: 'request limit sweep',
    intervalMs: 5 * 60_000,
    run: () => rateLimiter.purge(),
    logger,
  });
  const attempts = createAttemptCounts({ db, logger });
  const billing = createBilling({
    db,
    query: database.query,
    statementRows: database.driver === 'pglite' ? PGLITE_STATEMENT_ROWS : undefined,
    config,
    logger,
    instanceId,
    listen: (channel, onPayload, onListen) => database.listen(channel, onPayload, onListen),
    journalDir: join(config.dataDir, 'journal'),
    observer: {
      settled: (facts, cost) => {
        metrics.settled(facts, cost.totalNano);
        // A /v1 key's tokens count against its (and its account's) tokens per minute once they are known.
        if (facts.apiKeyId) rateLimiter.spendTokens(facts.apiKeyId, facts.userId, facts.totalTokens);
        // A provider's answer cut short is its fault, known only now that the request settles.
        if (facts.providerId && isCutAnswer(facts)) attempts.cut(facts.providerId);
      },
      unpaid: (nano) => metrics.unpaid(nano),
      topUp: (lease, outcome) => metrics.leaseTopUp(lease, outcome),
      charged: (charges) => events.emit(charged, charges),
    },
  });
  // A key's new limit voids this instance's claim on the old one.
  events.on(keyChanged, (keyId) => billing.keyChanged(keyId));
  const upstream = createUpstream(config);
  const routing = createRouting({
    db,
    database,
    config,
    logger,
    box: secretBox,
    defaultUpstream: upstream,
    attempts,
    health: createHealthStore({ database, config, logger, onStateChange: (providerId, state) => metrics.providerStateChanged(providerId, state) }),
  });
  // Providers cooling down or disabled for faults are asked whether they answer again (routing/probes.ts).
  const probes = createProviderProbes({ database, routing, logger, periodSeconds: config.providerProbeSeconds });
  const models = createModelCatalog({
    upstream,
    logger,
    routing,
    ttlMs: config.modelsCacheSeconds * 1000,
    probeCacheMs: config.upstreamHealthCacheSeconds * 1000,
  });
  const priceGroups = createPayerGroups({ db, prices });
  const responseCache = createResponseCache({
    store: createResponseCacheStore({ db, ttlSeconds: config.cacheTtlSeconds }),
    billing,
    prices,
    priceGroups,
    logger,
    config,
  });
  // Expired answers are never served; the sweep only keeps the table small.
  const responseCacheSweep = createPeriodicJob({ name: 'response cache sweep', intervalMs: 5 * 60_000, run: () => responseCache.purge(), logger });
  const chat = createChatHandler({ config, verifier, prices, priceGroups, billing, routing, rateLimiter, logger, observer: metrics, idempotency, responseCache });
  // The other billed /v1 routes take chat's key check, and with it the same per-key rate limit.
  const v1Deps = { config, authenticate: chat.authenticate, verifier, prices, priceGroups, billing, routing, logger, observer: metrics, idempotency };
  const embeddings = createEmbeddingsHandler(v1Deps);
  const transcriptions = createTranscriptionsHandler(v1Deps);
  // Anthropic's Messages API: chat's pipeline, as a Messages client.
  const messages = createMessagesHandler({ config, chat, verifier, idempotency, logger });
  const responses = createResponsesHandler({ ...v1Deps, upstream, db, streams: chat });
  const usageReport = createUsageReport(db, { cursor: database.cursor });
  // Partitions are months: an hourly look is plenty to stay ahead of them and to drop a month soon after it expires.
  const usagePartitions = createUsagePartitions({ database, logger, retentionDays: config.usageRetentionDays, intervalMs: 60 * 60_000 });
  const usageExport = createUsageExport({ authenticator, usageReport, billing, currency: config.balanceCurrency, logger });
  return {
    // For the raw routes: /v1/models prices what it lists (in the caller's group), /health/upstream shows an admin the providers.
    prices,
    viewerGroup: createViewerGroup({ db, prices, authenticator, verifier }),
    authenticator,
    idempotency,
    idempotencySweep,
    responseCache,
    responseCacheSweep,
    rateLimiter,
    rateLimitSweep,
    billing,
    upstream,
    routing,
    probes,
    models,
    chat,
    messages,
    embeddings,
    transcriptions,
    responses,
    usageReport,
    usagePartitions,
    usageExport,
  };
}

export type GatewayApi = ReturnType<typeof createGatewayApi>;
export const gatewaySlot = defineSlot<GatewayApi>('gateway');
