// Reservation and settlement of model requests against per-instance balance leases.
//
// An instance takes a lease (a slice of a user's balance) from the database in one atomic statement and
// reserves requests against it in memory, so the hot path does no I/O while the lease lasts. Settlements
// (usage rows, a ledger row per user, lease debits) are written in batches, each batch one statement, and a bounded
// backlog makes new reservations wait when the writer falls behind. At every commit
// users.balance_nano + Σ leases = Σ ledger; a lease outlives its instance only until it expires,
// and then any instance returns it to the balance. Idle leases go back on their own after a moment.
//
// Keys with a spend limit reserve the same way against a second kind of lease: a slice of the key's
// budget for the current period (key_leases, taken from api_keys.budget_nano), so a limit holds across
// instances without a round trip per request.
//
// Every token is billed. An answer that costs more than its reservation takes the rest from the lease,
// then from the balance in the database, down to zero and never below; only what the whole balance cannot
// cover is left unpaid, recorded on the usage row and logged, and the user's next request waits for that
// settlement and gets 402. Such a settlement is rare and written on its own, in order with the batches.
//
// Lock order. Every transaction that touches more than one of these tables takes their rows in this
// order: balance_leases → key_leases → api_keys → users. A transaction never locks a users row with
// FOR UPDATE: the foreign key of ledger_entries takes KEY SHARE locks on it, which FOR UPDATE
// would wait for, so locking reads use FOR NO KEY UPDATE. Top-ups lock their lease row first; the batch
// statement updates leases before users (its users update reads the lease update's result); the rare
// settlement is written by the same single writer as the batches, so an instance never runs the two at
// once. Reapers of expired leases run under a transaction-scoped advisory lock, one at a time. A
// transient failure (deadlock, serialization failure, lost connection) of a top-up is retried, then
// answered 503 with Retry-After; settlements stay queued and are retried by the writer.
import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Config } from '../config';
import { rowsOf, type Database, type DatabaseHandle } from '../db/client';
import { isTransientDatabaseError } from '../db/transient';
import { AppError, errorCodes } from '../http/errors';
import { errorMessages } from '../http/messages';
import { describeLimit, periodStart, type KeyLimitRef, type LimitReset } from '../keys/limits';
import type { Logger } from '../logger';
import { billedCompletionTokens, costOf, type ModelPrice, type RequestCost } from '../pricing/prices';
import { encodeRow, openJournal, recoverJournal, type Journal } from './journal';

export type UsageStatus =
  | 'ok'
  | 'client_closed'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_rejected'
  | 'upstream_dropped'
  /** The server shut down with the stream still running (past SHUTDOWN_GRACE_MS). */
  | 'server_shutdown';

export interface UsageFacts {
  userId: string;
  apiKeyId?: string | null;
  agentId?: string | null;
  requestId: string;
  /** The /v1 endpoint that made the request (default chat). */
  endpoint?: 'chat' | 'embeddings' | 'responses';
  model: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  status: UsageStatus;
  usageSource: 'upstream' | 'tokenizer' | 'none';
  upstreamStatus?: number | null;
  error?: string | null;
  durationMs: number;
}

/** What usage costs at a price, as settle() charges it (a total above prompt + completion counts as completion). */
export function usageCost(price: ModelPrice, facts: Pick<UsageFacts, 'promptTokens' | 'completionTokens' | 'totalTokens'>) {
  return costOf(price, facts.promptTokens, billedCompletionTokens(facts));
}

export interface Reservation {
  readonly userId: string;
  readonly amountNano: bigint;
  /** The price the request was reserved at; it is settled at the same price. */
  readonly price: ModelPrice;
  done: boolean;
}

interface InternalReservation extends Reservation {
  lease: Lease;
  keyLease: KeyLease | null;
}

interface Lease {
  userId: string;
  /** The lease's row; null until the first top-up commits. */
  id: string | null;
  /** Money of the lease not reserved by any request. */
  available: bigint;
  inFlight: number;
  lastUsed: number;
  toppingUp: Promise<boolean> | null;
  /** A settlement larger than the lease is being written; reservations wait for it. */
  owing: Promise<void> | null;
}

interface KeyLease {
  keyId: string;
  limitReset: LimitReset;
  /** The period (ms since the epoch) this claim belongs to: a claim of an earlier period is void. */
  period: number;
  id: string | null;
  available: bigint;
  inFlight: number;
  lastUsed: number;
  toppingUp: Promise<boolean> | null;
  owing: Promise<void> | null;
  /** The key's limit changed: reserve no more against this claim, hand it back once idle. */
  stale: boolean;
}

