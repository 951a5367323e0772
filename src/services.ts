// The service container: built once at start-up from config and the database, handed to every route.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createAccountService } from './accounts/service';
import { createAlerts, type Alerts } from './alerts/module';
import { createTokenUserCache } from './accounts/token-users';
import { createThrottle } from './accounts/throttle';
import { createTwoFactor } from './accounts/two-factor';
import { createEmailChange } from './accounts/email-change';
import { createSecurityNotices } from './accounts/security-notices';
import { createMailer } from './mail/mailer';
import { createAdminService } from './admin/service';
import { createStatsExport } from './admin/stats-export';
import { createAgentService } from './agents/service';
import { createBooking } from './integrations/booking';
import { createAuthenticator } from './auth/authenticate';
import { createJwtService } from './auth/jwt';
import type { Config } from './config';
import { createSecretBox } from './crypto/secret-box';
import type { DatabaseHandle } from './db/client';
import { createBilling } from './gateway/billing';
import { createChatHandler } from './gateway/chat';
import { createEmbeddingsHandler } from './gateway/embeddings';
import { createResponsesHandler } from './gateway/responses';
import { createModelCatalog } from './gateway/models';
import { createRateLimiter } from './gateway/rate-limit';
import { createUpstream } from './gateway/upstream';
import { createHealthStore } from './gateway/routing/health';
import { createRouting } from './gateway/routing/registry';
import { createUsageExport } from './gateway/usage-export';
import { createUsagePartitions } from './gateway/usage-partitions';
import { createUsageReport } from './gateway/usage-report';
import { createMessenger } from './integrations/messenger/module';
import { createSocial } from './integrations/social/module';
import { createCommerce } from './commerce/module';
import { createShopFlow } from './assistant/shop-flow';
import { createKnowledgeTools } from './assistant/tools/knowledge';
import { createShopTools } from './assistant/tools/shop';
import { createBookingTools } from './assistant/tools/booking';
import type { ToolProvider } from './assistant/tools/types';
import { createKnowledge } from './knowledge/service';
import { createDialogues } from './dialogues/service';
import { createResults } from './dialogues/results';
import { createTopups } from './billing/module';
import { createStatementModule } from './statement/module';
import { createStatementRoutes } from './statement/routes';
import { createOutboxWorker } from './jobs/outbox';
import { createKeyService } from './keys/service';
import { createKeyVerifier, type KeyVerifier } from './keys/verifier';
import { createLifecycle } from './lifecycle';
import { createPriceBook } from './pricing/prices';
import { createMetrics } from './metrics/registry';
import { createIdempotency } from './gateway/idempotency';
import { createPeriodicJob } from './jobs/periodic';
import { outboxBacklog } from './metrics/sources';
import type { Logger } from './logger';

export interface ServicesInput {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
}

