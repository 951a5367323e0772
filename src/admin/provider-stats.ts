// Each provider's last hour, read from the usage log: requests answered (or last tried) by it, how many of
// them failed on the provider's side, and the median time of its successful answers. One function, so the
// per-period rollups planned for usage history replace this one query and nothing else.
//
// The range on created_at is served by usage_records_created_idx: the newest hour is a small slice of a
// table that only grows, and without that index every read of the providers screen scanned all of it.
import { sql } from 'drizzle-orm';
import { rowsOf, type Executor } from '../db/client';
import { DEFAULT_PROVIDER_ID } from '../gateway';

export interface ProviderHourStats {
  requests: number;
  /** Rows that ended on the provider's side (an error, timeout, refusal or cut stream); a client leaving is not its fault. */
  errors: number;
  /** Median duration of its successful answers; null when it gave none this hour. */
  p50LatencyMs: number | null;
}

export const EMPTY_HOUR: ProviderHourStats = { requests: 0, errors: 0, p50LatencyMs: null };

/** Figures per provider id over the hour before now (the database's clock). */
export async function providerLastHour(executor: Executor): Promise<Map<string, ProviderHourStats>> {
  // Rows written before routing have no provider: only the environment's upstream existed then.
  const rows = rowsOf<{ provider_id: string; requests: string; errors: string; p50: string | null }>(
    await executor.execute(sql`
    select coalesce(provider_id, ${DEFAULT_PROVIDER_ID}) as provider_id,
           count(*)::text as requests,
           (count(*) filter (where status not in ('ok', 'client_closed')))::text as errors,
           (percentile_disc(0.5) within group (order by duration_ms) filter (where status = 'ok'))::text as p50
      from usage_records
     where created_at >= now() - interval '1 hour'
       -- Refused with 402 before routing: no provider was asked.
       and status not in ('refused_balance', 'refused_key_limit')
     group by 1`),
  );
  return new Map(rows.map((r) => [r.provider_id, { requests: Number(r.requests), errors: Number(r.errors), p50LatencyMs: r.p50 === null ? null : Number(r.p50) }]));
}
