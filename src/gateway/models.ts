// GET /v1/models: what the gateway serves, in OpenAI's shape. Without routes, the upstream's (`default`'s)
// list, as before routing. With routes: `default`'s models no route takes, each exact route's pattern (the
// id clients ask for, described by the first target provider that lists it) and, for a prefix route, its
// providers' models under the prefix that no longer pattern takes. Each provider's list is cached and served
// from its last good copy while it is down; a provider that cannot list leaves the others' models in.
// GET /health/upstream: a quick probe of `default`'s list, its result kept a few seconds, so
// unauthenticated probes cannot make the upstream be called at their rate.
import type { Logger } from '../logger';
import { AppError } from '../http/errors';
import type { Upstream } from './upstream';
import { DEFAULT_PROVIDER_ID, type Routing } from './routing/registry';
import { matchRoute, type RouteTarget } from './routing/select';
import { modelKey, patternTable } from '../pricing/model-id';

export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  [extra: string]: unknown;
}

export interface ModelList {
  object: 'list';
  data: ModelEntry[];
}

function normalise(payload: unknown): ModelList {
  const raw = (payload as { data?: unknown })?.data ?? payload;
  if (!Array.isArray(raw)) throw new Error('models payload has no list');
  const data: ModelEntry[] = [];
  for (const item of raw) {
    if (!item || typeof item !== 'object' || typeof (item as { id?: unknown }).id !== 'string') continue;
    const m = item as Record<string, unknown> & { id: string };
    data.push({
      ...m,
      id: m.id,
      object: 'model',
      created: typeof m.created === 'number' ? m.created : 0,
      owned_by: typeof m.owned_by === 'string' ? m.owned_by : (m.id.split('/')[0] ?? 'unknown'),
    });
  }
  return { object: 'list', data };
}

