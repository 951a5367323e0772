// GET /v1/models: the upstream's list in OpenAI's shape, cached, and served from the last good copy
// while the upstream is down. GET /health/upstream: a quick probe of the same endpoint, its result kept
// a few seconds, so unauthenticated probes cannot make the upstream be called at their rate.
import type { Logger } from '../logger';
import { AppError } from '../http/errors';
import type { Upstream } from './upstream';

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
  ttlMs?: number;
  timeoutMs?: number;
  probeTimeoutMs?: number;
  /** How long a probe's result answers later probes (0: every probe asks the upstream). */
  probeCacheMs?: number;
}) {
  const { upstream, logger } = options;
  const ttlMs = options.ttlMs ?? 5 * 60_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 3_000;
  const probeCacheMs = options.probeCacheMs ?? 5_000;
  let cached: { list: ModelList; fetchedAt: number } | null = null;
  let refreshing: Promise<ModelList> | null = null;
  let lastProbe: { result: ProbeResult; at: number } | null = null;
  let probing: Promise<ProbeResult> | null = null;

  async function fetchList(): Promise<ModelList> {
    const res = await upstream.models(AbortSignal.timeout(timeoutMs));
    if (!res.ok) throw new Error(`upstream answered ${res.status}`);
    return normalise(await res.json());
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
      if (cached && Date.now() - cached.fetchedAt < ttlMs) return cached.list;
      refreshing ??= fetchList()
        .then((list) => {
          cached = { list, fetchedAt: Date.now() };
          return list;
        })
        .finally(() => {
          refreshing = null;
        });
      try {
        return await refreshing;
      } catch (error) {
        if (cached) {
          logger.warn('model list refresh failed; serving the last good copy', { error });
          return cached.list;
        }
        logger.warn('model list unavailable', { error });
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
