// The composition root: the base every feature shares, then the features of src/features.ts in their order.
// Procedures see only what their router injects (trpc/init.ts); the flat view returned here is for the
// HTTP composition (app.ts), tests and scripts.
import { randomUUID } from 'node:crypto';
import type { Config } from './config';
import { createSecretBox } from './crypto/secret-box';
import type { DatabaseHandle } from './db/client';
import { features } from './features';
import { createOutboxWorker } from './jobs/outbox';
import type { Logger } from './logger';
import { createMetrics } from './metrics/registry';
import { composeFeatures } from './platform/compose';
import { createEvents } from './platform/events';
import type { Base } from './platform/feature';
import { createLifecycle } from './platform/lifecycle';
import { accountsSlot } from './accounts/api';
import { adminSlot } from './admin/api';
import { agentsSlot } from './agents/api';
import { alertsSlot } from './alerts/api';
import { assistantSlot } from './assistant/api';
import { authSlot } from './auth/api';
import { topupsSlot } from './billing/api';
import { commerceSlot } from './commerce/api';
import { dialoguesSlot } from './dialogues/api';
import { gatewaySlot } from './gateway/api';
import { bookingSlot } from './integrations/booking/api';
import { messengerSlot } from './integrations/messenger/api';
import { socialSlot } from './integrations/social/api';
import { keysSlot } from './keys/api';
import { knowledgeSlot } from './knowledge/api';
import { pricingSlot } from './pricing/api';
import { statementSlot } from './statement/api';

export interface ServicesInput {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
}

export function createBase({ config, database, logger }: ServicesInput): Base {
  const instanceId = `${process.pid}-${randomUUID()}`;
  return {
    config,
    database,
    db: database.db,
    logger,
    instanceId,
    lifecycle: createLifecycle(logger),
    events: createEvents(logger),
    secretBox: createSecretBox({ current: config.encryptionKey, previous: config.encryptionKeyPrevious }),
    metrics: createMetrics(),
    outbox: createOutboxWorker({
      db: database.db,
      logger,
      instanceId,
      pollIntervalMs: config.outboxPollIntervalMs,
      retryBaseMs: config.outboxRetryBaseMs,
      maxAttempts: config.outboxMaxAttempts,
      // A claimed row (one slow call at worst, retried within a call by some clients) must be done before another instance may take it.
      leaseMs: config.telegramTimeoutMs * 20 + 30_000,
    }),
  };
}

export function createServices(input: ServicesInput) {
  const base = createBase(input);
  const composition = composeFeatures(features, base);
  const get = composition.get;
  const { accounts, twoFactor, emailChange, jwt } = get(accountsSlot);
  const { keys, verifier } = get(keysSlot);
  const gateway = get(gatewaySlot);
  const { admin, statsExport } = get(adminSlot);
  const { messenger } = get(messengerSlot);
  const { booking } = get(bookingSlot);
  const { dialogues, dialogueResults } = get(dialoguesSlot);
  const assistant = get(assistantSlot);
  return {
    ...base,
    base,
    /** A built feature's API by its slot. */
    feature: get,
    jwt,
    accounts,
    twoFactor,
    emailChange,
    keys,
    verifier,
    authenticator: get(authSlot).authenticator,
    prices: get(pricingSlot).prices,
    billing: gateway.billing,
    upstream: gateway.upstream,
    routing: gateway.routing,
    models: gateway.models,
    chat: gateway.chat,
    embeddings: gateway.embeddings,
    transcriptions: gateway.transcriptions,
    responses: gateway.responses,
    usageReport: gateway.usageReport,
    usageExport: gateway.usageExport,
    usagePartitions: gateway.usagePartitions,
    admin,
    adminStatsExport: statsExport,
    agents: get(agentsSlot).agents,
    alerts: get(alertsSlot).alerts,
    messenger,
    booking,
    bookingSync: booking.sync,
    social: get(socialSlot).social,
    commerce: get(commerceSlot).commerce,
    topups: get(topupsSlot).topups,
    dialogues,
    dialogueResults,
    statement: get(statementSlot).statement,
    knowledge: get(knowledgeSlot).knowledge,
    knowledgeTools: assistant.knowledgeTools,
    toolProviders: assistant.toolProviders,
    /** Starts background work: the outbox first (so it stops last, after every feature that queues into it), then each feature in list order. */
    async start() {
      base.outbox.start();
      base.lifecycle.onShutdown('outbox', () => base.outbox.stop());
      await composition.start();
    },
  };
}

export type Services = ReturnType<typeof createServices>;
