// The providers and routes every /v1 request consults, kept in memory: loaded at start, reloaded on every
// instance when any instance changes them (NOTIFY, as the price table), and re-read every few minutes in
// case a notification was lost. The environment's UPSTREAM_BASE_URL/UPSTREAM_API_KEY are the built-in
// provider `default`, served by the very Upstream the gateway had before routing, so a deployment without
// routes sends exactly what it sent before.
import { asc } from 'drizzle-orm';
import type { Config } from '../../config';
import type { Database, DatabaseHandle } from '../../db/client';
import { modelRoutes, providers as providersTable } from '../tables';
import type { SecretBox } from '../../crypto/secret-box';
import type { Logger } from '../../logger';
import { cacheRatiosOf, withCachePrices, type CacheRatios, type ModelPrice } from '../../pricing/prices';
import { createUpstream, type Upstream } from '../upstream';
import type { AttemptCounts } from './attempt-counts';
import type { HealthStore } from './health';
import { createFailoverBudget } from './budget';
import { byPriority, matchRoute, orderTargets, type RouteTarget } from './select';
import { patternTable, type PatternTable } from '../../pricing/model-id';
import { coalescedReload } from '../../jobs/coalesced-reload';

export const ROUTING_CHANGED_CHANNEL = 'conduit_routing_changed';
export const DEFAULT_PROVIDER_ID = 'default';

export interface ProviderEntry {
  id: string;
  name: string;
  baseUrl: string;
  enabled: boolean;
  timeoutMs: number;
  /** The model its probe asks for one token; null: the probe is GET /models (probes.ts). */
  probeModel: string | null;
  /** Its own client: its base URL and its key, so whatever the client redacts is this provider's key. */
  upstream: Upstream;
}

/** One provider a request may try, the model id it is asked for (null: the client's own) and its cost price. */
export interface Candidate {
  provider: ProviderEntry;
  model: string | null;
  cost: ModelPrice | null;
}

/**
 * A stored target with its cost price made a price once; what the provider charges for its cache reads and
 * writes is derived from that prompt price by the same ratios as ours.
 */
function prepared(targets: readonly RouteTarget[], ratios: CacheRatios): RouteTarget[] {
  // Sorted by priority here, once, so a request's orderTargets has no sorting to do.
  return byPriority(targets).map((t) => ({
    ...t,
    cost: t.costPrice
      ? withCachePrices(
          { pattern: null, promptNanoPerMillion: BigInt(t.costPrice.promptNanoPerMillion), completionNanoPerMillion: BigInt(t.costPrice.completionNanoPerMillion) },
          ratios,
        )
      : null,
  }));
}

export interface RoutingOptions {
  db: Database;
  database: Pick<DatabaseHandle, 'listen'>;
  config: Pick<Config, 'upstreamBaseUrl' | 'upstreamTimeoutMs' | 'routeMaxAttempts' | 'routeTimeoutFailoversPerMinute'> &
    Partial<Pick<Config, 'cacheReadPriceRatioNano' | 'cacheWritePriceRatioNano'>>;
  logger: Logger;
  box: Pick<SecretBox, 'open'>;
  /** The environment's upstream, served as `default`. */
  defaultUpstream: Upstream;
  health: HealthStore;
  /** Every attempt per provider, for the operator's figures. */
  attempts: AttemptCounts;
  refreshMs?: number;
}

