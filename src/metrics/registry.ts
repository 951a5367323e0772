// Prometheus metrics (GET /metrics): requests by route and status, /v1 latency and time to first token,
// the upstream's latency and errors, tokens and cost by model, streams in flight, the settlement backlog
// and its oldest row's age, lease top-ups, the outbox backlog by kind and webhook events; per provider,
// attempts by outcome, their latency, failovers and cooldowns (labelled by provider id: an operator's few).
//
// prom-client owns the registry and the text format. What every request records (requests, /v1 latency,
// time to first token, upstream latency, tokens, cost) is kept in hot.ts's records, bound once per label
// set, so recording costs a Map lookup and some arithmetic; what is a level (backlogs, streams) is read
// when scraped; what is rare (errors, top-ups, webhooks) uses prom-client's own counters. Label values are kept few: a route is the template of the
// route that served it (routes.ts), anything else is "unmatched", methods are the known few, models are capped.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Registry } from 'prom-client';
import { billedCompletionTokens } from '../pricing/prices';
import { HotCounter, HotHistogram, type HotCounterChild, type HotHistogramChild } from './hot';
import { createRouteMatcher, type RouteMatcher, type RouteTemplate } from './routes';

/** Latency buckets in seconds: sub-millisecond proxying up to minute-long answers. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const MAX_ROUTES = 200;
const MAX_MODELS = 500;
/** Providers are an operator's few; past this many, the rest share one label. */
const MAX_PROVIDERS = 100;
/** Any other method a client invents is one label. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface MetricsSources {
  /** Streams being relayed right now. */
  streamsInFlight(): number;
  /** Settlements queued and not yet written, and the age of the oldest (seconds, 0 when none). */
  settlementBacklog(): { rows: number; oldestAgeSeconds: number };
  /** Outbox rows waiting to be sent, by kind (read from the database when scraped). */
  outboxBacklog(): Promise<{ kind: string; rows: number }[]>;
}