export function createServices({ config, database, logger }: ServicesInput) {
  const db = database.db;
  const instanceId = `${process.pid}-${randomUUID()}`;
  const lifecycle = createLifecycle(logger);
  const jwt = createJwtService(config.jwtSecret);
  const tokenUsers = createTokenUserCache({ database, logger });
  const secretBox = createSecretBox({ current: config.encryptionKey, previous: config.encryptionKeyPrevious });
  const securityNotices = createSecurityNotices({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lockoutSeconds: config.totpLockoutSeconds,
  });
  const twoFactor = createTwoFactor({
    db,
    box: secretBox,
    throttle: createThrottle(db),
    lock: { maxFailures: config.totpMaxFailures, lockoutSeconds: config.totpLockoutSeconds },
    notices: securityNotices,
    adminEmails: config.adminEmails,
  });
  const accounts = createAccountService({
    db,
    jwt,
    logger,
    tokenUsers,
    twoFactor,
    notices: securityNotices,
    // The verifier is built below; the takeover that calls this happens only once requests are served.
    keysRevoked: (userId) => verifier?.invalidateUser(userId),
    config,
  });
  const emailChange = createEmailChange({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    throttle: createThrottle(db),
    logger,
    publicBaseUrl: config.publicBaseUrl,
    hideTakenAddresses: config.requireEmailVerification,
  });
  // Expired e-mail change links are refused anyway; the sweep keeps the table small.
  const emailChangeSweep = createPeriodicJob({ name: 'e-mail change link sweep', intervalMs: 10 * 60_000, run: () => emailChange.pruneExpired(), logger });
  let verifier: KeyVerifier | undefined;
  const keys = createKeyService({ db, config, onRevoked: (keyId) => verifier?.invalidate(keyId) });
  let billingRef: { keyChanged(keyId: string): void } | undefined;
  // Alerts hear of charges from billing, built before the outbox that alerts need (just below).
  let alertsRef: Alerts | undefined;
  // A key's new limit voids this instance's claim on the old one (the billing is built just below).
  verifier = createKeyVerifier({ database, keys, logger, onKeyChanged: (keyId) => billingRef?.keyChanged(keyId) });
  const authenticator = createAuthenticator(accounts, verifier, config.supportContact);
  const prices = createPriceBook({ db, database, config, logger });
  const metrics = createMetrics();
  const idempotency = createIdempotency({ db });
  // Keys are kept 24 h; expired ones are taken over when reused, and swept here so the table stays small.
  const idempotencySweep = createPeriodicJob({
    name: 'idempotency key sweep',
    intervalMs: 10 * 60_000,
    run: () => idempotency.purge(),
    logger,
  });
  const rateLimiter =
    config.rateLimitPerMinute > 0 || config.rateLimitPerUserPerMinute > 0
      ? createRateLimiter({ perMinute: config.rateLimitPerMinute, perUserPerMinute: config.rateLimitPerUserPerMinute, db, logger })
      : null;
  const rateLimitSweep = createPeriodicJob({
    name: 'request limit sweep',
    intervalMs: 5 * 60_000,
    run: async () => {
      await rateLimiter?.purge();
    },
    logger,
  });
  const billing = createBilling({
    db,
    query: database.query,
    config,
    logger,
    instanceId,
    listen: (channel, onPayload, onListen) => database.listen(channel, onPayload, onListen),
    journalDir: join(config.dataDir, 'journal'),
    observer: {
      settled: (facts, cost) => metrics.settled(facts, cost.totalNano),
      unpaid: (nano) => metrics.unpaid(nano),
      topUp: (lease, outcome) => metrics.leaseTopUp(lease, outcome),
      charged: (charges) => alertsRef?.checker.charged(charges),
    },
  });
  billingRef = billing;
  const upstream = createUpstream(config);
  const routing = createRouting({
    db,
    database,
    config,
    logger,
    box: secretBox,
    defaultUpstream: upstream,
    health: createHealthStore({ database, config, logger, onStateChange: (providerId, state) => metrics.providerStateChanged(providerId, state) }),
  });
  const models = createModelCatalog({
    upstream,
    logger,
    routing,
    ttlMs: config.modelsCacheSeconds * 1000,
    probeCacheMs: config.upstreamHealthCacheSeconds * 1000,
  });
  const admin = createAdminService({ db, billing, prices, models, config, routing, box: secretBox, accounts, keys });
  const chat = createChatHandler({
    config,
    verifier,
    prices,
    billing,
    routing,
    rateLimiter,
    logger,
    observer: metrics,
    idempotency,
  });
  // The other billed /v1 routes take chat's key check, and with it the same per-key rate limit.
  const v1Deps = { config, authenticate: chat.authenticate, verifier, prices, billing, routing, logger, observer: metrics, idempotency };
  const embeddings = createEmbeddingsHandler(v1Deps);
  const responses = createResponsesHandler({ ...v1Deps, upstream, db, streams: chat });
  const usageReport = createUsageReport(db, { cursor: database.cursor });
  // Partitions are months: an hourly look is plenty to stay ahead of them and to drop a month soon after it expires.
  const usagePartitions = createUsagePartitions({ database, logger, retentionDays: config.usageRetentionDays, intervalMs: 60 * 60_000 });
  const usageExport = createUsageExport({ authenticator, usageReport, billing, currency: config.balanceCurrency, logger });
  const adminStatsExport = createStatsExport({ authenticator, stats: admin.stats, currency: config.balanceCurrency });
  const agents = createAgentService({ db, config });
  const outbox = createOutboxWorker({
    db,
    logger,
    instanceId,
    pollIntervalMs: config.outboxPollIntervalMs,
    retryBaseMs: config.outboxRetryBaseMs,
    maxAttempts: config.outboxMaxAttempts,
    // A claimed row (one slow call at worst, retried within a call by some clients) must be done before another instance may take it.
    leaseMs: config.telegramTimeoutMs * 20 + 30_000,
  });
  const alerts = createAlerts({ db, box: secretBox, outbox, logger, config });
  alertsRef = alerts;
  const messenger = createMessenger({ db, box: secretBox, logger, outbox, config, observeUpdate: (outcome) => metrics.webhookEvent('messenger', outcome) });
  const booking = createBooking({ db, database, config, logger, box: secretBox });
  const commerce = createCommerce({ db, box: secretBox, logger, outbox, notifier: messenger.notifier, config });
  const topups = createTopups({ database, logger, config });
  const knowledge = createKnowledge(db);
  // The shop in the dialogue, shared by its buttons (inside the VK assistant) and its model tools.
  const shopFlow = createShopFlow({
    flowDb: db,
    catalog: commerce.catalog,
    orders: commerce.orders,
    settings: commerce.settings,
    orderPayments: commerce.orderPayments,
    outbox,
    logger,
  });
  const knowledgeTools = createKnowledgeTools({ knowledge });
  /** Every tool family the assistant's model may be offered; the agent page lists them from here. */
  const toolProviders: ToolProvider[] = [
    createBookingTools({ db, booking: booking.service, settings: booking.settings, maxBookingsPerClient: config.assistantMaxBookingsPerClient }),
    createShopTools({
      db,
      catalog: commerce.catalog,
      orders: commerce.orders,
      settings: commerce.settings,
      shopFlow,
      maxOpenOrdersPerClient: config.assistantMaxOpenOrdersPerClient,
    }),
    knowledgeTools.provider,
  ];
  const social = createSocial({
    shopFlow,
    toolProviders,
    knowledgeForPrompt: knowledgeTools.knowledgeForPrompt,
    observeEvent: (outcome) => metrics.webhookEvent('social', outcome),
    db,
    box: secretBox,
    logger,
    outbox,
    chat,
    agents,
    escalations: messenger.escalations,
    messengerSettings: messenger.settings,
    notifier: messenger.notifier,
    ownerMail: messenger.ownerMail,
    booking,
    config,
  });
  const dialogues = createDialogues({ db, escalations: messenger.escalations, socialSettings: social.settings, outbox, currency: config.balanceCurrency });
  const dialogueResults = createResults({ db, currency: config.balanceCurrency });
  const statementParts = createStatementModule({ database, pdfQueueMaxWaiting: config.pdfQueueMaxWaiting });
  const statement = {
    ...statementParts,
    routes: createStatementRoutes({
      ...statementParts,
      database,
      authenticator,
      flush: () => billing.flush(),
      currency: config.balanceCurrency,
      supportContact: config.supportContact,
    }),
  };

  return {
    config,
    logger,
    lifecycle,
    instanceId,
    database,
    db,
    jwt,
    accounts,
    twoFactor,
    emailChange,
    keys,
    verifier,
    authenticator,
    prices,
    metrics,
    billing,
    upstream,
    routing,
    models,
    admin,
    chat,
    embeddings,
    responses,
    usageReport,
    usageExport,
    adminStatsExport,
    usagePartitions,
    agents,
    secretBox,
    outbox,
    alerts,
    messenger,
    booking,
    bookingSync: booking.sync,
    social,
    commerce,
    topups,
    dialogues,
    dialogueResults,
    statement,
    knowledge,
    knowledgeTools,
    toolProviders,
    /** Starts background work; each piece registers how it stops. */
    async start() {
      metrics.setSources({
        streamsInFlight: () => chat.openStreams,
        settlementBacklog: () => ({ rows: billing.backlog, oldestAgeSeconds: billing.oldestUnwrittenSeconds }),
        outboxBacklog: () => outboxBacklog(db),
      });
      await verifier.start();
      idempotencySweep.start();
      if (rateLimiter) {
        rateLimitSweep.start();
        lifecycle.onShutdown('request limit sweep', () => rateLimitSweep.stop());
      }
      lifecycle.onShutdown('idempotency key sweep', () => idempotencySweep.stop());
      accounts.start();
      lifecycle.onShutdown('accounts', () => accounts.stop());
      lifecycle.onShutdown('security notices', () => securityNotices.stop());
      await tokenUsers.start();
      lifecycle.onShutdown('token user cache', () => tokenUsers.stop());
      emailChangeSweep.start();
      lifecycle.onShutdown('e-mail change', async () => {
        await emailChangeSweep.stop();
        emailChange.stop();
      });
      await prices.start();
      lifecycle.onShutdown('price book', () => prices.stop());
      await routing.start();
      lifecycle.onShutdown('routing', () => routing.stop());
      lifecycle.onShutdown('key verifier', () => verifier.stop());
      await usagePartitions.start();
      lifecycle.onShutdown('usage partitions', () => usagePartitions.stop());
      // Registered before billing so that it stops after it: billing's last batches may still cross thresholds.
      lifecycle.onShutdown('alerts', () => alerts.stop());
      await billing.start();
      lifecycle.onShutdown('billing', () => billing.stop());
      outbox.start();
      lifecycle.onShutdown('outbox', () => outbox.stop());
      messenger.start();
      lifecycle.onShutdown('messenger', () => messenger.stop());
      social.start();
      lifecycle.onShutdown('social', () => social.stop());
      booking.sync.start();
      lifecycle.onShutdown('booking sync', () => booking.sync.stop());
      topups.start();
      lifecycle.onShutdown('top-up re-check', () => topups.stop());
    },
  };
}

export type Services = ReturnType<typeof createServices>;
