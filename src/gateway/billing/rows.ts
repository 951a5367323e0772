// A settlement as it waits to be written (Pending), as one row of the batch statement and of the journal
// (serialize, ROW_COLUMNS), and the statements that write it: a whole batch in one statement (usage rows,
// a ledger row per user and kind, the debits of leases and key claims), atomic on its own, so at every
// commit users.balance_nano + Σ leases = Σ ledger. Lock order (see index.ts): the batch statement updates
// lease rows before users rows, since its users update reads the lease update's result.
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Journal } from '../journal';
import type { MemberLimitRef } from '../../keys';
import type { UsageFacts } from './types';

export interface Pending {
  facts: UsageFacts;
  promptCostNano: bigint;
  completionCostNano: bigint;
  /** Charged against the lease (the whole cost unless the answer outgrew the lease). */
  costNano: bigint;
  /** What the answering provider charges us, at its cost price; null: none given. */
  providerCostNano: bigint | null;
  leaseId: string | null;
  keyLeaseId: string | null;
  /** The claim on the organisation member's monthly limit it was reserved against (member_leases). */
  memberLeaseId: string | null;
  /** The member whose limit it counted against, or refused it (alerts are told); null: none. */
  member: MemberLimitRef | null;
  /** Set on a settlement that outgrew its leases: written on its own transaction, in order. */
  overage: Overage | null;
  createdAt: Date;
  /**
   * The row as the batch writes it (serialize()), made once when it is queued: the same text is its
   * journal line. Absent on a settlement that outgrew its lease (its figures are known only when written).
   */
  json: string | undefined;
  /** Where the journal holds this row until the database does. */
  segment: ReturnType<Journal['append']> | null;
}

export interface Overage {
  /** What is still owed beyond the lease: taken from users.balance_nano down to zero. */
  fromBalanceNano: bigint;
  keyId: string | null;
  /** Charged against the key's claim (key_leases). */
  keyLeaseCostNano: bigint;
  /** What the key's claim could not cover: taken from api_keys.budget_nano down to zero. */
  fromKeyBudgetNano: bigint;
  /** The member whose limit it counted against; null: none. */
  member: { organizationId: string; memberId: string } | null;
  /** Charged against the member's claim (member_leases). */
  memberLeaseCostNano: bigint;
  /** What the member's claim could not cover: taken from organization_members.budget_nano down to zero. */
  fromMemberBudgetNano: bigint;
  done: () => void;
}

/** PostgreSQL text holds neither NUL nor lone surrogates; one such upstream message must not block every batch. */
export function storableText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const clean = value.isWellFormed() ? value : value.toWellFormed();
  return clean.includes('\0') ? clean.replaceAll('\0', '') : clean;
}

/**
 * A settlement row as the batch statement and the journal take it: a JSON array, its values in this order
 * (amounts as decimal strings). Positional rather than an object: the names repeated in every row made
 * up ~55 % of a batch's bytes, which the gateway builds, copies and sends and PostgreSQL parses again
 * for every batch (measured for 1 000 rows on PostgreSQL 15: json_to_recordset of objects and the insert
 * 8.0 ms, jsonb arrays read by position 6.2 ms; 617 → 276 kB).
 */
const ROW_COLUMNS = [
  ['user_id', 'uuid'],
  ['api_key_id', 'uuid'],
  ['agent_id', 'uuid'],
  ['request_id', 'text'],
  ['model', 'text'],
  ['stream', 'boolean'],
  ['prompt_tokens', 'bigint'],
  ['completion_tokens', 'bigint'],
  ['total_tokens', 'bigint'],
  ['cost_nano', 'bigint'],
  ['prompt_cost_nano', 'bigint'],
  ['completion_cost_nano', 'bigint'],
  ['unpaid_nano', 'bigint'],
  ['status', 'text'],
  ['usage_source', 'text'],
  ['upstream_status', 'integer'],
  ['error', 'text'],
  ['duration_ms', 'integer'],
  ['created_at', 'timestamptz'],
  ['lease_id', 'uuid'],
  ['key_lease_id', 'uuid'],
  ['endpoint', 'text'],
  // Appended, never inserted: a journal written before routing has rows that end at `endpoint`, and
  // their missing values read as null.
  ['provider_id', 'text'],
  ['attempts', 'integer'],
  ['provider_cost_nano', 'bigint'],
  ['audio_ms', 'integer'],
  ['member_lease_id', 'uuid'],
  // Issue 45: the prompt's cache reads and writes, the completion's reasoning (journals before it read 0).
  ['cached_tokens', 'bigint'],
  ['cache_write_tokens', 'bigint'],
  ['reasoning_tokens', 'bigint'],
] as const;