/** The model id of a /v1/models/{id} path: sent as is ("acme/chat") or encoded ("acme%2Fchat"); null if it cannot be one. */
export function modelIdOf(rawPath: string): string | null {
  let id: string;
  try {
    id = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  return id.length > 0 && id.length <= 256 && !/[\u0000-\u001f]/.test(id) ? id : null;
}

export type ProbeResult = { ok: true; latencyMs: number } | { ok: false; latencyMs: number; error: string };

export function createModelCatalog(options: {
  upstream: Upstream;
  logger: Logger;
  /** The providers and routes whose models are listed; absent: `upstream`'s list alone. */
  routing?: Pick<Routing, 'overview' | 'version'>;
  ttlMs?: number;
  timeoutMs?: number;
  probeTimeoutMs?: number;
  /** How long a probe's result answers later probes (0: every probe asks the upstream). */
  probeCacheMs?: number;
}) {
  const { upstream, logger, routing } = options;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
  const probeCacheMs = options.probeCacheMs ?? 5_000;
  interface Source {
    upstream: Pick<Upstream, 'models'>;
    cached: { list: ModelList; fetchedAt: number } | null;
    refreshing: Promise<ModelList> | null;
  }
  /**
   * Each provider's list by provider id and base URL (another URL is another provider's list; a new key is
   * not, and its client replaces the old one here).
   */
  const sources = new Map<string, Source>();
  /** The merged list, rebuilt only when a provider's list or the routes change, so its priced JSON stays cached. */
  let merged: { inputs: (ModelList | null)[]; version: number; list: ModelList } | null = null;
  let lastProbe: { result: ProbeResult; at: number } | null = null;
  let probing: Promise<ProbeResult> | null = null;

  async function fetchList(from: Pick<Upstream, 'models'>): Promise<ModelList> {
    const res = await from.models(AbortSignal.timeout(timeoutMs));
    if (!res.ok) throw new Error(`upstream answered ${res.status}`);
    return normalise(await res.json());
  }

  /** A provider's list: cached for ttlMs, its last good copy while it fails; throws when it never listed. */
  async function listOf(providerId: string, from: Pick<Upstream, 'models'>, baseUrl = ''): Promise<ModelList> {
    const key = `${providerId} ${baseUrl}`;
    let source = sources.get(key);
    if (!source) {
      source = { upstream: from, cached: null, refreshing: null };
      sources.set(key, source);
    }
    source.upstream = from;
    const s = source;
    if (s.cached && Date.now() - s.cached.fetchedAt < ttlMs) return s.cached.list;
    s.refreshing ??= fetchList(s.upstream)
      .then((list) => {
        s.cached = { list, fetchedAt: Date.now() };
        return list;
      })
      .finally(() => {
        s.refreshing = null;
      });
    try {
      return await s.refreshing;
    } catch (error) {
      if (s.cached) {
        logger.warn('model list refresh failed; serving the last good copy', { providerId, error });
        return s.cached.list;
      }
      logger.warn('model list unavailable', { providerId, error });
      throw error;
    }
  }

  async function routedList(): Promise<ModelList> {
    const { providers, routes } = routing!.overview();
    const usable = new Map(providers.filter((p) => p.enabled).map((p) => [p.id, p]));
    const ids = [DEFAULT_PROVIDER_ID, ...new Set(routes.flatMap((r) => r.targets.map((t) => t.providerId)))].filter(
      (id, i, all) => usable.has(id) && all.indexOf(id) === i,
    );
    const lists = await Promise.all(
      ids.map((id) => (id === DEFAULT_PROVIDER_ID ? listOf(id, upstream) : listOf(id, usable.get(id)!.upstream, usable.get(id)!.baseUrl)).catch(() => null)),
    );
    if (lists.every((l) => l === null)) throw new AppError('upstream_error');
    const version = routing!.version();
    if (merged && merged.version === version && merged.inputs.length === lists.length && merged.inputs.every((l, i) => l === lists[i])) {
      return merged.list;
    }
    const listOfId = new Map(ids.map((id, i) => [id, lists[i] ?? null]));
    const table = patternTable<readonly RouteTarget[]>(routes.map((r) => ({ pattern: r.pattern, value: r.targets })));
    const data = new Map<string, ModelEntry>();
    for (const model of listOfId.get(DEFAULT_PROVIDER_ID)?.data ?? []) {
      if (matchRoute(model.id, table) === null) data.set(model.id, model);
    }
    for (const { pattern, value: targets } of table.exact.values()) {
      const served = targets.filter((t) => usable.has(t.providerId));
      if (served.length === 0) continue;
      let described: ModelEntry | undefined;
      for (const t of served) {
        const upstreamId = t.model ?? pattern;
        described = listOfId.get(t.providerId)?.data.find((m) => m.id === upstreamId);
        if (described) break;
      }
      data.set(pattern, described ? { ...described, id: pattern } : { id: pattern, object: 'model', created: 0, owned_by: pattern.split('/')[0] || 'unknown' });
    }
    for (const { prefix, value: targets } of table.prefixes) {
      for (const t of targets) {
        for (const model of listOfId.get(t.providerId)?.data ?? []) {
          if (!data.has(model.id) && modelKey(model.id).startsWith(prefix) && matchRoute(model.id, table) === targets) data.set(model.id, model);
        }
      }
    }
    const list: ModelList = { object: 'list', data: [...data.values()] };
    merged = { inputs: lists, version, list };
    return list;
  }

  async function probeUpstream(): Promise<ProbeResult> {
    const started = performance.now();
    try {
      const res = await upstream.models(AbortSignal.timeout(probeTimeoutMs));
      await res.body?.cancel();
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      return res.ok ? { ok: true, latencyMs } : { ok: false, latencyMs, error: `status ${res.status}` };
    } catch (error) {
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return { ok: false, latencyMs, error: timedOut ? 'timeout' : 'unreachable' };
    }
  }

  return {
    async list(): Promise<ModelList> {
      if (routing && routing.overview().routes.length > 0) return routedList();
      try {
        return await listOf(DEFAULT_PROVIDER_ID, upstream);
      } catch {
        throw new AppError('upstream_error');
      }
    },

    /** The last probe's result while it is fresh; otherwise one probe, shared by everyone asking meanwhile. */
    probe(): Promise<ProbeResult> {
      if (lastProbe && performance.now() - lastProbe.at < probeCacheMs) return Promise.resolve(lastProbe.result);
      probing ??= probeUpstream()
        .then((result) => {
          // A failure is kept as long as a success: a flood while the upstream is down must not add to its load.
          lastProbe = { result, at: performance.now() };
          return result;
        })
        .finally(() => {
          probing = null;
        });
      return probing;
    },
  };
}

export type ModelCatalog = ReturnType<typeof createModelCatalog>;
