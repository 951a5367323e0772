// GET /health/upstream: whether the gateway can answer model requests now, and each provider's health.
// 200 while the instance can serve something: `default` answered its probe (and a `*` route does not send
// every model elsewhere), or any route has a target provider that is switched on, not disabled and not
// cooling down. A load balancer takes an instance out only when it can serve nothing: one route left
// without a provider (a client may have put it there) is every instance's trouble alike, shown to the
// operator in `unservedRoutes`, not a reason to drop instances. Only `default` is probed (as before
// routing, the probe is kept a few seconds); the other providers are judged by the requests they served,
// which is what the circuit breaker acts on. The whole body (status, latencyMs, error: the probe of
// `default`; `providers`; `unservedRoutes`) is for admins; anyone else gets `{status}` (http/health.route.ts).
import type { ProbeResult } from '../models';
import { DEFAULT_PROVIDER_ID, type Routing } from './registry';

export interface ProviderStatus {
  id: string;
  name: string;
  enabled: boolean;
  state: 'up' | 'cooling_down' | 'disabled';
  consecutiveFailures: number;
  cooldownUntil: string | null;
  lastError: string | null;
  /** `default` only: its probe's time. */
  latencyMs?: number;
}

export interface UpstreamStatus {
  status: 'ok' | 'unavailable';
  latencyMs: number;
  error?: string;
  providers: ProviderStatus[];
  /** Routes none of whose providers can take a request now (when there are any). */
  unservedRoutes?: string[];
}

export function upstreamStatus(routing: Pick<Routing, 'overview' | 'health'>, probe: ProbeResult, now = Date.now()): UpstreamStatus {
  const { providers, routes } = routing.overview();
  const canTake = new Map<string, boolean>();
  const listed: ProviderStatus[] = providers.map((provider) => {
    const health = routing.health.get(provider.id);
    const isDefault = provider.id === DEFAULT_PROVIDER_ID;
    // A cooldown that is over admits a trial request: the provider can take one.
    const cooling = health.state === 'cooling_down' && health.cooldownUntil !== null && health.cooldownUntil > now;
    canTake.set(provider.id, isDefault ? probe.ok : provider.enabled && health.state !== 'disabled' && !cooling);
    return {
      id: provider.id,
      name: provider.name,
      enabled: provider.enabled,
      state: health.state,
      consecutiveFailures: health.consecutiveFailures,
      cooldownUntil: health.cooldownUntil === null ? null : new Date(health.cooldownUntil).toISOString(),
      lastError: health.lastError,
      ...(isDefault ? { latencyMs: probe.latencyMs } : {}),
    };
  });
  const unserved = routes.filter((route) => !route.targets.some((t) => canTake.get(t.providerId) === true)).map((r) => r.pattern);
  const everyModelRouted = routes.some((r) => r.pattern === '*');
  const ok = (probe.ok && !everyModelRouted) || unserved.length < routes.length;
  return {
    status: ok ? 'ok' : 'unavailable',
    latencyMs: probe.latencyMs,
    ...(probe.ok ? {} : { error: probe.error }),
    providers: listed,
    ...(unserved.length === 0 ? {} : { unservedRoutes: unserved }),
  };
}