/** The row's values in ROW_COLUMNS order, as JSON. */
export function serialize(p: Pending, costNano: bigint, unpaidNano: bigint): string {
  const f = p.facts;
  return JSON.stringify([
    f.userId,
    f.apiKeyId ?? null,
    f.agentId ?? null,
    storableText(f.requestId),
    storableText(f.model),
    f.stream,
    f.promptTokens,
    f.completionTokens,
    f.totalTokens,
    costNano.toString(),
    p.promptCostNano.toString(),
    p.completionCostNano.toString(),
    unpaidNano.toString(),
    f.status,
    f.usageSource,
    f.upstreamStatus ?? null,
    storableText(f.error),
    f.durationMs,
    p.createdAt.toISOString(),
    costNano > 0n ? p.leaseId : null,
    costNano > 0n ? p.keyLeaseId : null,
    f.endpoint ?? 'chat',
    storableText(f.providerId),
    f.attempts ?? null,
    p.providerCostNano === null ? null : p.providerCostNano.toString(),
    f.audioMs ?? null,
    costNano > 0n ? p.memberLeaseId : null,
    f.cachedTokens ?? 0,
    f.cacheWriteTokens ?? 0,
    f.reasoningTokens ?? 0,
  ]);
}

/** A row's array back into named values (the journal's replay; older journals hold objects already). */
export function rowObject(values: unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  ROW_COLUMNS.forEach(([name], i) => (row[name] = values[i] ?? null));
  return row;
}

const rowSelectList = sql.raw(ROW_COLUMNS.map(([name, type], i) => (type === 'text' ? `e->>${i} as ${name}` : `(e->>${i})::${type} as ${name}`)).join(', '));

/** The sums every rollup table keeps, in this order (see rollupSums in gateway/tables.ts). */
const ROLLUP_SUMS = [
  'requests',
  'failed_requests',
  'retried_requests',
  'attempts',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_nano',
  'prompt_cost_nano',
  'completion_cost_nano',
  'unpaid_nano',
  'priced_requests',
  'priced_cost_nano',
  'provider_cost_nano',
] as const;

/**
 * The batch `r` summed once per usage_rollups key (user, quarter hour, key, agent, model, endpoint,
 * provider): every rollup table is a coarser grouping of these sums, so each of their upserts groups a few
 * dozen sums rather than the batch's every row again.
 */
const BATCH_QUARTERS = `(
  select user_id, date_bin('15 minutes', created_at, timestamptz '2000-01-01 00:00:00+00') as bucket, api_key_id,
    agent_id, model, coalesce(endpoint, 'chat') as endpoint, provider_id, count(*) as requests,
    count(*) filter (where status <> 'ok') as failed_requests, count(*) filter (where attempts > 1) as retried_requests,
    coalesce(sum(attempts), 0) as attempts, sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens,
    sum(total_tokens) as total_tokens, sum(cost_nano) as cost_nano, sum(prompt_cost_nano) as prompt_cost_nano,
    sum(completion_cost_nano) as completion_cost_nano, sum(unpaid_nano) as unpaid_nano,
    count(provider_cost_nano) as priced_requests,
    coalesce(sum(cost_nano) filter (where provider_cost_nano is not null), 0) as priced_cost_nano,
    coalesce(sum(provider_cost_nano), 0) as provider_cost_nano
  from r
  group by 1, 2, 3, 4, 5, 6, 7
)`;

const DAY = `date_bin('1 day', bucket, timestamptz '2000-01-01 00:00:00+00')`;
const HOUR = `date_bin('1 hour', bucket, timestamptz '2000-01-01 00:00:00+00')`;

