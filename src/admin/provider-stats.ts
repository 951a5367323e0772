// Each provider's last hour: its upstream attempts, of them its own faults and the clients' own errors,
// summed from the per-minute counts every instance adds to (gateway/routing/attempt-counts.ts, failover
// attempts included), its success rate (the attempts that were not its own fault), and the median and
// 95th percentile time of the answers it gave, from the usage log (the row of a request names the provider
// that answered it; its duration is the whole request's, the stream included): no new write on the hot
// path, and summed over every instance already.
//
// The hour is the last 60 minute buckets, the current one included; the usage log's range on created_at
// is served by usage_records_created_idx (a small slice of a table that only grows), the counts' by
// provider_attempt_counts_minute_idx.
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../db/client';
import { DEFAULT_PROVIDER_ID } from '../gateway';

export interface ProviderHourStats {
  /** Every attempt at the provider, those that failed over to another one included. */
  attempts: number;
  /** Attempts that failed on the provider's side: 5xx, 408, 429, timeouts, connection errors, our key refused, answers cut short. */
  faults: number;
  /** The clients' own 4xx the provider answered and the client was given: not the provider's fault. */
  clientErrors: number;
  /** Share of the attempts that were not its own fault (0..1); null without attempts. */
  successRate: number | null;
  /** Median duration of the requests it answered successfully; null when it gave none this hour. */
  p50LatencyMs: number | null;
  /** 95th percentile of the same. */
  p95LatencyMs: number | null;
}

export const EMPTY_HOUR: ProviderHourStats = { attempts: 0, faults: 0, clientErrors: 0, successRate: null, p50LatencyMs: null, p95LatencyMs: null };

/** Figures per provider id over the hour before now (the database's clock). */
export async function providerLastHour(executor: Executor): Promise<Map<string, ProviderHourStats>> {
  const [counts, medians] = await Promise.all([
    executor.execute(sql`
    select provider_id, sum(attempts)::text as attempts, sum(faults)::text as faults, sum(client_errors)::text as client_errors
      from provider_attempt_counts
     where minute > date_trunc('minute', now()) - interval '1 hour'
     group by 1`),
    // Rows written before routing have no provider: only the environment's upstream existed then.
    executor.execute(sql`
    select coalesce(provider_id, ${DEFAULT_PROVIDER_ID}) as provider_id,
           (percentile_disc(0.5) within group (order by duration_ms))::text as p50,
           (percentile_disc(0.95) within group (order by duration_ms))::text as p95
      from usage_records
     where created_at >= now() - interval '1 hour' and status = 'ok'
     group by 1`),
  ]);
  const out = new Map<string, ProviderHourStats>();
  const of = (id: string) => {
    let s = out.get(id);
    if (!s) out.set(id, (s = { ...EMPTY_HOUR }));
    return s;
  };
  for (const r of rowsOf<{ provider_id: string; attempts: string; faults: string; client_errors: string }>(counts)) {
    const attempts = Number(r.attempts);
    const faults = Number(r.faults);
    Object.assign(of(r.provider_id), { attempts, faults, clientErrors: Number(r.client_errors), successRate: attempts > 0 ? (attempts - faults) / attempts : null });
  }
  for (const r of rowsOf<{ provider_id: string; p50: string | null; p95: string | null }>(medians)) {
    of(r.provider_id).p50LatencyMs = r.p50 === null ? null : Number(r.p50);
    of(r.provider_id).p95LatencyMs = r.p95 === null ? null : Number(r.p95);
  }
  return out;
}
