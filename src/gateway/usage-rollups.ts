// Reading usage over a period from the rollups (usage_rollups per quarter hour, usage_rollups_daily per UTC
// day, both kept by the settlement writer in the same statement as the rows) instead of the rows. A period
// [from, to) is its whole UTC days from the daily sums, the whole quarter hours at either side of them from
// the quarter-hour sums, and the rows of the at most two quarter hours its ends cut from usage_records: the
// sums stay exact for any instant while the rows read are at most 30 minutes' worth. Without an end the
// period runs to now, and the newest bucket of either table is as current as the rows.
import { sql, type SQL } from 'drizzle-orm';

/** The rollups' bucket: every UTC offset in use is a multiple of it, so days in any zone are whole buckets. */
export const BUCKET_MS = 15 * 60_000;

const DAY_MS = 86_400_000;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;
const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;

export interface UsageSpanFilter {
  userId?: string | undefined;
  keyId?: string | undefined;
  agentId?: string | undefined;
  model?: string | undefined;
  /** Included. */
  from?: Date | undefined;
  /** Excluded. */
  to?: Date | undefined;
  /**
   * Whole UTC days may come from the daily sums (rows then carry the day's start as `at`). Off for a
   * grouping by day in another time zone, whose days are not UTC days.
   */
  utcDays?: boolean;
}

type Bound = number | undefined;
export type Segment = { source: 'rows' | 'quarters' | 'days'; from: Bound; to: Bound };

/**
 * The pieces [from, to) is read from: the raw rows of the (at most two) quarter hours its ends cut, the
 * quarter hours up to the first and from the last whole UTC day, and the days between. An open end stays
 * open: the newest bucket of either table is as current as the rows.
 */
export function splitPeriod(from: Date | undefined, to: Date | undefined, utcDays: boolean): Segment[] {
  const start = from?.getTime();
  const end = to?.getTime();
  if (start !== undefined && end !== undefined && start >= end) return [];
  const qlo = start === undefined ? undefined : ceilTo(start, BUCKET_MS);
  const qhi = end === undefined ? undefined : floorTo(end, BUCKET_MS);
  // Both ends in one quarter hour, or in two adjacent ones: rows only.
  if (qlo !== undefined && qhi !== undefined && qlo >= qhi) return [{ source: 'rows', from: start, to: end }];
  const segments: Segment[] = [];
  if (start !== undefined && start < qlo!) segments.push({ source: 'rows', from: start, to: qlo });
  if (end !== undefined && qhi! < end) segments.push({ source: 'rows', from: qhi, to: end });
  const dlo = qlo === undefined ? undefined : ceilTo(qlo, DAY_MS);
  const dhi = qhi === undefined ? undefined : floorTo(qhi, DAY_MS);
  if (!utcDays || (dlo !== undefined && dhi !== undefined && dlo >= dhi)) {
    segments.push({ source: 'quarters', from: qlo, to: qhi });
    return segments;
  }
  if (qlo !== undefined && qlo < dlo!) segments.push({ source: 'quarters', from: qlo, to: dlo });
  segments.push({ source: 'days', from: dlo, to: dhi });
  if (qhi !== undefined && dhi! < qhi) segments.push({ source: 'quarters', from: dhi, to: qhi });
  return segments;
}

const at = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;

/**
 * The usage the filter selects, as a table of rollup-shaped rows (`at` the bucket, or the row's own time
 * for a cut quarter hour's rows), to be summed by the caller: columns at, user_id, api_key_id, agent_id, model,
 * endpoint, provider_id, requests, failed_requests, retried_requests, attempts, prompt_tokens,
 * completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano,
 * priced_requests, priced_cost_nano, provider_cost_nano. A cut bucket's rows have the same day in every
 * time zone as their bucket, so grouping by `at` in any zone is exact.
 */
export function usageSpan(filter: UsageSpanFilter): SQL {
  const parts: SQL[] = [];
  // The same columns name the same things in all three tables.
  const where = (from: Bound, to: Bound, column: 'bucket' | 'created_at') => {
    const conditions: SQL[] = [];
    if (filter.userId !== undefined) conditions.push(sql`user_id = ${filter.userId}::uuid`);
    if (filter.keyId !== undefined) conditions.push(sql`api_key_id = ${filter.keyId}::uuid`);
    if (filter.agentId !== undefined) conditions.push(sql`agent_id is not null and agent_id = ${filter.agentId}::uuid`);
    if (filter.model !== undefined) conditions.push(sql`model = ${filter.model}`);
    if (from !== undefined) conditions.push(sql`${sql.raw(column)} >= ${at(from)}`);
    if (to !== undefined) conditions.push(sql`${sql.raw(column)} < ${at(to)}`);
    return conditions.length > 0 ? sql` where ${sql.join(conditions, sql` and `)}` : sql``;
  };
  const sums = (table: 'usage_rollups' | 'usage_rollups_daily', condition: SQL) =>
    sql`select bucket as at, user_id, api_key_id, agent_id, model, endpoint, provider_id, requests,
      failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
      prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano
      from ${sql.raw(table)}${condition}`;
  for (const segment of splitPeriod(filter.from, filter.to, filter.utcDays === true)) {
    if (segment.source === 'days') parts.push(sums('usage_rollups_daily', where(segment.from, segment.to, 'bucket')));
    else if (segment.source === 'quarters') parts.push(sums('usage_rollups', where(segment.from, segment.to, 'bucket')));
    else {
      // Named like the rollups' columns: a lone branch names the columns of the whole.
      parts.push(sql`select created_at as at, user_id, api_key_id, agent_id, model, endpoint, provider_id, 1 as requests,
        (status <> 'ok')::int as failed_requests, (coalesce(attempts, 0) > 1)::int as retried_requests,
        coalesce(attempts, 0) as attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano, prompt_cost_nano,
        completion_cost_nano, unpaid_nano, (provider_cost_nano is not null)::int as priced_requests,
        case when provider_cost_nano is null then 0 else cost_nano end as priced_cost_nano,
        coalesce(provider_cost_nano, 0) as provider_cost_nano
        from usage_records${where(segment.from, segment.to, 'created_at')}`);
    }
  }
  // An empty period: a table of no rows with the same columns.
  if (parts.length === 0) parts.push(sums('usage_rollups', sql` where false`));
  return sql`(${sql.join(parts, sql` union all `)})`;
}