interface Pending {
  facts: UsageFacts;
  promptCostNano: bigint;
  completionCostNano: bigint;
  /** Charged against the lease (the whole cost unless the answer outgrew the lease). */
  costNano: bigint;
  leaseId: string | null;
  keyLeaseId: string | null;
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

interface Overage {
  /** What is still owed beyond the lease: taken from users.balance_nano down to zero. */
  fromBalanceNano: bigint;
  keyId: string | null;
  /** Charged against the key's claim (key_leases). */
  keyLeaseCostNano: bigint;
  /** What the key's claim could not cover: taken from api_keys.budget_nano down to zero. */
  fromKeyBudgetNano: bigint;
  done: () => void;
}

export interface BillingOptions {
  db: Database;
  /** Raw statements of the same database: the batch statement runs through it, prepared. */
  query: DatabaseHandle['query'];
  config: Pick<Config, 'tokenPriceNano' | 'leaseChunkNano' | 'usageFlushMs'> & Partial<Pick<Config, 'balanceCurrency'>>;
  logger: Logger;
  instanceId: string;
  /** Leases unused this long go back to the balance. */
  idleReturnMs?: number;
  /** A lease whose instance stops renewing it is returned by anyone after this long. */
  leaseTtlSeconds?: number;
  /** Most settlements one statement writes; a backlog this large is written at once, without the delay. */
  maxBatch?: number;
  /**
   * Settlements that may wait to be written before reserve() waits for the writer: overload then slows
   * admission instead of growing memory and the window a crash would lose.
   */
  maxPending?: number;
  /** How long reserve() waits for room in the backlog before it answers 429 (default 10 s). */
  admissionWaitMs?: number;
  /** Subscribes to lease recalls from other instances (absent: this instance never hears them). */
  listen?: DatabaseHandle['listen'];
  /**
   * Folder of the settlement journal (see journal.ts): every settlement is appended there before the
   * answer's last byte, and the rows of instances that died are written at start. Absent: no journal.
   */
  journalDir?: string;
  /** How long stop() keeps retrying writes before it leaves the rest to the journal (default 15 s). */
  stopWriteMs?: number;
  /** Told of every settlement and lease top-up (metrics). */
  observer?: BillingObserver;
}

export interface BillingObserver {
  /** `cost.totalNano`: the price of the tokens (what was charged, unless the balance could not cover it all). */
  settled(facts: UsageFacts, cost: RequestCost): void;
  unpaid(nano: bigint): void;
  topUp(lease: 'balance' | 'key', outcome: 'ok' | 'refused' | 'failed'): void;
}

/** NOTIFY channel (payload: user id) asking every instance to hand back the unreserved part of its lease. */
export const LEASE_RECALL_CHANNEL = 'conduit_lease_recall';

export interface ReserveOptions {
  /** Default: TOKEN_PRICE both ways. */
  price?: ModelPrice;
  /** The key's spend limit to reserve against as well (keys without one pass null). */
  key?: KeyLimitRef | null;
}

const toBigInt = (v: unknown) => (typeof v === 'bigint' ? v : BigInt(v as string | number));
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/** PostgreSQL text holds neither NUL nor lone surrogates; one such upstream message must not block every batch. */
function storableText(value: string | null | undefined): string | null {
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
] as const;

/** A row's array back into named values (the journal's replay; older journals hold objects already). */
function rowObject(values: unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  ROW_COLUMNS.forEach(([name], i) => (row[name] = values[i] ?? null));
  return row;
}

const rowSelectList = sql.raw(
  ROW_COLUMNS.map(([name, type], i) => (type === 'text' ? `e->>${i} as ${name}` : `(e->>${i})::${type} as ${name}`)).join(', '),
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
 */
const recordRowsSql = (rowsJson: string) => sql`
with r as (
  select ${rowSelectList} from jsonb_array_elements(${rowsJson}::jsonb) e
), usage_rows as (
  insert into usage_records (user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens,
    completion_tokens, total_tokens, cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, status,
    usage_source, upstream_status, error, duration_ms, created_at, endpoint)
  select user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens, completion_tokens, total_tokens,
    cost_nano, prompt_cost_nano, completion_cost_nano, unpaid_nano, status, usage_source, upstream_status, error,
    duration_ms, created_at, coalesce(endpoint, 'chat')
  from r
), ledger_rows as (
  insert into ledger_entries (user_id, amount_nano, kind, reference, created_at)
  select user_id, -sum(cost_nano), case when agent_id is null then 'usage' else 'assistant_usage' end,
    'requests:' || count(*), max(created_at)
  from r where cost_nano > 0
  group by user_id, agent_id is null
)`;

/**
 * One statement writes a whole batch (atomic on its own, so no BEGIN/COMMIT round trips): the usage rows,
 * a ledger row per charged settlement, the debit of each lease by what was charged against it, and of
 * each key claim. A charge whose lease is gone (expired and returned during a stall longer than its
 * lifetime) is taken from the balance the lease went back to, never below zero; those come back as rows
 * to log. The users update reads the lease update's result, so lease rows are locked before users rows.
 * A key claim that is gone is not charged again: a key's limit is a cap, not money.
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
const writeBatchStatement = (() => {
  const rendered = new PgDialect().sqlToQuery(writeBatchSql('$rows', -1));
  if (rendered.params.length !== 2 || rendered.params[0] !== '$rows' || rendered.params[1] !== -1) {
    throw new Error('the batch statement must take the rows as $1 and the lease lifetime as $2');
  }
  return rendered.sql;
})();

export function createBilling(options: BillingOptions) {
  const { db, query, config, logger, instanceId } = options;
  const currency = config.balanceCurrency ?? 'RUB';
  const idleReturnMs = options.idleReturnMs ?? 2_000;
  const leaseTtlSeconds = options.leaseTtlSeconds ?? 120;
  const maxBatch = options.maxBatch ?? 5_000;
  const maxPending = Math.max(options.maxPending ?? 2 * maxBatch, 1);
  const admissionWaitMs = options.admissionWaitMs ?? 10_000;
  const defaultPrice: ModelPrice = {
    pattern: null,
    promptNanoPerMillion: config.tokenPriceNano * 1_000_000n,
    completionNanoPerMillion: config.tokenPriceNano * 1_000_000n,
  };
  const leases = new Map<string, Lease>();
  const keyLeases = new Map<string, KeyLease>();
  /** Settlements not yet written, oldest first; rows before `head` are written and only wait to be dropped. */
  let pending: Pending[] = [];
  let head = 0;
  /** Settlements ever queued / written: flush() waits for the writer to pass the count it saw. */
  let queuedTotal = 0;
  let writtenTotal = 0;
  let writer: Promise<boolean> | null = null;
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** reserve() calls held back while the backlog is at its bound. */
  let admissionWaiters: (() => void)[] = [];
  let housekeeping: ReturnType<typeof setInterval> | null = null;
  let unlistenRecall: (() => Promise<void>) | null = null;
  let stopped = false;
  /**
   * stop() gave up on the database: what is unwritten belongs to the journal now, and this instance starts
   * no further write (the next instance replays them; two writers would write them twice).
   */
  let abandoned = false;

  const backlog = () => pending.length - head;

  function leaseOf(userId: string): Lease {
    let lease = leases.get(userId);
    if (!lease) {
      lease = { userId, id: null, available: 0n, inFlight: 0, lastUsed: Date.now(), toppingUp: null, owing: null };
      leases.set(userId, lease);
    }
    return lease;
  }

  /** This instance's claim on the key's limit for the current period; a claim of a past period is dropped. */
  function keyLeaseOf(ref: KeyLimitRef, now: number): KeyLease {
    const period = periodStart(ref.limitReset, now).getTime();
    let lease = keyLeases.get(ref.keyId);
    if (lease && (lease.period !== period || lease.limitReset !== ref.limitReset || lease.stale)) {
      // A past period's claim is void: its row is deleted once idle (its amount is not returned).
      retireKeyLease(lease);
      lease = undefined;
    }
    if (!lease) {
      lease = {
        keyId: ref.keyId,
        limitReset: ref.limitReset,
        period,
        id: null,
        available: 0n,
        inFlight: 0,
        lastUsed: now,
        toppingUp: null,
        owing: null,
        stale: false,
      };
      keyLeases.set(ref.keyId, lease);
    }
    return lease;
  }

  /** Claims no longer used for reservations, handed back once their requests have settled. */
  const retiredKeyLeases = new Set<KeyLease>();
  function retireKeyLease(lease: KeyLease) {
    if (keyLeases.get(lease.keyId) === lease) keyLeases.delete(lease.keyId);
    lease.stale = true;
    if (lease.id) retiredKeyLeases.add(lease);
  }

  /** Runs a short transaction, again on a transient failure; then 503 with Retry-After. */
  async function withRetry<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (!isTransientDatabaseError(error)) throw error;
        if (attempt >= 3) {
          logger.error(`${what} failed on a transient database error; answering 503`, { error, attempts: attempt });
          throw new AppError('service_unavailable', errorMessages.billingUnavailable, { headers: { 'retry-after': '1' } });
        }
        logger.warn(`${what} hit a transient database error; retrying`, { error, attempt });
        await Bun.sleep(5 * attempt + Math.random() * 20);
      }
    }
  }

  /** Moves money from the user's balance into this instance's lease; false when the balance cannot cover `need`. */
  async function topUp(lease: Lease, need: bigint): Promise<boolean> {
    const chunk = need > config.leaseChunkNano ? need : config.leaseChunkNano;
    return withRetry('lease top-up', () =>
      db.transaction(async (tx) => {
        // The lease row first, then the user's (the lock order at the top of this file).
        let leaseId = lease.id;
        if (leaseId) {
          const held = rowsOf(await tx.execute(sql`select id from balance_leases where id = ${leaseId} for update`));
          if (held.length === 0) leaseId = null;
        }
        const taken = rowsOf<{ take: unknown }>(
          await tx.execute(sql`
            update users u set balance_nano = u.balance_nano - t.take
            from (select id, least(balance_nano, ${chunk.toString()}::bigint) as take
                  from users where id = ${lease.userId} and balance_nano >= ${need.toString()}::bigint
                  for no key update) t
            where u.id = t.id
            returning t.take`),
        );
        if (taken.length === 0) return false;
        const take = toBigInt(taken[0]!.take);
        if (leaseId) {
          await tx.execute(sql`
            update balance_leases set amount_nano = amount_nano + ${take.toString()}::bigint,
              expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
            where id = ${leaseId}`);
        } else {
          const inserted = rowsOf<{ id: string }>(
            await tx.execute(sql`
              insert into balance_leases (user_id, instance_id, amount_nano, expires_at)
              values (${lease.userId}, ${instanceId}, ${take.toString()}::bigint,
                      now() + make_interval(secs => ${leaseTtlSeconds}))
              returning id`),
          );
          leaseId = inserted[0]!.id;
        }
        // Only after the commit does the money belong to this instance's memory.
        return { leaseId, take };
      }),
    ).then(
      (result) => {
        options.observer?.topUp('balance', result ? 'ok' : 'refused');
        if (!result) return false;
        lease.id = result.leaseId;
        lease.available += result.take;
        return true;
      },
      (error) => {
        options.observer?.topUp('balance', 'failed');
        throw error;
      },
    );
  }

  /**
   * Claims part of a key's budget for the current period. A budget of an earlier period starts over at
   * the whole limit. Fails with 402 naming the limit when what is left cannot cover `need`; a key whose
   * limit was removed meanwhile needs no claim (true with nothing claimed is never returned: the caller
   * re-reads the key through the verifier on the next request).
   */
  async function topUpKey(lease: KeyLease, need: bigint): Promise<void> {
    const periodStartAt = new Date(lease.period);
    const outcome = await withRetry('key limit top-up', () =>
      db.transaction(async (tx) => {
        let leaseId = lease.id;
        if (leaseId) {
          const held = rowsOf(await tx.execute(sql`select id from key_leases where id = ${leaseId} for update`));
          if (held.length === 0) leaseId = null;
        }
        const [key] = rowsOf<{ limit: unknown; budget: unknown; period: Date | string | null }>(
          await tx.execute(sql`
            select spend_limit_nano as limit, budget_nano as budget, budget_period_start as period
            from api_keys where id = ${lease.keyId} for no key update`),
        );
        if (!key || key.limit === null) return { kind: 'unlimited' as const };
        const limit = toBigInt(key.limit);
        const samePeriod = key.period !== null && new Date(key.period).getTime() === lease.period;
        const budget = samePeriod ? toBigInt(key.budget) : limit;
        if (budget < need) return { kind: 'exhausted' as const, limit };
        // Claims are small next to the limit, so instances share it fairly and an idle claim holds little.
        const slice = limit / 20n > config.leaseChunkNano ? config.leaseChunkNano : limit / 20n;
        const take = minBig(budget, need > slice ? need : slice);
        await tx.execute(sql`
          update api_keys set budget_nano = ${(budget - take).toString()}::bigint,
            budget_period_start = ${periodStartAt.toISOString()}::timestamptz
          where id = ${lease.keyId}`);
        if (leaseId) {
          await tx.execute(sql`
            update key_leases set amount_nano = amount_nano + ${take.toString()}::bigint,
              expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
            where id = ${leaseId}`);
        } else {
          const inserted = rowsOf<{ id: string }>(
            await tx.execute(sql`
              insert into key_leases (key_id, instance_id, period_start, amount_nano, expires_at)
              values (${lease.keyId}, ${instanceId}, ${periodStartAt.toISOString()}::timestamptz,
                      ${take.toString()}::bigint, now() + make_interval(secs => ${leaseTtlSeconds}))
              returning id`),
          );
          leaseId = inserted[0]!.id;
        }
        return { kind: 'claimed' as const, leaseId, take };
      }),
    );
    options.observer?.topUp('key', outcome.kind === 'exhausted' ? 'refused' : 'ok');
    if (outcome.kind === 'claimed') {
      lease.id = outcome.leaseId;
      lease.available += outcome.take;
      return;
    }
    if (outcome.kind === 'exhausted') {
      throw new AppError('insufficient_balance', errorMessages.keyLimitReached(describeLimit(outcome.limit, lease.limitReset, currency)), {
        code: errorCodes.keySpendLimit,
      });
    }
    // The limit was removed: nothing to claim. The key's cached record still says limited until its
    // notification arrives; let this request through on the balance alone.
    lease.available += need;
  }

  let journal: Journal | null = null;

  /**
   * The journal line of a settlement that outgrew its lease: everything but the callbacks, amounts as
   * tagged strings ("125n"). A plain settlement's line is its database row (Pending.json).
   */
  function overageLine(row: Pending): string {
    const { overage, segment: _segment, json: _json, ...rest } = row;
    const tag = (n: bigint) => `${n}n`;
    return encodeRow({
      ...rest,
      promptCostNano: tag(row.promptCostNano),
      completionCostNano: tag(row.completionCostNano),
      costNano: tag(row.costNano),
      overage: overage
        ? {
            keyId: overage.keyId,
            fromBalanceNano: tag(overage.fromBalanceNano),
            keyLeaseCostNano: tag(overage.keyLeaseCostNano),
            fromKeyBudgetNano: tag(overage.fromKeyBudgetNano),
          }
        : null,
    });
  }

  /** A journal line back into a queued settlement: a database row (plain settlements) or an overage line. */
  function fromJournal(entry: unknown): Pending {
    const row = (Array.isArray(entry) ? rowObject(entry) : entry) as Record<string, unknown>;
    if (typeof row.user_id !== 'string') {
      // An overage line: its amounts are tagged strings ("125n"), untagged here by name.
      const line = entry as Omit<Pending, 'overage'> & { overage: Record<string, unknown> | null };
      const amount = (v: unknown) => BigInt(String(v).replace(/n$/, ''));
      const o = line.overage;
      return {
        facts: line.facts,
        promptCostNano: amount(line.promptCostNano),
        completionCostNano: amount(line.completionCostNano),
        costNano: amount(line.costNano),
        leaseId: line.leaseId ?? null,
        keyLeaseId: line.keyLeaseId ?? null,
        overage: o
          ? {
              keyId: typeof o.keyId === 'string' ? o.keyId : null,
              fromBalanceNano: amount(o.fromBalanceNano),
              keyLeaseCostNano: amount(o.keyLeaseCostNano),
              fromKeyBudgetNano: amount(o.fromKeyBudgetNano),
              done: () => {},
            }
          : null,
        createdAt: new Date(line.createdAt),
        json: undefined,
        segment: null,
      };
    }
    const text = (v: unknown) => (typeof v === 'string' ? v : null);
    const facts: UsageFacts = {
      userId: row.user_id,
      apiKeyId: text(row.api_key_id),
      agentId: text(row.agent_id),
      requestId: text(row.request_id) ?? '',
      endpoint: (text(row.endpoint) ?? 'chat') as UsageFacts['endpoint'],
      model: text(row.model) ?? '',
      stream: row.stream === true,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      totalTokens: Number(row.total_tokens),
      status: row.status as UsageStatus,
      usageSource: row.usage_source as UsageFacts['usageSource'],
      upstreamStatus: typeof row.upstream_status === 'number' ? row.upstream_status : null,
      error: text(row.error),
      durationMs: Number(row.duration_ms),
    };
    return {
      facts,
      promptCostNano: BigInt(String(row.prompt_cost_nano)),
      completionCostNano: BigInt(String(row.completion_cost_nano)),
      costNano: BigInt(String(row.cost_nano)),
      leaseId: text(row.lease_id),
      keyLeaseId: text(row.key_lease_id),
      overage: null,
      createdAt: new Date(String(row.created_at)),
      json: undefined,
      segment: null,
    };
  }

  function enqueue(row: Pending) {
    // On disk before the answer's last byte leaves: settle() runs before the relay sends it.
    if (!row.overage) row.json = serialize(row, row.costNano, 0n);
    if (journal) {
      try {
        row.segment = journal.append(row.json ?? overageLine(row));
      } catch (error) {
        logger.error('could not append to the settlement journal; the row is only in memory', { error });
      }
    }
    pending.push(row);
    queuedTotal += 1;
    scheduleFlush();
  }

  /**
   * Rows settled while a batch is written wait for the next one: the delay applies again after every
   * write, so under steady load batches grow instead of turning into a transaction per handful of rows.
   */
  function scheduleFlush() {
    if (writer || abandoned) return;
    if (backlog() >= maxBatch || admissionWaiters.length > 0 || pending[pending.length - 1]?.overage) {
      void startWriter();
      return;
    }
    if (backlog() > 0) {
      flushTimer ??= setTimeout(() => {
        flushTimer = null;
        void startWriter();
      }, config.usageFlushMs);
    }
  }

  /** The row's values in ROW_COLUMNS order, as JSON. */
  function serialize(p: Pending, costNano: bigint, unpaidNano: bigint): string {
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
    ]);
  }

  async function writeBatch(batch: Pending[]) {
    const rows = await query<{ user_id: string; total: string; short: string }>(
      writeBatchStatement,
      [`[${batch.map((p) => p.json ?? serialize(p, p.costNano, 0n)).join(',')}]`, leaseTtlSeconds],
      { prepared: true },
    );
    for (const row of rows) {
      logger.error('settled against the balance: the lease was gone', {
        userId: row.user_id,
        totalNano: BigInt(row.total),
        shortNano: BigInt(row.short),
      });
    }
  }

  /**
   * Hands the unreserved part of this instance's lease of a user back to the balance: another instance
   * settles an answer the balance it sees cannot cover. Reservations in flight keep their share.
   */
  async function recall(userId: string) {
    const lease = leases.get(userId);
    if (!lease || !lease.id || lease.available <= 0n) return;
    const amount = lease.available;
    lease.available = 0n;
    try {
      await db.transaction(async (tx) => {
        const kept = rowsOf(
          await tx.execute(sql`
            update balance_leases set amount_nano = amount_nano - ${amount.toString()}::bigint
            where id = ${lease.id} and amount_nano >= ${amount.toString()}::bigint returning id`),
        );
        // A lease row already gone was returned to the balance whole: the memory held nothing real.
        if (kept.length === 0) return;
        await tx.execute(sql`update users set balance_nano = balance_nano + ${amount.toString()}::bigint where id = ${userId}`);
      });
    } catch (error) {
      lease.available += amount;
      logger.error('could not hand a recalled lease back', { error, userId });
    }
  }

  /**
   * Before an answer is left partly unpaid, the money other instances hold in leases of the same user
   * is asked back (NOTIFY), and the writer waits a moment for it: a bounded wait, only on this rare path.
   */
  async function gatherBalance(userId: string, owed: bigint) {
    let previous: bigint | null = null;
    for (let round = 0; round < 20; round++) {
      const [row] = rowsOf<{ balance: unknown; others: unknown }>(
        await db.execute(sql`
          select u.balance_nano::text as balance,
            coalesce((select sum(amount_nano) from balance_leases b
                      where b.user_id = u.id and b.instance_id <> ${instanceId}), 0)::text as others
          from users u where u.id = ${userId}`),
      );
      if (!row) return;
      const [balance, others] = [toBigInt(row.balance), toBigInt(row.others)];
      if (balance >= owed || others === 0n) return;
      if (round === 0) await db.execute(sql`select pg_notify(${LEASE_RECALL_CHANNEL}, ${userId})`);
      // What is still leased once recalls have answered is reserved by requests in flight.
      else if (round >= 3 && others === previous) return;
      previous = others;
      await Bun.sleep(50);
    }
  }

  /**
   * A settlement that outgrew its leases, in one transaction: the lease gives what the request had
   * reserved plus what it held, the key's budget what its claim could not, and the balance the rest down
   * to zero. What the balance cannot cover is recorded as unpaid.
   */
  async function writeOverage(p: Pending, overage: Overage) {
    const userId = p.facts.userId;
    const total = p.promptCostNano + p.completionCostNano;
    if (overage.fromBalanceNano > 0n) await gatherBalance(userId, overage.fromBalanceNano);
    const { charged, unpaid } = await db.transaction(async (tx) => {
      let fromLease = 0n;
      if (p.leaseId && p.costNano > 0n) {
        const debited = rowsOf(
          await tx.execute(sql`
            update balance_leases set amount_nano = amount_nano - ${p.costNano.toString()}::bigint
            where id = ${p.leaseId} and amount_nano >= ${p.costNano.toString()}::bigint returning id`),
        );
        if (debited.length > 0) fromLease = p.costNano;
      }
      if (p.keyLeaseId && overage.keyLeaseCostNano > 0n) {
        await tx.execute(sql`
          update key_leases set amount_nano = greatest(amount_nano - ${overage.keyLeaseCostNano.toString()}::bigint, 0)
          where id = ${p.keyLeaseId}`);
      }
      if (overage.keyId && overage.fromKeyBudgetNano > 0n) {
        await tx.execute(sql`
          update api_keys set budget_nano = greatest(budget_nano - ${overage.fromKeyBudgetNano.toString()}::bigint, 0)
          where id = ${overage.keyId}`);
      }
      const owed = total - fromLease;
      let taken = 0n;
      if (owed > 0n) {
        const [user] = rowsOf<{ balance: unknown }>(
          await tx.execute(sql`select balance_nano as balance from users where id = ${userId} for no key update`),
        );
        taken = minBig(user ? toBigInt(user.balance) : 0n, owed);
        if (taken > 0n) {
          await tx.execute(sql`update users set balance_nano = balance_nano - ${taken.toString()}::bigint where id = ${userId}`);
        }
      }
      const charged = fromLease + taken;
      const unpaid = total - charged;
      await tx.execute(sql`${recordRowsSql(`[${serialize({ ...p, leaseId: null, keyLeaseId: null }, charged, unpaid)}]`)} select 1`);
      return { charged, unpaid };
    });
    if (unpaid > 0n) {
      options.observer?.unpaid(unpaid);
      logger.error('usage left unpaid: the whole balance could not cover it', {
        userId,
        requestId: p.facts.requestId,
        costNano: total,
        chargedNano: charged,
        unpaidNano: unpaid,
      });
    }
  }

  function releaseAdmissions() {
    if (admissionWaiters.length === 0 || backlog() >= maxPending) return;
    const waiting = admissionWaiters;
    admissionWaiters = [];
    for (const wake of waiting) wake();
  }

  /** Marks `n` rows from `head` as written. */
  function advance(n: number) {
    for (let i = head; i < head + n; i++) pending[i]!.overage?.done();
    if (journal) journal.written(pending.slice(head, head + n).map((p) => p.segment ?? null));
    head += n;
    writtenTotal += n;
    // Drop written rows now and then, not per batch: slicing a long queue each time would be quadratic.
    if (head >= 4096 || head === pending.length) {
      pending = pending.slice(head);
      head = 0;
    }
    releaseAdmissions();
  }

  /**
   * Writes the next `count` rows. A row the database refuses (not a transient failure, which is thrown
   * to retry everything later) must not stop billing for everyone: the batch is split until the bad row
   * stands alone, the rest is written, and the bad one is written with its texts and figures made safe,
   * or, failing that, dropped and logged (its charge then never leaves the lease, which goes back to the
   * user: the books still balance).
   */
  async function writeIsolating(count: number): Promise<void> {
    const batch = pending.slice(head, head + count);
    try {
      await writeBatch(batch);
      advance(count);
      return;
    } catch (error) {
      if (isTransientDatabaseError(error)) throw error;
      if (count > 1) {
        const half = Math.ceil(count / 2);
        await writeIsolating(half);
        await writeIsolating(count - half);
        return;
      }
      const row = batch[0]!;
      const safe: Pending = {
        ...row,
        facts: { ...row.facts, model: 'invalid', error: 'usage row refused by the database', durationMs: 0 },
      };
      // Its line is made again from the safe facts: the queued one is what the database just refused.
      safe.json = serialize(safe, safe.costNano, 0n);
      try {
        await writeBatch([safe]);
        logger.error('usage row refused; written with its texts replaced', { error, requestId: row.facts.requestId });
      } catch (again) {
        if (isTransientDatabaseError(again)) throw again;
        logger.error('usage row refused twice; dropped', { error: again, requestId: row.facts.requestId });
      }
      advance(1);
    }
  }

  /**
   * Writes the settlements waiting when it starts (not those that arrive meanwhile: they make the next
   * batch), at most maxBatch per statement, and each overage on its own at its place in the order.
   * Resolves false when a write failed; the rows stay queued.
   */
  function startWriter(): Promise<boolean> {
    if (writer) return writer;
    if (abandoned) return Promise.resolve(false);
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    const run = async (): Promise<boolean> => {
      let due = backlog();
      while (due > 0) {
        const first = pending[head]!;
        if (first.overage) {
          try {
            await writeOverage(first, first.overage);
          } catch (error) {
            logger.error('overage settlement failed; will retry', { error, requestId: first.facts.requestId });
            return false;
          }
          advance(1);
          due -= 1;
          continue;
        }
        let end = head + 1;
        const limit = head + Math.min(due, maxBatch);
        while (end < limit && !pending[end]!.overage) end++;
        const count = end - head;
        try {
          await writeIsolating(count);
        } catch (error) {
          logger.error('usage batch failed; will retry', { error, rows: count });
          return false;
        }
        due -= count;
      }
      return true;
    };
    const current = run().then(
      (ok) => ok,
      (error) => {
        logger.error('usage writer crashed', { error });
        return false;
      },
    );
    writer = current;
    void current.then((ok) => {
      writer = null;
      if (!ok) {
        if (!stopped) flushTimer ??= setTimeout(() => {
          flushTimer = null;
          void startWriter();
        }, 1_000);
        return;
      }
      scheduleFlush();
    });
    return current;
  }

  /**
   * Writes every settlement queued before the call; resolves when they are committed, or after a write
   * failed (logged; the rows stay queued and are retried).
   */
  async function flush(): Promise<void> {
    const target = queuedTotal;
    while (writtenTotal < target) {
      const ok = await (writer ?? startWriter());
      if (!ok) return;
    }
  }

  /**
   * Which of these settlements already have their usage row (a batch may have committed just before the
   * crash, its journal lines not yet released), by their positions in `rows`. Matched by user, request id
   * and settlement time, through the (user_id, created_at) index: the request id alone is the client's own
   * X-Request-Id when it sent one, and may repeat (the same id on every request would have skipped them all).
   */
  async function settlementsWritten(rows: Pending[]): Promise<Set<number>> {
    const written = new Set<number>();
    for (let from = 0; from < rows.length; from += 1000) {
      const slice = JSON.stringify(
        rows.slice(from, from + 1000).map((r, i) => [from + i, r.facts.userId, storableText(r.facts.requestId), r.createdAt.toISOString()]),
      );
      const found = rowsOf<{ i: number }>(
        await db.execute(sql`
          select (e->>0)::int as i from jsonb_array_elements(${slice}::jsonb) e
          where exists (
            select 1 from usage_records u
            where u.user_id = (e->>1)::uuid and u.created_at = (e->>3)::timestamptz
              and u.request_id is not distinct from e->>2)`),
      );
      for (const row of found) written.add(Number(row.i));
    }
    return written;
  }

  async function returnLease(lease: Lease) {
    leases.delete(lease.userId);
    if (!lease.id) return;
    await db.transaction(async (tx) => {
      const rows = rowsOf<{ amount_nano: unknown }>(
        await tx.execute(sql`delete from balance_leases where id = ${lease.id} returning amount_nano`),
      );
      if (rows.length === 0) return;
      const amount = toBigInt(rows[0]!.amount_nano);
      if (amount > 0n) {
        await tx.execute(
          sql`update users set balance_nano = balance_nano + ${amount.toString()}::bigint where id = ${lease.userId}`,
        );
      }
    });
  }

  /** Hands a key claim back to the key's budget, unless it belongs to a period that is over. */
  async function returnKeyLease(lease: KeyLease) {
    if (keyLeases.get(lease.keyId) === lease) keyLeases.delete(lease.keyId);
    retiredKeyLeases.delete(lease);
    if (!lease.id) return;
    await db.execute(sql`
      with gone as (delete from key_leases where id = ${lease.id} returning key_id, amount_nano, period_start)
      update api_keys k set budget_nano = k.budget_nano + gone.amount_nano
      from gone where k.id = gone.key_id and k.budget_period_start = gone.period_start`);
  }

  /** Hands back leases nobody is using (all of them with `all`), after writing what they owe. */
  async function returnIdleLeases(all = false): Promise<void> {
    const now = Date.now();
    const isIdle = (l: { inFlight: number; toppingUp: unknown; owing: unknown; lastUsed: number }) =>
      l.inFlight === 0 && !l.toppingUp && !l.owing && (all || now - l.lastUsed >= idleReturnMs);
    const idle = [...leases.values()].filter(isIdle);
    const idleKeys = [...keyLeases.values(), ...retiredKeyLeases].filter(
      (l) => isIdle(l) || (l.stale && l.inFlight === 0 && !l.toppingUp && !l.owing),
    );
    if (idle.length === 0 && idleKeys.length === 0) return;
    await flush();
    for (const lease of idle) {
      // A request may have reserved against it while the flush ran.
      if (lease.inFlight > 0 || leases.get(lease.userId) !== lease) continue;
      try {
        await returnLease(lease);
      } catch (error) {
        logger.error('could not return a lease; it will expire', { error, leaseId: lease.id });
      }
    }
    for (const lease of idleKeys) {
      if (lease.inFlight > 0) continue;
      if (!lease.stale && keyLeases.get(lease.keyId) !== lease) continue;
      try {
        await returnKeyLease(lease);
      } catch (error) {
        logger.error('could not return a key limit claim; it will expire', { error, leaseId: lease.id });
      }
    }
  }

  async function renewLeases() {
    await db.execute(sql`
      update balance_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
    await db.execute(sql`
      update key_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
  }

  /**
   * Returns leases of instances that stopped renewing them (crashed) to their users' balances, and
   * their key claims to the keys' budgets (a claim of a past period just goes). One reaper at a time
   * across instances (a transaction-scoped advisory lock), so two never lock the same rows in two orders.
   */
  async function reapExpiredLeases(): Promise<number> {
    return db.transaction(async (tx) => {
      const [lock] = rowsOf<{ ok: boolean }>(
        await tx.execute(sql`select pg_try_advisory_xact_lock(1131376228, 1) as ok`),
      );
      if (!lock?.ok) return 0;
      const rows = rowsOf<{ n: unknown }>(
        await tx.execute(sql`
          with expired as (
            delete from balance_leases where expires_at < now() returning user_id, amount_nano
          ), sums as (
            select user_id, sum(amount_nano)::bigint as total, count(*) as n from expired group by user_id
          ), credited as (
            update users set balance_nano = balance_nano + sums.total from sums where users.id = sums.user_id
            returning sums.n
          )
          select coalesce(sum(n), 0) as n from credited`),
      );
      await tx.execute(sql`
        with expired as (
          delete from key_leases where expires_at < now() returning key_id, amount_nano, period_start
        ), sums as (
          select key_id, period_start, sum(amount_nano)::bigint as total from expired group by key_id, period_start
        )
        update api_keys k set budget_nano = k.budget_nano + sums.total
        from sums where k.id = sums.key_id and k.budget_period_start = sums.period_start`);
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) logger.warn('returned expired balance leases', { count: n });
      return n;
    });
  }

  /**
   * Settles a reservation to the real usage: the cost is charged, the rest goes back to the lease,
   * and the usage row, ledger row and lease debit are queued for the next batch. An answer that cost
   * more than the lease holds is settled on its own against the balance (see the top of this file).
   */
  function settle(reservation: Reservation, facts: UsageFacts): { costNano: bigint } {
    if (reservation.done) return { costNano: 0n };
    reservation.done = true;
    const { lease, keyLease } = reservation as InternalReservation;
    const cost = usageCost(reservation.price, facts);
    const now = Date.now();
    lease.inFlight -= 1;
    lease.lastUsed = now;
    const coverable = reservation.amountNano + lease.available;
    let keyShort = 0n;
    if (keyLease) {
      keyLease.inFlight -= 1;
      keyLease.lastUsed = now;
      const keyCoverable = reservation.amountNano + keyLease.available;
      keyLease.available = cost.totalNano <= keyCoverable ? keyCoverable - cost.totalNano : 0n;
      keyShort = cost.totalNano > keyCoverable ? cost.totalNano - keyCoverable : 0n;
    }
    options.observer?.settled(facts, cost);
    // One row object a settlement, made whole at once (every request makes one: no copies, one shape).
    const row: Pending = {
      facts,
      promptCostNano: cost.promptCostNano,
      completionCostNano: cost.completionCostNano,
      costNano: cost.totalNano,
      leaseId: lease.id,
      keyLeaseId: keyLease?.id ?? null,
      overage: null,
      createdAt: new Date(now),
      json: undefined,
      segment: null,
    };
    if (cost.totalNano <= coverable && keyShort === 0n) {
      lease.available = coverable - cost.totalNano;
      enqueue(row);
      return { costNano: cost.totalNano };
    }
    // Outgrew a lease: reservations of this user (and key) wait until this settlement is written.
    const fromLease = minBig(cost.totalNano, coverable);
    lease.available = coverable - fromLease;
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    const clear = () => {
      if (lease.owing === written) lease.owing = null;
      if (keyLease && keyLease.owing === written) keyLease.owing = null;
    };
    void written.then(clear);
    lease.owing = written;
    if (keyLease) keyLease.owing = written;
    logger.warn('usage exceeded the lease; settling the rest against the balance', {
      userId: reservation.userId,
      requestId: facts.requestId,
      costNano: cost.totalNano,
      leaseCoverNano: fromLease,
    });
    row.costNano = fromLease;
    row.overage = {
      fromBalanceNano: cost.totalNano - fromLease,
      keyId: keyLease?.keyId ?? null,
      keyLeaseCostNano: cost.totalNano - keyShort,
      fromKeyBudgetNano: keyShort,
      done,
    };
    enqueue(row);
    return { costNano: cost.totalNano };
  }

  /** Waits for an overage settlement of this lease to be written, within the admission bound. */
  async function waitOwing(lease: { owing: Promise<void> | null }, deadline: number) {
    while (lease.owing) {
      const owing = lease.owing;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const inTime = await Promise.race([
        owing.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())))),
      ]);
      clearTimeout(timer);
      if (!inTime) {
        throw new AppError('service_unavailable', errorMessages.billingUnavailable, { headers: { 'retry-after': '5' } });
      }
    }
  }

  async function reserveKey(ref: KeyLimitRef, amountNano: bigint, deadline: number): Promise<KeyLease> {
    for (;;) {
      const lease = keyLeaseOf(ref, Date.now());
      await waitOwing(lease, deadline);
      if (lease.stale || keyLeases.get(ref.keyId) !== lease) continue;
      if (lease.available >= amountNano) {
        lease.available -= amountNano;
        lease.inFlight += 1;
        lease.lastUsed = Date.now();
        return lease;
      }
      if (lease.toppingUp) {
        await lease.toppingUp.catch(() => false);
        continue;
      }
      const attempt = topUpKey(lease, amountNano - lease.available).then(() => true);
      lease.toppingUp = attempt;
      try {
        await attempt;
      } finally {
        lease.toppingUp = null;
      }
    }
  }

  return {
    instanceId,

    /**
     * Sets `amountNano` aside for one request, or fails with 402 when the balance (or the key's limit)
     * cannot cover it.
     */
    async reserve(userId: string, amountNano: bigint, options: ReserveOptions = {}): Promise<Reservation> {
      // Back-pressure: while the writer is this far behind, new requests wait for it rather than queue more.
      // The wait is bounded: with the database gone, a client hears 429 and retries instead of hanging.
      const deadline = Date.now() + admissionWaitMs;
      while (backlog() >= maxPending) {
        const left = deadline - Date.now();
        let timer: ReturnType<typeof setTimeout> | undefined;
        let wake: () => void = () => {};
        const admitted = await new Promise<boolean>((resolve) => {
          wake = () => resolve(true);
          admissionWaiters.push(wake);
          timer = setTimeout(() => resolve(false), Math.max(0, left));
          scheduleFlush();
        });
        clearTimeout(timer);
        if (!admitted) {
          admissionWaiters = admissionWaiters.filter((w) => w !== wake);
          throw new AppError('rate_limit_exceeded', errorMessages.billingBacklog, { headers: { 'retry-after': '5' } });
        }
      }
      const keyLease = options.key ? await reserveKey(options.key, amountNano, deadline) : null;
      const lease = leaseOf(userId);
      try {
        for (;;) {
          if (lease.owing) {
            await waitOwing(lease, deadline);
            continue;
          }
          if (lease.available >= amountNano) break;
          if (lease.toppingUp) {
            await lease.toppingUp.catch(() => false);
            continue;
          }
          const attempt = topUp(lease, amountNano - lease.available);
          lease.toppingUp = attempt;
          let ok: boolean;
          try {
            ok = await attempt;
          } finally {
            lease.toppingUp = null;
          }
          if (!ok && lease.available < amountNano && !lease.owing) {
            throw new AppError('insufficient_balance');
          }
        }
      } catch (error) {
        // The key's claim goes back: this request will not run.
        if (keyLease) {
          keyLease.available += amountNano;
          keyLease.inFlight -= 1;
        }
        throw error;
      }
      lease.available -= amountNano;
      lease.inFlight += 1;
      lease.lastUsed = Date.now();
      const reservation: InternalReservation = {
        userId,
        amountNano,
        price: options.price ?? defaultPrice,
        done: false,
        lease,
        keyLease,
      };
      return reservation;
    },

    settle,

    /** Gives a reservation back in full (the request failed) and records the failure. */
    release(reservation: Reservation, facts: UsageFacts) {
      settle(reservation, { ...facts, promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    },

    /** The key's limit or reset changed: this instance stops reserving against its old claim. */
    keyChanged(keyId: string) {
      const lease = keyLeases.get(keyId);
      if (lease) retireKeyLease(lease);
    },

    /** Settlements queued and not yet written (for operators and tests). */
    get backlog() {
      return backlog();
    },

    /** How long the oldest unwritten settlement has waited, in seconds (0 when none waits). */
    get oldestUnwrittenSeconds() {
      const oldest = pending[head];
      return oldest ? Math.max(0, (Date.now() - oldest.createdAt.getTime()) / 1000) : 0;
    },

    /** Records usage that reserved nothing (a request refused before any money was set aside). */
    record(facts: UsageFacts) {
      enqueue({
        facts,
        promptCostNano: 0n,
        completionCostNano: 0n,
        costNano: 0n,
        leaseId: null,
        keyLeaseId: null,
        overage: null,
        createdAt: new Date(),
        json: undefined,
        segment: null,
      });
    },

    flush,
    returnIdleLeases,
    reapExpiredLeases,

    /** The user's money: the balance plus what leases hold, once this instance's settlements are written. */
    async balanceNano(userId: string): Promise<bigint> {
      await flush();
      const rows = rowsOf<{ total: unknown }>(
        await db.execute(sql`
          select u.balance_nano + coalesce((select sum(amount_nano) from balance_leases where user_id = u.id), 0) as total
          from users u where u.id = ${userId}`),
      );
      return rows[0] ? toBigInt(rows[0].total) : 0n;
    },

    async start() {
      if (options.journalDir) {
        // Settlements of instances that died before the database had them: written first of all. They
        // are appended to this instance's own journal as they are queued, so their old files can go.
        const recovered = recoverJournal(options.journalDir, instanceId);
        journal = openJournal(options.journalDir, instanceId);
        if (recovered.rows.length > 0) {
          const rows = recovered.rows.map(fromJournal);
          const written = await settlementsWritten(rows);
          let replayed = 0;
          // A segment reused or left full may hold a row twice across files: one settlement, one row.
          const seen = new Set<string>();
          for (const [index, row] of rows.entries()) {
            if (written.has(index)) continue;
            const identity = `${row.facts.userId}|${row.facts.requestId}|${row.createdAt.getTime()}`;
            if (seen.has(identity)) continue;
            seen.add(identity);
            enqueue(row);
            replayed += 1;
          }
          recovered.done();
          await flush();
          logger.warn('wrote settlements an earlier instance had journaled but not written', {
            journaled: rows.length,
            replayed,
            unwritten: backlog(),
          });
        }
      }
      if (options.listen && !unlistenRecall) {
        unlistenRecall = await options.listen(LEASE_RECALL_CHANNEL, (userId) => void recall(userId));
      }
      housekeeping ??= setInterval(() => {
        void returnIdleLeases().catch((error) => logger.error('lease return failed', { error }));
        void renewLeases().catch((error) => logger.error('lease renewal failed', { error }));
        void reapExpiredLeases().catch((error) => logger.error('lease reaping failed', { error }));
      }, Math.max(500, Math.min(idleReturnMs, (leaseTtlSeconds * 1000) / 4)));
      housekeeping.unref?.();
    },

    /** Writes everything and hands every lease back; called once in-flight requests have ended. */
    async stop() {
      stopped = true;
      if (housekeeping) clearInterval(housekeeping);
      housekeeping = null;
      await unlistenRecall?.().catch(() => {});
      unlistenRecall = null;
      // Every row must reach the database before the process goes: a write that fails is retried a while,
      // and what is still unwritten then stays in the journal for the next start.
      const deadline = Date.now() + (options.stopWriteMs ?? 15_000);
      const writeAll = async () => {
        await flush();
        while (writtenTotal < queuedTotal && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          await flush();
        }
      };
      // A write that hangs (the database stopped answering) must not hold the shutdown past the deadline.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([writeAll(), new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
      clearTimeout(timer);
      if (writtenTotal < queuedTotal) {
        // The journal keeps them: the next instance to start on this DATA_DIR writes them.
        logger.error(
          journal
            ? 'the database did not take every settlement; the journal keeps them for the next start'
            : 'shutting down with usage rows unwritten',
          { rows: queuedTotal - writtenTotal },
        );
        abandoned = true;
        journal?.close();
        return;
      }
      journal?.close();
      await returnIdleLeases(true);
    },
  };
}

export type Billing = ReturnType<typeof createBilling>;
