// Reading usage over a period from the rollups (usage_rollups per quarter hour, usage_rollups_daily per UTC
// day, both kept by the settlement writer in the same statement as the rows) instead of the rows. A period
// [from, to) is its whole UTC days from the daily sums, the whole quarter hours at either side of them from
// the quarter-hour sums, and the rows of the at most two quarter hours its ends cut from usage_records: the
// sums stay exact for any instant while the rows read are at most 30 minutes' worth. Without an end the
// period runs to now, and the newest bucket of either table is as current as the rows.
// A reader that needs neither key, agent nor endpoint (`coarse`) reads the same sums per account and model
// (usage_rollups_account, …_hourly, …_daily) or, for the whole service's days, usage_rollups_operator_daily
// (issue 46: at 10 M rows over a thousand accounts the per-key sums of a month are ~750 k rows).
import { sql, type SQL } from 'drizzle-orm';

/** The rollups' bucket: every UTC offset in use is a multiple of it, so days in any zone are whole buckets. */
export const BUCKET_MS = 15 * 60_000;

const DAY_MS = 86_400_000;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;
const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;

export interface UsageSpanFilter {
  userId?: string | undefined;
  keyId?: string | undefined;
  /** Only the keys this member created (an organisation's developer reads their own usage). */
  createdBy?: string | undefined;
  agentId?: string | undefined;
  model?: string | undefined;
  /** The /v1 endpoint (chat, embeddings, responses, audio_transcriptions, messages). */
  endpoint?: string | undefined;
  /** Included. */
  from?: Date | undefined;
  /** Excluded. */
  to?: Date | undefined;
  /**
   * Whole UTC days may come from the daily sums (rows then carry the day's start as `at`). Off for a
   * grouping by day in another time zone, whose days are not UTC days.
   */
  utcDays?: boolean;
  /**
   * The caller reads only `at`, model, provider_id and the sums, never user, key, agent or endpoint: then a
   * filter by nothing but user and model reads the per-account sums (usage_rollups_account, …_daily), and
   * one by model or nothing the whole service's daily sums (usage_rollups_operator_daily) for its whole
   * days. The columns those tables do not have read as null.
   */
  coarse?: boolean;
}

/** Which rollup tables serve a filter: the per-key ones, the per-account ones, or the service's days. */
type Level = 'key' | 'account' | 'operator';

function levelOf(filter: UsageSpanFilter): Level {
  if (filter.coarse !== true) return 'key';
  if (filter.keyId !== undefined || filter.createdBy !== undefined || filter.agentId !== undefined || filter.endpoint !== undefined) return 'key';
  return filter.userId === undefined ? 'operator' : 'account';
}

/**
 * The quarter-hour, hourly and daily tables of a level (the service has no quarter hours of its own: the
 * per-key ones; only an account has hourly sums, for the summary in a zone whose midnight is not a UTC one).
 */
const TABLES: Record<Level, { quarters: string; hours?: string; days: string }> = {
  key: { quarters: 'usage_rollups', days: 'usage_rollups_daily' },
  account: { quarters: 'usage_rollups_account', hours: 'usage_rollups_account_hourly', days: 'usage_rollups_account_daily' },
  operator: { quarters: 'usage_rollups', days: 'usage_rollups_operator_daily' },
};

/** The key columns of a rollup table, those it lacks as typed nulls. */
function keyColumns(table: string): string {
  if (table === 'usage_rollups' || table === 'usage_rollups_daily') return 'user_id, api_key_id, agent_id, model, endpoint, provider_id';
  const user = table === 'usage_rollups_operator_daily' ? 'null::uuid as user_id' : 'user_id';
  return `${user}, null::uuid as api_key_id, null::uuid as agent_id, model, null::text as endpoint, provider_id`;
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
  return spanOf(filter, splitPeriod(filter.from, filter.to, filter.utcDays === true));
}

/** The conditions of a filter (but its period) on any of the three tables, which name their columns alike. */
function filterConditions(filter: UsageSpanFilter, alias: string): SQL[] {
  const column = (name: string) => sql.raw(alias ? `${alias}.${name}` : name);
  const conditions: SQL[] = [];
  if (filter.userId !== undefined) conditions.push(sql`${column('user_id')} = ${filter.userId}::uuid`);
  if (filter.keyId !== undefined) conditions.push(sql`${column('api_key_id')} = ${filter.keyId}::uuid`);
  if (filter.createdBy !== undefined) {
    conditions.push(sql`${column('api_key_id')} in (select k.id from api_keys k where k.created_by = ${filter.createdBy}::uuid)`);
  }
  if (filter.agentId !== undefined) conditions.push(sql`${column('agent_id')} is not null and ${column('agent_id')} = ${filter.agentId}::uuid`);
  if (filter.model !== undefined) conditions.push(sql`${column('model')} = ${filter.model}`);
  if (filter.endpoint !== undefined) conditions.push(sql`${column('endpoint')} = ${filter.endpoint}`);
  return conditions;
}

