// Providers that heal themselves: every PROVIDER_PROBE_SECONDS the gateway asks each provider that is
// cooling down or disabled for faults whether it answers again — GET {baseUrl}/models through the
// provider's own client (its key, its redaction), or a 1-token chat request when the operator named a
// probe model (a host without /models, or one whose /models answers without checking the key, as
// OpenRouter's does: a refused key is only seen by a request that needs it). A provider an operator
// switched off is left alone.
//
// Once across instances: every instance runs the job, each run under one advisory lock, and a provider is
// due only when its last probe (the `provider_probes` table, any instance's) is older than half a period,
// so two instances whose timers drift apart do not both probe it in one period.
//
// A success returns the provider to `up` through the health's own write and NOTIFY (health.probeSucceeded),
// so every instance sends to it again at once, without an operator. A failure changes nothing: the
// provider stays out, and its cooldown runs as before (a half-open trial once it is over). Each probe is
// recorded — provider, time, outcome, status, latency, error — and the last PROBES_KEPT per provider kept
// for the console; «Проверить сейчас» is probeNow, recorded the same way with trigger `operator`.
import type { DatabaseHandle } from '../../db/client';
import type { Logger } from '../../logger';
import { createPeriodicJob } from '../../jobs/periodic';
import { upstreamErrorInfo } from '../upstream';
import { storable, type ProviderState } from './health';
import type { ProviderEntry, Routing } from './registry';

export const PROVIDER_PROBES_LOCK = 'gateway.provider-probes';
/** Probes kept per provider: what the console shows and a little more. */
export const PROBES_KEPT = 50;
/** A probe waits at most this long (or the provider's own timeout, when shorter). */
const PROBE_TIMEOUT_MS = 15_000;
/** What a probe reads of an error answer, for its message. */
const ERROR_TEXT_BYTES = 4096;

export type ProbeTrigger = 'schedule' | 'operator';

export interface ProbeOutcome {
  providerId: string;
  at: string;
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  trigger: ProbeTrigger;
  /** The provider's health after the probe. */
  state: ProviderState;
}

interface ProbeAnswer {
  ok: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** The first bytes of an error answer, as text. */
async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  return text.slice(0, ERROR_TEXT_BYTES);
}

/** One question to the provider: is it answering? */
async function ask(entry: ProviderEntry): Promise<ProbeAnswer> {
  const timeout = AbortSignal.timeout(Math.min(entry.timeoutMs, PROBE_TIMEOUT_MS));
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    // The 1-token question in the provider's own protocol (an anthropic provider has no /chat/completions).
    const question = JSON.stringify({ model: entry.probeModel, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1, stream: false });
    const response = entry.probeModel
      ? await (entry.upstream.protocol === 'anthropic' ? entry.upstream.messages(question, timeout, null) : entry.upstream.chatCompletions(question, timeout))
      : await entry.upstream.models(timeout);
    const latencyMs = latency();
    if (response.ok) {
      await response.body?.cancel().catch(() => {});
      return { ok: true, status: response.status, latencyMs, error: null };
    }
    const text = await errorText(response);
    const message = upstreamErrorInfo(text)?.message ?? text.trim();
    return { ok: false, status: response.status, latencyMs, error: storable(entry.upstream.redact(`status ${response.status}${message ? `: ${message}` : ''}`)) };
  } catch (error) {
    const detail = timeout.aborted ? 'no answer in time' : error instanceof Error ? error.message : String(error);
    return { ok: false, status: null, latencyMs: latency(), error: storable(entry.upstream.redact(detail)) };
  }
}

const RECORD_SQL = `
insert into provider_probes (provider_id, ok, status, latency_ms, error, trigger) values ($1, $2, $3, $4, $5, $6)
returning at`;

const PRUNE_SQL = `
delete from provider_probes where provider_id = $1 and id not in (
  select id from provider_probes where provider_id = $1 order by at desc, id desc limit ${PROBES_KEPT})`;

// Cooling down or disabled, and not probed by any instance within the last half period.
const DUE_SQL = `
select h.provider_id from provider_health h
 where h.state <> 'up'
   and not exists (select 1 from provider_probes p
                    where p.provider_id = h.provider_id and p.at > now() - make_interval(secs => $1::double precision))`;

export interface ProviderProbesOptions {
  database: Pick<DatabaseHandle, 'query' | 'withLock'>;
  routing: Pick<Routing, 'provider' | 'health'>;
  logger: Logger;
  /** PROVIDER_PROBE_SECONDS; 0: no periodic probes (probeNow still works). */
  periodSeconds: number;
}

export function createProviderProbes({ database, routing, logger, periodSeconds }: ProviderProbesOptions) {
  async function probe(entry: ProviderEntry, trigger: ProbeTrigger): Promise<ProbeOutcome> {
    const answer = await ask(entry);
    const [row] = await database.query<{ at: string | Date }>(RECORD_SQL, [entry.id, answer.ok, answer.status, answer.latencyMs, answer.error, trigger]);
    await database.query(PRUNE_SQL, [entry.id]);
    if (answer.ok) {
      const before = routing.health.get(entry.id).state;
      await routing.health.probeSucceeded(entry.id);
      if (before !== 'up') logger.info('provider back in service: a probe found it answering', { providerId: entry.id, trigger });
    }
    const at = row?.at instanceof Date ? row.at.toISOString() : new Date(String(row?.at ?? Date.now())).toISOString();
    return { providerId: entry.id, at, trigger, ...answer, state: routing.health.get(entry.id).state };
  }

  /** One round: every provider due, probed at once, under the lock. */
  async function round(): Promise<number> {
    const outcome = await database.withLock(PROVIDER_PROBES_LOCK, async () => {
      const due = await database.query<{ provider_id: string }>(DUE_SQL, [periodSeconds / 2]);
      const entries = due.map((row) => routing.provider(row.provider_id)).filter((entry): entry is ProviderEntry => entry?.enabled === true);
      await Promise.all(entries.map((entry) => probe(entry, 'schedule')));
      return entries.length;
    });
    return outcome.acquired ? outcome.value : 0;
  }

  const job = createPeriodicJob({ name: 'provider probes', intervalMs: Math.max(1, periodSeconds) * 1000, run: round, logger });

  return {
    /** «Проверить сейчас»: the provider probed at once, whatever its state; null when there is no such provider. */
    async probeNow(providerId: string): Promise<ProbeOutcome | null> {
      const entry = routing.provider(providerId);
      return entry ? probe(entry, 'operator') : null;
    },

    /** One periodic round now (what the job runs); the number of providers probed. */
    round,

    start() {
      if (periodSeconds > 0) job.start();
    },

    stop: () => job.stop(),
  };
}

export type ProviderProbes = ReturnType<typeof createProviderProbes>;