/**
 * The CTE that adds the batch's sums (batch_quarters) to a rollup table, grouped by `keys` (column name and
 * the expression over batch_quarters that gives it): grouped first (ON CONFLICT may not touch one row twice
 * in a statement), the groups in key order, so two instances adding to the same sums lock them in the same
 * order instead of deadlocking.
 */
const rollupInto = (table: string, keys: [column: string, expression: string][]) => {
  const positions = keys.map((_, i) => i + 1).join(', ');
  return `(
  insert into ${table} as t (${keys.map(([column]) => column).join(', ')}, ${ROLLUP_SUMS.join(', ')})
  select ${keys.map(([, expression]) => expression).join(', ')}, ${ROLLUP_SUMS.map((c) => `sum(${c})`).join(', ')}
  from batch_quarters
  group by ${positions}
  order by ${positions}
  on conflict on constraint ${table}_key do update set
    ${ROLLUP_SUMS.map((c) => `${c} = t.${c} + excluded.${c}`).join(',\n    ')}
)`;
};

const KEYED: [string, string][] = [
  ['user_id', 'user_id'],
  ['bucket', 'bucket'],
  ['api_key_id', 'api_key_id'],
  ['agent_id', 'agent_id'],
  ['model', 'model'],
  ['endpoint', 'endpoint'],
  ['provider_id', 'provider_id'],
];
const byDay = (keys: [string, string][]) => keys.map(([column, expression]): [string, string] => [column, column === 'bucket' ? DAY : expression]);
const ACCOUNT: [string, string][] = [
  ['user_id', 'user_id'],
  ['bucket', 'bucket'],
  ['model', 'model'],
  ['provider_id', 'provider_id'],
];

/**
 * Every rollup the statement keeps, as CTEs: per key (usage_rollups, usage_rollups_daily), per account
 * (usage_rollups_account, …_hourly, …_daily) and for the whole service per day (usage_rollups_operator_daily, in the
 * writing connection's stripe: see the table).
 */
const rollupCtes = sql.raw(
  [
    `batch_quarters as ${BATCH_QUARTERS}`,
    `quarter_sums as ${rollupInto('usage_rollups', KEYED)}`,
    `day_sums as ${rollupInto('usage_rollups_daily', byDay(KEYED))}`,
    `account_quarter_sums as ${rollupInto('usage_rollups_account', ACCOUNT)}`,
    `account_hour_sums as ${rollupInto(
      'usage_rollups_account_hourly',
      ACCOUNT.map(([column, expression]) => [column, column === 'bucket' ? HOUR : expression]),
    )}`,
    `account_day_sums as ${rollupInto('usage_rollups_account_daily', byDay(ACCOUNT))}`,
    `operator_day_sums as ${rollupInto('usage_rollups_operator_daily', [
      ['bucket', DAY],
      ['model', 'model'],
      ['provider_id', 'provider_id'],
      ['stripe', '(pg_backend_pid() % 16)::smallint'],
    ])}`,
  ].join(', '),
);

/**
 * The rows of a batch as a table, their usage rows and their ledger rows. The rows arrive as one JSON
 * parameter, so the statement text is constant and building it costs nothing per row.
 *
 * The ledger gets one row per user and kind a batch (`usage` or `assistant_usage`, of the sum charged,
 * referenced `requests:<count>`); each request's own cost is on its usage row, and Σ usage cost = Σ usage
 * debits in the ledger. A ledger row per request cost PostgreSQL ~6 µs of CPU a request (a heap row and
 * three index entries), a quarter of what it spent on the batch, on the two cores it shares with the
 * gateway in the bench: measured 27 → 21 µs a settlement in 500-row batches on PostgreSQL 15.
 *
 * The same statement adds the rows to their sums per quarter hour and per UTC day (usage_rollups,
 * usage_rollups_daily, per account usage_rollups_account and …_daily, and the whole service's per day
 * usage_rollups_operator_daily; rollupCtes), so the sums can never disagree with the rows.
 */