export function createMetrics() {
  const registry = new Registry();
  const registers = [registry];

  const requests = new HotCounter(
    'conduit_http_requests_total',
    'HTTP requests answered, by route template (unmatched for any other path), method and status.',
    registry,
  );
  const v1Duration = new HotHistogram(
    'conduit_v1_request_duration_seconds',
    '/v1 model requests from arrival to the last byte of the answer, by endpoint, stream and outcome.',
    registry,
    LATENCY_BUCKETS,
  );
  const v1Ttft = new HotHistogram(
    'conduit_v1_time_to_first_token_seconds',
    'Streams: from the request to the first bytes of the answer reaching the client.',
    registry,
    LATENCY_BUCKETS,
  );
  const upstreamDuration = new HotHistogram(
    'conduit_upstream_response_seconds',
    'From sending a request upstream to its response headers, by status (or network / timeout).',
    registry,
    LATENCY_BUCKETS,
  );
  const upstreamErrors = new Counter({
    name: 'conduit_upstream_errors_total',
    help: 'Upstream failures by status (4xx/5xx code), or network / timeout / dropped.',
    labelNames: ['status'] as const,
    registers,
  });
  const providerRequests = new HotCounter(
    'conduit_provider_requests_total',
    'Attempts sent to each provider, by outcome: ok, client_error (passed to the client), rate_limited, server_error (5xx, 408), refused (401/402/403/407), network, timeout; every outcome but ok and client_error is a failure.',
    registry,
  );
  const providerDuration = new HotHistogram(
    'conduit_provider_response_seconds',
    'From sending an attempt to a provider to its response headers (or its failure), by provider.',
    registry,
    LATENCY_BUCKETS,
  );
  const failovers = new Counter({
    name: 'conduit_provider_failovers_total',
    help: 'Requests passed on to the next provider after this provider failed them.',
    labelNames: ['provider'] as const,
    registers,
  });
  const providerStates = new Counter({
    name: 'conduit_provider_state_changes_total',
    help: 'Providers entering cooling_down (failures in a row) or disabled (refused our key or account), as this instance saw it.',
    labelNames: ['provider', 'state'] as const,
    registers,
  });
  const tokens = new HotCounter('conduit_tokens_total', 'Tokens billed, by model and kind (prompt, completion).', registry);
  const cost = new HotCounter(
    'conduit_cost_total',
    'Price of the tokens billed for model requests, in the balance currency, by model (see conduit_unpaid_total).',
    registry,
  );
  const unpaid = new Counter({
    name: 'conduit_unpaid_total',
    help: 'Price of usage the whole balance could not cover, in the balance currency.',
    registers,
  });
  const leaseTopUps = new Counter({
    name: 'conduit_lease_topups_total',
    help: 'Lease top-ups from the database, by lease (balance, key, member) and outcome (ok, refused, failed).',
    labelNames: ['lease', 'outcome'] as const,
    registers,
  });
  const webhookEvents = new Counter({
    name: 'conduit_webhook_events_total',
    help: 'Inbound webhook events by source (social, messenger, payments) and outcome (handled, failed).',
    labelNames: ['source', 'outcome'] as const,
    registers,
  });

  const routes = new Map<string, string>();
  const requestChildren = new Map<string, HotCounterChild>();
  /** The same records found without building a key: path → method → status. */
  const requestsByPath = new Map<string, Map<string, Map<number, HotCounterChild>>>();
  interface SettledRecords {
    duration: HotHistogramChild | null;
    prompt: HotCounterChild;
    completion: HotCounterChild;
    cost: HotCounterChild;
  }
  /** Model → outcome ('' holds the model's own records) → what a settlement adds to. */
  const settledByModel = new Map<string, Map<string, SettledRecords>>();
  const ttftByEndpoint = new Map<string, HotHistogramChild>();
  const upstreamByStatus = new Map<number | string, HotHistogramChild>();
  const models = new Set<string>();
  interface ProviderRecords {
    latency: HotHistogramChild;
    /** Status (or network / timeout) → its outcome's counter. */
    byStatus: Map<number | string, HotCounterChild>;
  }
  const byProvider = new Map<string, ProviderRecords>();
  let sources: MetricsSources | null = null;

  new Gauge({
    name: 'conduit_streams_in_flight',
    help: 'Streams being relayed to clients right now.',
    registers,
    collect() {
      this.set(sources?.streamsInFlight() ?? 0);
    },
  });
  new Gauge({
    name: 'conduit_settlement_backlog_rows',
    help: 'Settlements (usage rows, charges) queued and not yet written to the database.',
    registers,
    collect() {
      this.set(sources?.settlementBacklog().rows ?? 0);
    },
  });
  new Gauge({
    name: 'conduit_settlement_oldest_unwritten_seconds',
    help: 'Age of the oldest settlement not yet written (0 when none waits).',
    registers,
    collect() {
      this.set(sources?.settlementBacklog().oldestAgeSeconds ?? 0);
    },
  });
  new Gauge({
    name: 'conduit_outbox_backlog_rows',
    help: 'Outgoing messages waiting to be sent, by kind.',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      this.reset();
      for (const { kind, rows } of (await sources?.outboxBacklog()) ?? []) this.set({ kind }, rows);
    },
  });

  let matchRoute: RouteMatcher = createRouteMatcher([]);
  /** Raw path and method → template, remembered for the first paths seen (the set of templates is fixed). */
  function routeOf(path: string, method: string): string {
    const key = `${method} ${path}`;
    let route = routes.get(key);
    if (route === undefined) {
      route = matchRoute(method, path);
      if (routes.size < MAX_ROUTES * 4) routes.set(key, route);
    }
    return route;
  }

  function modelLabel(model: string): string {
    if (models.has(model)) return model;
    if (models.size >= MAX_MODELS) return 'other';
    models.add(model);
    return model;
  }

  function providerLabel(providerId: string): string {
    return byProvider.has(providerId) || byProvider.size < MAX_PROVIDERS ? providerId : 'other';
  }

  function providerRecords(providerId: string): ProviderRecords {
    let found = byProvider.get(providerId);
    if (!found) {
      const provider = providerLabel(providerId);
      found = { latency: providerDuration.labels({ provider }), byStatus: new Map() };
      if (byProvider.size < MAX_PROVIDERS) byProvider.set(providerId, found);
    }
    return found;
  }

  return {
    registry,

    /** The app's routes, set once it is built: a request is counted under the one that serves it. */
    setRoutes(templates: readonly RouteTemplate[]) {
      matchRoute = createRouteMatcher(templates);
      routes.clear();
      requestsByPath.clear();
    },

    /** The levels read at scrape time; set once the services exist. */
    setSources(next: MetricsSources) {
      sources = next;
    },

    request(path: string, rawMethod: string, status: number) {
      const method = METHODS.has(rawMethod) ? rawMethod : 'OTHER';
      // Found by path, then method and status, with no string built per request.
      let byPath = requestsByPath.get(path);
      if (!byPath) {
        if (requestsByPath.size >= MAX_ROUTES * 4) byPath = new Map();
        else requestsByPath.set(path, (byPath = new Map()));
      }
      let byMethod = byPath.get(method);
      if (!byMethod) byPath.set(method, (byMethod = new Map()));
      let child = byMethod.get(status);
      if (!child) {
        const route = routeOf(path, method);
        const key = `${route} ${method} ${status}`;
        child = requestChildren.get(key);
        if (!child) {
          if (requestChildren.size >= MAX_ROUTES * 8) {
            requests.labels({ route: 'other', method, status: String(status) }).inc();
            return;
          }
          child = requests.labels({ route, method, status: String(status) });
          requestChildren.set(key, child);
        }
        byMethod.set(status, child);
      }
      child.inc();
    },

    /**
     * A /v1 request settled: its duration, tokens (counted as billed) and the price of the tokens. Takes the
     * settlement's own facts.
     */
    settled(
      facts: {
        endpoint?: string;
        model: string;
        stream: boolean;
        status: string;
        durationMs: number;
        promptTokens: number;
        completionTokens: number;
        totalTokens: number;
      },
      priceNano: bigint,
    ) {
      const endpoint = facts.endpoint ?? 'chat';
      // One lookup by model, then by the outcome's labels, for the four records a settlement adds to.
      let outcomes = settledByModel.get(facts.model);
      if (!outcomes) {
        const model = modelLabel(facts.model);
        outcomes = new Map();
        if (settledByModel.size < MAX_MODELS * 2) settledByModel.set(facts.model, outcomes);
        outcomes.set('', {
          duration: null,
          prompt: tokens.labels({ model, kind: 'prompt' }),
          completion: tokens.labels({ model, kind: 'completion' }),
          cost: cost.labels({ model }),
        });
      }
      const outcome = facts.stream ? (facts.status === 'ok' ? 'sok' : `s${facts.status}`) : facts.status;
      const key = endpoint === 'chat' ? outcome : `${endpoint} ${outcome}`;
      let records = outcomes.get(key);
      if (!records) {
        const base = outcomes.get('')!;
        records = {
          ...base,
          duration: v1Duration.labels({ endpoint, stream: String(facts.stream), status: facts.status }),
        };
        outcomes.set(key, records);
      }
      records.duration!.observe(facts.durationMs / 1000);
      if (facts.promptTokens > 0) records.prompt.inc(facts.promptTokens);
      const completionTokens = billedCompletionTokens(facts);
      if (completionTokens > 0) records.completion.inc(completionTokens);
      if (priceNano > 0n) records.cost.inc(Number(priceNano) / 1e9);
    },

    /** Part of a price the whole balance could not cover. */
    unpaid(nano: bigint) {
      unpaid.inc(Number(nano) / 1e9);
    },

    firstToken(endpoint: string, seconds: number) {
      let record = ttftByEndpoint.get(endpoint);
      if (!record) ttftByEndpoint.set(endpoint, (record = v1Ttft.labels({ endpoint })));
      record.observe(seconds);
    },

    upstreamResponded(status: number | 'network' | 'timeout', seconds: number, providerId?: string) {
      if (providerId !== undefined) {
        const records = providerRecords(providerId);
        records.latency.observe(seconds);
        let outcome = records.byStatus.get(status);
        if (!outcome) {
          outcome = providerRequests.labels({ provider: providerLabel(providerId), outcome: providerOutcome(status) });
          if (records.byStatus.size < 64) records.byStatus.set(status, outcome);
        }
        outcome.inc();
      }
      let record = upstreamByStatus.get(status);
      if (!record) {
        record = upstreamDuration.labels({ status: String(status) });
        if (upstreamByStatus.size < 64) upstreamByStatus.set(status, record);
      }
      record.observe(seconds);
      if (typeof status !== 'number' || status >= 400) upstreamErrors.labels(String(status)).inc();
    },

    /** A request left this provider, which failed it, for the next one. */
    failedOver(providerId: string) {
      failovers.labels(providerLabel(providerId)).inc();
    },

    providerStateChanged(providerId: string, state: 'cooling_down' | 'disabled') {
      providerStates.labels(providerLabel(providerId), state).inc();
    },

    upstreamDropped() {
      upstreamErrors.labels('dropped').inc();
    },

    leaseTopUp(lease: 'balance' | 'key' | 'member', outcome: 'ok' | 'refused' | 'failed') {
      leaseTopUps.labels(lease, outcome).inc();
    },

    webhookEvent(source: 'social' | 'messenger' | 'payments', outcome: 'handled' | 'failed') {
      webhookEvents.labels(source, outcome).inc();
    },

    async render(): Promise<{ body: string; contentType: string }> {
      return { body: await registry.metrics(), contentType: registry.contentType };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A provider's answer as one of a few outcomes, as failover reads it (routing/failover.ts). */
function providerOutcome(status: number | 'network' | 'timeout'): string {
  if (typeof status !== 'number') return status;
  if (status < 400) return 'ok';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status >= 500) return 'server_error';
  if (status === 401 || status === 402 || status === 403 || status === 407) return 'refused';
  return 'client_error';
}

/** METRICS_TOKEN compared in constant time (hashes, so the lengths never differ). */
export function metricsTokenMatches(expected: string, presented: string | null): boolean {
  if (presented === null) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