export function createRouting(options: RoutingOptions) {
  const { db, database, config, logger, box, defaultUpstream, health, attempts } = options;
  const refreshMs = options.refreshMs ?? 5 * 60_000;
  const ratios = cacheRatiosOf(config);
  const builtIn: ProviderEntry = {
    id: DEFAULT_PROVIDER_ID,
    name: DEFAULT_PROVIDER_ID,
    baseUrl: config.upstreamBaseUrl,
    enabled: true,
    timeoutMs: config.upstreamTimeoutMs,
    probeModel: null,
    upstream: defaultUpstream,
  };
  /** What a model no route matches is sent to: one array for every such request. */
  const unrouted: readonly Candidate[] = Object.freeze([{ provider: builtIn, model: null, cost: null }]);
  let providers = new Map<string, ProviderEntry>([[DEFAULT_PROVIDER_ID, builtIn]]);
  let routes: PatternTable<RouteTarget[]> = patternTable([]);
  let routeCount = 0;
  /** Grows with every load: what is derived from the routes (the model list) is rebuilt when it moves. */
  let version = 0;
  let timer: ReturnType<typeof setInterval> | null = null;
  let unlisten: (() => Promise<void>) | null = null;

  async function load() {
    const [providerRows, routeRows] = await Promise.all([
      db.select().from(providersTable).orderBy(asc(providersTable.id)),
      db.select().from(modelRoutes).orderBy(asc(modelRoutes.pattern)),
    ]);
    const nextProviders = new Map<string, ProviderEntry>([[DEFAULT_PROVIDER_ID, builtIn]]);
    for (const row of providerRows) {
      let apiKey: string | undefined;
      let usable = row.enabled;
      if (row.apiKeySealed) {
        try {
          apiKey = box.open(row.apiKeySealed, 'apiKey');
        } catch (error) {
          // Sealed with a key this instance does not have: sending no key would only earn a 401.
          usable = false;
          logger.error('could not open a provider’s API key; the provider is skipped until its key is saved again', {
            providerId: row.id,
            error,
          });
        }
      }
      nextProviders.set(row.id, {
        id: row.id,
        name: row.name,
        baseUrl: row.baseUrl,
        enabled: usable,
        timeoutMs: row.timeoutMs,
        probeModel: row.probeModel,
        upstream: createUpstream({ upstreamBaseUrl: row.baseUrl, upstreamApiKey: apiKey, upstreamProtocol: row.protocol === 'anthropic' ? 'anthropic' : 'openai' }),
      });
    }
    providers = nextProviders;
    routes = patternTable(routeRows.map((row) => ({ pattern: row.pattern, value: prepared(row.targets, ratios) })));
    routeCount = routeRows.length;
    version += 1;
  }

  const reload = coalescedReload(() => load().catch((error) => logger.error('could not load providers and routes; keeping the last copy', { error })));

  return {
    health,
    attempts,
    maxAttempts: config.routeMaxAttempts,
    /** Failovers after a timeout, per caller and minute (budget.ts). */
    timeoutFailovers: createFailoverBudget(config.routeTimeoutFailoversPerMinute),

    /**
     * The providers a request for `model` may try, in order: its route's targets (lower priority first,
     * by weight within one), those an operator switched off left out; `default`
     * when no route matches. Cooldown is for the caller to ask (health.admit) just before each attempt.
     */
    candidates(model: string): readonly Candidate[] {
      if (routeCount === 0) return unrouted;
      const targets = matchRoute(model, routes);
      if (!targets) return unrouted;
      const out: Candidate[] = [];
      for (const target of orderTargets(targets)) {
        const provider = providers.get(target.providerId);
        if (!provider?.enabled) continue;
        out.push({ provider, model: target.model && target.model !== model ? target.model : null, cost: target.cost ?? null });
      }
      return out;
    },

    provider(id: string): ProviderEntry | undefined {
      return providers.get(id);
    },

    /** Changes whenever providers or routes were loaded again. */
    version(): number {
      return version;
    },

    /** Every provider (`default` first) and route as this instance serves them now. */
    overview(): { providers: ProviderEntry[]; routes: { pattern: string; targets: readonly RouteTarget[] }[] } {
      return {
        providers: [...providers.values()].sort((a, b) => (a.id === DEFAULT_PROVIDER_ID ? -1 : b.id === DEFAULT_PROVIDER_ID ? 1 : a.id.localeCompare(b.id))),
        routes: [
          ...[...routes.exact.values()].map((r) => ({ pattern: r.pattern, targets: r.value })),
          ...routes.prefixes.map((p) => ({ pattern: p.pattern, targets: p.value })),
        ],
      };
    },

    reload,

    async start() {
      unlisten = await database.listen(
        ROUTING_CHANGED_CHANNEL,
        () => void reload(),
        () => void reload(),
      );
      await reload();
      await health.start();
      attempts.start();
      timer = setInterval(() => void reload(), refreshMs);
      timer.unref?.();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await unlisten?.().catch(() => {});
      unlisten = null;
      await health.stop();
      // The last counts written: the server has drained its requests by now.
      await attempts.stop();
    },
  };
}

export type Routing = ReturnType<typeof createRouting>;