export const recordRowsSql = (rowsJson: string) => sql`
with r as (
  select ${rowSelectList} from jsonb_array_elements(${rowsJson}::jsonb) e
), usage_rows as (
  insert into usage_records (user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens,
    completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, status,
    usage_source, upstream_status, error, duration_ms, created_at, endpoint, provider_id, attempts, provider_cost_nano,
    audio_ms, cached_tokens, cache_write_tokens, reasoning_tokens)
  select user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens, completion_tokens, total_tokens,
    cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, status, usage_source, upstream_status, error,
    duration_ms, created_at, coalesce(endpoint, 'chat'), provider_id, attempts, provider_cost_nano, audio_ms,
    coalesce(cached_tokens, 0), coalesce(cache_write_tokens, 0), coalesce(reasoning_tokens, 0)
  from r
), ledger_rows as (
  insert into ledger_entries (user_id, amount_nano, kind, reference, created_at)
  select user_id, -sum(cost_nano), case when agent_id is null then 'usage' else 'assistant_usage' end,
    'requests:' || count(*), max(created_at)
  from r where cost_nano > 0
  group by user_id, agent_id is null
), ${rollupCtes}`;

/**
 * One statement writes a whole batch (atomic on its own, so no BEGIN/COMMIT round trips): the usage rows,
 * a ledger row per charged settlement, the debit of each lease by what was charged against it, and of
 * each key claim and member claim. A charge whose lease is gone (expired and returned during a stall longer than its
 * lifetime) is taken from the balance the lease went back to, never below zero; those come back as rows
 * to log. The users update reads the lease update's result, so lease rows are locked before users rows.
 * A key or member claim that is gone is not charged again: a limit is a cap, not money.
 */
const writeBatchSql = (rowsJson: string, leaseTtlSeconds: number) => sql`
${recordRowsSql(rowsJson)}, sums as (
  select user_id, lease_id, sum(cost_nano)::bigint as total from r where cost_nano > 0 group by user_id, lease_id
), debited as (
  update balance_leases b set amount_nano = b.amount_nano - s.total,
    expires_at = now() + make_interval(secs => ${leaseTtlSeconds}::double precision)
  from sums s
  where b.id = s.lease_id and b.amount_nano >= s.total
  returning b.id
), key_sums as (
  select key_lease_id, sum(cost_nano)::bigint as total from r where cost_nano > 0 and key_lease_id is not null
  group by key_lease_id
), key_debited as (
  update key_leases k set amount_nano = greatest(k.amount_nano - s.total, 0)
  from key_sums s where k.id = s.key_lease_id
  returning k.id
), member_sums as (
  select member_lease_id, sum(cost_nano)::bigint as total from r where cost_nano > 0 and member_lease_id is not null
  group by member_lease_id
), member_debited as (
  update member_leases m set amount_nano = greatest(m.amount_nano - s.total, 0)
  from member_sums s where m.id = s.member_lease_id
  returning m.id
), missed as (
  select m.user_id, m.total, u.balance_nano as before
  from (select user_id, sum(total)::bigint as total from sums
        where lease_id is null or lease_id not in (select id from debited) group by user_id) m
  join users u on u.id = m.user_id
), from_balance as (
  update users u set balance_nano = greatest(u.balance_nano - m.total, 0)
  from missed m where u.id = m.user_id
  returning u.id
)
select m.user_id, m.total::text as total, greatest(m.total - m.before, 0)::text as short
from missed m where m.user_id in (select id from from_balance)`;

/**
 * The batch statement's text, rendered once: $1 the rows' JSON, $2 the lease lifetime in seconds. It runs
 * as a prepared statement, so PostgreSQL parses it once per connection instead of every batch (0.3 ms a
 * batch in its log), and the rows go out without first asking for the parameter types (a round trip).
 */
export const writeBatchStatement = (() => {
  const rendered = new PgDialect().sqlToQuery(writeBatchSql('$rows', -1));
  if (rendered.params.length !== 2 || rendered.params[0] !== '$rows' || rendered.params[1] !== -1) {
    throw new Error('the batch statement must take the rows as $1 and the lease lifetime as $2');
  }
  return rendered.sql;
})();
