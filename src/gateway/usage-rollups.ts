// Reading usage over a period from the rollups (usage_rollups, kept by the settlement writer in the same
// statement as the rows) instead of the rows. A period [from, to) is its whole quarter hours, summed from
// the rollups, plus the rows of the at most two quarter hours its ends cut, read from usage_records: the
// sums stay exact for any instant while the rows read are at most 30 minutes' worth. Without an end the
// period runs to now, and the current quarter hour's rollup is as current as its rows.
import { sql, type SQL } from 'drizzle-orm';

/** The rollups' bucket: every UTC offset in use is a multiple of it, so days in any zone are whole buckets. */
export const BUCKET_MS = 15 * 60_000;

const floorBucket = (t: number) => Math.floor(t / BUCKET_MS) * BUCKET_MS;
const ceilBucket = (t: number) => Math.ceil(t / BUCKET_MS) * BUCKET_MS;

export interface UsageSpanFilter {
  userId?: string | undefined;
  keyId?: string | undefined;
  agentId?: string | undefined;
  model?: string | undefined;
  /** Included. */
  from?: Date | undefined;
  /** Excluded. */
  to?: Date | undefined;
}

/** Which buckets are whole inside [from, to), and which ranges of rows the cut buckets contribute. */
export function splitPeriod(from: Date | undefined, to: Date | undefined) {
  const start = from?.getTime();
  const end = to?.getTime();
  const lo = start === undefined ? undefined : ceilBucket(start);
  const hi = end === undefined ? undefined : floorBucket(end);
  if (start !== undefined && end !== undefined && start >= end) return { buckets: null, rows: [] as [number | undefined, number | undefined][] };
  if (lo !== undefined && hi !== undefined && lo >= hi) {
    // Both ends in one bucket (or adjacent cut buckets with no whole one between): rows only.
    return { buckets: null, rows: [[start, end]] as [number | undefined, number | undefined][] };
  }
  const rows: [number | undefined, number | undefined][] = [];
  if (start !== undefined && start < lo!) rows.push([start, lo]);
  if (end !== undefined && hi! < end) rows.push([hi, end]);
  return { buckets: { from: lo, to: hi }, rows };
}

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

/**
 * The usage the filter selects, as a table of rollup-shaped rows (`at` the bucket, or the row's own time
 * for a cut bucket's rows), to be summed by the caller: columns at, user_id, api_key_id, agent_id, model,
 * endpoint, provider_id, requests, failed_requests, retried_requests, attempts, prompt_tokens,
 * completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano,
 * priced_requests, priced_cost_nano, provider_cost_nano. A cut bucket's rows have the same day in every
 * time zone as their bucket, so grouping by `at` in any zone is exact.
 */
export function usageSpan(filter: UsageSpanFilter): SQL {
  const { buckets, rows } = splitPeriod(filter.from, filter.to);
  const parts: SQL[] = [];
  // The same columns name the same things in both tables.
  const where = () => {
    const conditions: SQL[] = [];
    if (filter.userId !== undefined) conditions.push(sql`user_id = ${filter.userId}::uuid`);
    if (filter.keyId !== undefined) conditions.push(sql`api_key_id = ${filter.keyId}::uuid`);
    if (filter.agentId !== undefined) conditions.push(sql`agent_id is not null and agent_id = ${filter.agentId}::uuid`);
    if (filter.model !== undefined) conditions.push(sql`model = ${filter.model}`);
    return conditions;
  };
  if (buckets) {
    const conditions = where();
    if (buckets.from !== undefined) conditions.push(sql`bucket >= ${at(buckets.from)}`);
    if (buckets.to !== undefined) conditions.push(sql`bucket < ${at(buckets.to)}`);
    parts.push(sql`select bucket as at, user_id, api_key_id, agent_id, model, endpoint, provider_id, requests,
      failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
      prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano
      from usage_rollups${conditions.length > 0 ? sql` where ${sql.join(conditions, sql` and `)}` : sql``}`);
  }
  for (const [start, end] of rows) {
    const conditions = where();
    if (start !== undefined) conditions.push(sql`created_at >= ${at(start)}`);
    if (end !== undefined) conditions.push(sql`created_at < ${at(end)}`);
    // Named like the rollups' columns: a lone branch names the columns of the whole.
    parts.push(sql`select created_at as at, user_id, api_key_id, agent_id, model, endpoint, provider_id, 1 as requests,
      (status <> 'ok')::int as failed_requests, (coalesce(attempts, 0) > 1)::int as retried_requests,
      coalesce(attempts, 0) as attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano,
      completion_cost_nano, unpaid_nano, (provider_cost_nano is not null)::int as priced_requests,
      case when provider_cost_nano is null then 0 else cost_nano end as priced_cost_nano,
      coalesce(provider_cost_nano, 0) as provider_cost_nano
      from usage_records${conditions.length > 0 ? sql` where ${sql.join(conditions, sql` and `)}` : sql``}`);
  }
  // An empty period: a table of no rows with the same columns.
  if (parts.length === 0) {
    parts.push(sql`select bucket as at, user_id, api_key_id, agent_id, model, endpoint, provider_id, requests,
      failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
      prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano
      from usage_rollups where false`);
  }
  return sql`(${sql.join(parts, sql` union all `)})`;
}
