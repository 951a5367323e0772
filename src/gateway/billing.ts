// Reservation and settlement of model requests against per-instance balance leases.
//
// An instance takes a lease (a slice of a user's balance) from the database in one atomic statement and
// reserves requests against it in memory, so the hot path does no I/O while the lease lasts. Settlements
// (usage row, ledger row, lease debit) are written in batches, each batch one statement, and a bounded
// backlog makes new reservations wait when the writer falls behind. At every commit
// users.balance_nano + Σ leases = Σ ledger; a lease outlives its instance only until it expires,
// and then any instance returns it to the balance. Idle leases go back on their own after a moment.
import { sql } from 'drizzle-orm';
import type { Config } from '../config';
import { rowsOf, type Database } from '../db/client';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import type { Logger } from '../logger';

export type UsageStatus =
  | 'ok'
  | 'client_closed'
  | 'upstream_error'
  | 'upstream_timeout'
  | 'upstream_rejected'
  | 'upstream_dropped';

export interface UsageFacts {
  userId: string;
  apiKeyId?: string | null;
  agentId?: string | null;
  requestId: string;
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

export interface Reservation {
  readonly userId: string;
  readonly amountNano: bigint;
  done: boolean;
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
}

interface Pending {
  facts: UsageFacts;
  costNano: bigint;
  leaseId: string | null;
  createdAt: Date;
}

export interface BillingOptions {
  db: Database;
  config: Pick<Config, 'tokenPriceNano' | 'leaseChunkNano' | 'usageFlushMs'>;
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
}

const toBigInt = (v: unknown) => (typeof v === 'bigint' ? v : BigInt(v as string | number));

/** PostgreSQL text holds neither NUL nor lone surrogates; one such upstream message must not block every batch. */
function storableText(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const clean = value.isWellFormed() ? value : value.toWellFormed();
  return clean.includes('\0') ? clean.replaceAll('\0', '') : clean;
}

/**
 * One statement writes a whole batch (atomic on its own, so no BEGIN/COMMIT round trips): the usage rows,
 * a ledger row per charged settlement, and the debit of each lease by what was charged against it. A
 * charge whose lease is gone (expired and returned during a stall longer than its lifetime) is taken from
 * the balance the lease went back to, never below zero; those come back as rows to log. The rows arrive
 * as one JSON parameter, so the statement text is constant and building it costs nothing per row.
 */
const writeBatchSql = (rowsJson: string, leaseTtlSeconds: number) => sql`
with r as (
  select * from json_to_recordset(${rowsJson}::json) as r(
    user_id uuid, api_key_id uuid, agent_id uuid, request_id text, model text, stream boolean,
    prompt_tokens integer, completion_tokens integer, total_tokens integer, cost_nano bigint, status text,
    usage_source text, upstream_status integer, error text, duration_ms integer, created_at timestamptz,
    lease_id uuid)
), usage_rows as (
  insert into usage_records (user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens,
    completion_tokens, total_tokens, cost_nano, status, usage_source, upstream_status, error, duration_ms, created_at)
  select user_id, api_key_id, agent_id, request_id, model, stream, prompt_tokens, completion_tokens, total_tokens,
    cost_nano, status, usage_source, upstream_status, error, duration_ms, created_at
  from r
), ledger_rows as (
  insert into ledger_entries (user_id, amount_nano, kind, reference, created_at)
  select user_id, -cost_nano, case when agent_id is null then 'usage' else 'assistant_usage' end,
    'request:' || request_id, created_at
  from r where cost_nano > 0
), sums as (
  select user_id, lease_id, sum(cost_nano)::bigint as total from r where cost_nano > 0 group by user_id, lease_id
), debited as (
  update balance_leases b set amount_nano = b.amount_nano - s.total,
    expires_at = now() + make_interval(secs => ${leaseTtlSeconds}::double precision)
  from sums s
  where b.id = s.lease_id and b.amount_nano >= s.total
  returning b.id
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

export function createBilling(options: BillingOptions) {
  const { db, config, logger, instanceId } = options;
  const idleReturnMs = options.idleReturnMs ?? 2_000;
  const leaseTtlSeconds = options.leaseTtlSeconds ?? 120;
  const maxBatch = options.maxBatch ?? 5_000;
  const maxPending = Math.max(options.maxPending ?? 2 * maxBatch, 1);
  const admissionWaitMs = options.admissionWaitMs ?? 10_000;
  const leases = new Map<string, Lease>();
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
  let stopped = false;

  const backlog = () => pending.length - head;

  function leaseOf(userId: string): Lease {
    let lease = leases.get(userId);
    if (!lease) {
      lease = { userId, id: null, available: 0n, inFlight: 0, lastUsed: Date.now(), toppingUp: null };
      leases.set(userId, lease);
    }
    return lease;
  }

  /** Moves money from the user's balance into this instance's lease; false when the balance cannot cover `need`. */
  async function topUp(lease: Lease, need: bigint): Promise<boolean> {
    const chunk = need > config.leaseChunkNano ? need : config.leaseChunkNano;
    return db.transaction(async (tx) => {
      const taken = rowsOf<{ take: unknown }>(
        await tx.execute(sql`
          update users u set balance_nano = u.balance_nano - t.take
          from (select id, least(balance_nano, ${chunk.toString()}::bigint) as take
                from users where id = ${lease.userId} and balance_nano >= ${need.toString()}::bigint
                for update) t
          where u.id = t.id
          returning t.take`),
      );
      if (taken.length === 0) return false;
      const take = toBigInt(taken[0]!.take);
      let updated = 0;
      if (lease.id) {
        updated = rowsOf(
          await tx.execute(sql`
            update balance_leases set amount_nano = amount_nano + ${take.toString()}::bigint,
              expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
            where id = ${lease.id} returning id`),
        ).length;
      }
      if (updated === 0) {
        const inserted = rowsOf<{ id: string }>(
          await tx.execute(sql`
            insert into balance_leases (user_id, instance_id, amount_nano, expires_at)
            values (${lease.userId}, ${instanceId}, ${take.toString()}::bigint,
                    now() + make_interval(secs => ${leaseTtlSeconds}))
            returning id`),
        );
        lease.id = inserted[0]!.id;
      }
      lease.available += take;
      return true;
    });
  }

  function enqueue(row: Pending) {
    pending.push(row);
    queuedTotal += 1;
    scheduleFlush();
  }

  /**
   * Rows settled while a batch is written wait for the next one: the delay applies again after every
   * write, so under steady load batches grow instead of turning into a transaction per handful of rows.
   */
  function scheduleFlush() {
    if (writer) return;
    if (backlog() >= maxBatch || admissionWaiters.length > 0) {
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

  function serialize(p: Pending): string {
    const f = p.facts;
    return JSON.stringify({
      user_id: f.userId,
      api_key_id: f.apiKeyId ?? null,
      agent_id: f.agentId ?? null,
      request_id: storableText(f.requestId),
      model: storableText(f.model),
      stream: f.stream,
      prompt_tokens: f.promptTokens,
      completion_tokens: f.completionTokens,
      total_tokens: f.totalTokens,
      cost_nano: p.costNano.toString(),
      status: f.status,
      usage_source: f.usageSource,
      upstream_status: f.upstreamStatus ?? null,
      error: storableText(f.error),
      duration_ms: f.durationMs,
      created_at: p.createdAt.toISOString(),
      lease_id: p.costNano > 0n ? p.leaseId : null,
    });
  }

  async function writeBatch(batch: Pending[]) {
    const rows = rowsOf<{ user_id: string; total: string; short: string }>(
      await db.execute(writeBatchSql(`[${batch.map(serialize).join(',')}]`, leaseTtlSeconds)),
    );
    for (const row of rows) {
      logger.error('settled against the balance: the lease was gone', {
        userId: row.user_id,
        totalNano: BigInt(row.total),
        shortNano: BigInt(row.short),
      });
    }
  }
  function releaseAdmissions() {
    if (admissionWaiters.length === 0 || backlog() >= maxPending) return;
    const waiting = admissionWaiters;
    admissionWaiters = [];
    for (const wake of waiting) wake();
  }

  /**
   * Writes the settlements waiting when it starts (not those that arrive meanwhile: they make the next
   * batch), at most maxBatch per statement. Resolves false when a write failed; the rows stay queued.
   */
  function startWriter(): Promise<boolean> {
    if (writer) return writer;
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    const run = async (): Promise<boolean> => {
      let due = backlog();
      while (due > 0) {
        const batch = pending.slice(head, head + Math.min(due, maxBatch));
        try {
          await writeBatch(batch);
        } catch (error) {
          logger.error('usage batch failed; will retry', { error, rows: batch.length });
          return false;
        }
        head += batch.length;
        due -= batch.length;
        writtenTotal += batch.length;
        // Drop written rows now and then, not per batch: slicing a long queue each time would be quadratic.
        if (head >= 4096 || head === pending.length) {
          pending = pending.slice(head);
          head = 0;
        }
        releaseAdmissions();
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

  /** Hands back leases nobody is using (all of them with `all`), after writing what they owe. */
  async function returnIdleLeases(all = false): Promise<void> {
    const now = Date.now();
    const idle = [...leases.values()].filter(
      (l) => l.inFlight === 0 && !l.toppingUp && (all || now - l.lastUsed >= idleReturnMs),
    );
    if (idle.length === 0) return;
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
  }

  async function renewLeases() {
    await db.execute(sql`
      update balance_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
  }

  /** Returns leases of instances that stopped renewing them (crashed) to their users' balances. */
  async function reapExpiredLeases(): Promise<number> {
    const rows = rowsOf<{ n: unknown }>(
      await db.execute(sql`
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
    const n = Number(rows[0]?.n ?? 0);
    if (n > 0) logger.warn('returned expired balance leases', { count: n });
    return n;
  }

  /**
   * Settles a reservation to the real usage: the cost is charged, the rest goes back to the lease,
   * and the usage row, ledger row and lease debit are queued for the next batch.
   */
  function settle(reservation: Reservation, facts: UsageFacts): { costNano: bigint } {
    if (reservation.done) return { costNano: 0n };
    reservation.done = true;
    const lease = leaseOf(reservation.userId);
    let costNano = BigInt(Math.max(0, facts.totalTokens)) * config.tokenPriceNano;
    // Answers longer than reserved take the difference from the lease; never more than it holds.
    const coverable = reservation.amountNano + lease.available;
    if (costNano > coverable) {
      logger.warn('usage exceeded what the balance could cover; charged what was available', {
        userId: reservation.userId,
        requestId: facts.requestId,
        costNano,
        chargedNano: coverable,
      });
      costNano = coverable;
    }
    lease.available = coverable - costNano;
    lease.inFlight -= 1;
    lease.lastUsed = Date.now();
    enqueue({ facts, costNano, leaseId: lease.id, createdAt: new Date() });
    return { costNano };
  }

  return {
    instanceId,

    /** Sets `amountNano` aside for one request, or fails with 402 when the balance cannot cover it. */
    async reserve(userId: string, amountNano: bigint): Promise<Reservation> {
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
      const lease = leaseOf(userId);
      while (lease.available < amountNano) {
        if (lease.toppingUp) {
          await lease.toppingUp;
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
        if (!ok && lease.available < amountNano) {
          throw new AppError('insufficient_balance');
        }
      }
      lease.available -= amountNano;
      lease.inFlight += 1;
      lease.lastUsed = Date.now();
      return { userId, amountNano, done: false };
    },

    settle,

    /** Gives a reservation back in full (the request failed) and records the failure. */
    release(reservation: Reservation, facts: UsageFacts) {
      settle(reservation, { ...facts, totalTokens: 0 });
    },

    /** Settlements queued and not yet written (for operators and tests). */
    get backlog() {
      return backlog();
    },

    /** Records usage that reserved nothing (a request refused before any money was set aside). */
    record(facts: UsageFacts) {
      enqueue({ facts, costNano: 0n, leaseId: null, createdAt: new Date() });
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

    start() {
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
      // Every row must reach the database before the process goes: a write that fails is retried a while.
      const deadline = Date.now() + 15_000;
      await flush();
      while (writtenTotal < queuedTotal && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await flush();
      }
      if (writtenTotal < queuedTotal) {
        logger.error('shutting down with usage rows unwritten', { rows: queuedTotal - writtenTotal });
      }
      await returnIdleLeases(true);
    },
  };
}

export type Billing = ReturnType<typeof createBilling>;