function spanOf(filter: UsageSpanFilter, segments: Segment[]): SQL {
  const parts: SQL[] = [];
  // The same columns name the same things in all three tables.
  const where = (from: Bound, to: Bound, column: 'bucket' | 'created_at') => {
    const conditions = filterConditions(filter, '');
    if (from !== undefined) conditions.push(sql`${sql.raw(column)} >= ${at(from)}`);
    if (to !== undefined) conditions.push(sql`${sql.raw(column)} < ${at(to)}`);
    return conditions.length > 0 ? sql` where ${sql.join(conditions, sql` and `)}` : sql``;
  };
  const tables = TABLES[levelOf(filter)];
  const sums = (table: string, condition: SQL) =>
    sql`select bucket as at, ${sql.raw(keyColumns(table))}, requests,
      failed_requests, retried_requests, attempts, prompt_tokens, completion_tokens, total_tokens, cost_nano,
      prompt_cost_nano, completion_cost_nano, unpaid_nano, priced_requests, priced_cost_nano, provider_cost_nano
      from ${sql.raw(table)}${condition}`;
  for (const segment of segments) {
    if (segment.source === 'days') parts.push(sums(tables.days, where(segment.from, segment.to, 'bucket')));
    else if (segment.source === 'quarters') parts.push(sums(tables.quarters, where(segment.from, segment.to, 'bucket')));
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

/** The sums the summary shows, in the order localDaySums gives them. */
const SUMMED = ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_nano', 'prompt_cost_nano', 'completion_cost_nano', 'unpaid_nano'];

/**
 * The usage the filter selects as (day, model, sums) rows, `day` the local day in `timeZone` (a timestamp
 * at its midnight), to be summed by the caller. The period's whole UTC days are read from the daily sums,
 * even in a zone whose days are not UTC days: a UTC day holds parts of two local days split at a local
 * midnight m, so its daily sum is counted for the local day holding most of it and the quarter hours of the
 * smaller part (3 of the 24 hours in Moscow, 5.5 in Kolkata) are moved to the other day, subtracted from
 * one and added to their own. A day whose split cannot be shown to fall on a quarter hour, with every
 * quarter before it in one local day and every one after in the next (a transition at midnight, say), is
 * read from its quarter hours. Without a key filter the account's own sums serve, and the smaller part is
 * read as whole hours plus at most three quarter hours. The rest of the period (the quarter hours and rows
 * at its ends) is read as usageSpan reads it.
 */
export function localDaySums(query: Omit<UsageSpanFilter, 'utcDays' | 'from' | 'coarse'> & { from: Date }, timeZone: string): SQL {
  // Only the model and the sums are read: an account's own sums serve unless a key is asked for.
  const filter = { ...query, coarse: true };
  const tables = TABLES[levelOf(filter)];
  const segments = splitPeriod(filter.from, filter.to, true);
  const whole = segments.find((segment) => segment.source === 'days');
  const rest = segments.filter((segment) => segment !== whole);
  const day = (expression: SQL) => sql`date_trunc('day', (${expression}) at time zone ${timeZone})`;
  const columns = (alias: string, sign: string) => sql.raw(SUMMED.map((c) => `${sign}${alias}.${c} as ${c}`).join(', '));
  const parts: SQL[] = [];
  if (rest.length > 0) parts.push(sql`select ${day(sql`s.at`)} as day, s.model, ${columns('s', '')} from ${spanOf(filter, rest)} s`);
  if (whole) {
    // The UTC days as a list the planner can count (a generate_series of timestamps it guesses at 1 000
    // rows, which priced the query past jit_above_cost: a second of JIT compilation for a 30 ms read). An
    // open end runs to the current UTC day, whose daily sum is as current as the rows, and one more in case
    // the database's clock is past midnight before ours.
    // `from` is given, so the whole days have a first one.
    const first = whole.from!;
    const last = whole.to ?? floorTo(Date.now(), DAY_MS) + 2 * DAY_MS;
    const list: string[] = [];
    for (let d = first; d < last; d += DAY_MS) list.push(new Date(d).toISOString());
    // The slice's whole UTC hours, [hour_from, hour_to): one of its ends is a UTC midnight, so they are
    // the slice but for at most three quarter hours at its other end.
    const hourOf = (t: string) => `date_bin('1 hour', ${t}, timestamptz '2000-01-01Z')`;
    const plan = sql`(
      select *, case when ${sql.raw(hourOf('slice_from'))} = slice_from then slice_from
          else ${sql.raw(hourOf('slice_from'))} + interval '1 hour' end as hour_from,
        ${sql.raw(hourOf('slice_to'))} as hour_to
      from (
      select d, e, attr, split, case when (e - m) <= (m - d) then m else d end as slice_from,
        case when (e - m) <= (m - d) then e else m end as slice_to
      from (
        select d, e, m, split,
          case when a = b then a when not split then null when (e - m) <= (m - d) then a else b end as attr
        from (
          select d, e, a, b, m, a <> b and m > d and m < e and m = date_bin('15 minutes', m, timestamptz '2000-01-01Z')
              and ${day(sql`m`)} = b and ${day(sql`m - interval '15 minutes'`)} = a as split
          from (
            select d, d + interval '24 hours' as e, ${day(sql`d`)} as a, ${day(sql`d + interval '24 hours' - interval '15 minutes'`)} as b,
              ${day(sql`d + interval '24 hours' - interval '15 minutes'`)} at time zone ${timeZone} as m
            from unnest(string_to_array(${list.join(',')}, ',')::timestamptz[]) d
          ) x
        ) y
      ) z
      ) w
      -- Computed once, not folded into the joins: inlined, its time zone arithmetic ran again for every
      -- quarter hour joined (96 of 111 ms for 90 days in Moscow at 1 M rows).
      offset 0
    )`;
    const on = (alias: string) => {
      const conditions = filterConditions(filter, alias);
      return conditions.length > 0 ? sql` and ${sql.join(conditions, sql` and `)}` : sql``;
    };
    // The smaller part of a split day: its quarter hours, or for an account its whole hours from the hourly
    // sums and the quarter hours left at one end (5 hours and 2 quarters in Kolkata instead of 22 quarters:
    // at 10 M rows the quarter hours of a busy account lie a page each, so the pages read are the cost).
    const sliceColumns = `model, ${SUMMED.join(', ')}, bucket`;
    const slice =
      tables.hours === undefined
        ? sql`select * from ${sql.raw(tables.quarters)} q where q.bucket >= p.slice_from and q.bucket < p.slice_to${on('q')} offset 0`
        : sql`select * from (
            select ${sql.raw(sliceColumns)} from ${sql.raw(tables.hours)} q where q.bucket >= p.hour_from and q.bucket < p.hour_to${on('q')}
            union all
            select ${sql.raw(sliceColumns)} from ${sql.raw(tables.quarters)} q where q.bucket >= p.slice_from and q.bucket < p.hour_from${on('q')}
            union all
            select ${sql.raw(sliceColumns)} from ${sql.raw(tables.quarters)} q where q.bucket >= p.hour_to and q.bucket < p.slice_to${on('q')}
          ) q offset 0`;
    // The daily sums, each for the local day holding most of its UTC day.
    parts.push(sql`select p.attr as day, r.model, ${columns('r', '')}
      from ${plan} p join ${sql.raw(tables.days)} r on r.bucket = p.d${on('r')} where p.attr is not null`);
    // The smaller part's quarter hours: to their own day, and away from the day the daily sum went to.
    // Lateral and not flattened (offset 0), so each day's range is looked up through the index rather than
    // the user's every quarter hour scanned and matched against the days.
    parts.push(sql`select v.day, q.model, ${sql.raw(SUMMED.map((c) => `v.sign * q.${c} as ${c}`).join(', '))}
      from ${plan} p cross join lateral (${slice}) q
      cross join lateral (values (${day(sql`q.bucket`)}, 1), (p.attr, -1)) v(day, sign)
      where p.split`);
    // Days that could not be split: their quarter hours, each to its own day.
    parts.push(sql`select ${day(sql`q.bucket`)} as day, q.model, ${columns('q', '')}
      from ${plan} p cross join lateral (
        select * from ${sql.raw(tables.quarters)} q where q.bucket >= p.d and q.bucket < p.e${on('q')} offset 0) q
      where p.attr is null`);
  }
  if (parts.length === 0)
    parts.push(sql`select null::timestamp as day, null::text as model, ${sql.raw(SUMMED.map((c) => `0::bigint as ${c}`).join(', '))} where false`);
  return sql`(${sql.join(parts, sql` union all `)})`;
}
