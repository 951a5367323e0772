// Reservation and settlement of model requests against per-instance balance leases.
//
// An instance takes a lease (a slice of a user's balance) from the database in one atomic statement and
// reserves requests against it in memory, so the hot path does no I/O while the lease lasts. Settlements
// (usage row, ledger row, lease debit) are written in batches, each batch one transaction. At every
// commit users.balance_nano + Σ leases = Σ ledger; a lease outlives its instance only until it expires,
// and then any instance returns it to the balance. Idle leases go back on their own after a moment.
import { sql } from 'drizzle-orm';
import type { Config } from '../config';
import { rowsOf, type Database, type Executor } from '../db/client';
import { ledgerEntries, usageRecords } from '../db/schema';
import { AppError } from '../http/errors';
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
  /** Flush as soon as this many settlements wait. */
  maxBatch?: number;
}

const toBigInt = (v: unknown) => (typeof v === 'bigint' ? v : BigInt(v as string | number));

export function createBilling(options: BillingOptions) {
  const { db, config, logger, instanceId } = options;
  const idleReturnMs = options.idleReturnMs ?? 2_000;
  const leaseTtlSeconds = options.leaseTtlSeconds ?? 120;
  const maxBatch = options.maxBatch ?? 500;
  const leases = new Map<string, Lease>();
  let pending: Pending[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: ReturnType<typeof setTimeout> | null = null;
  let housekeeping: ReturnType<typeof setInterval> | null = null;
  let stopped = false;

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

  function scheduleFlush() {
    if (pending.length >= maxBatch) {
      void flush();
      return;
    }
    flushTimer ??= setTimeout(() => {
      flushTimer = null;
      void flush();
    }, config.usageFlushMs);
  }

  async function writeBatch(batch: Pending[]) {
    await db.transaction(async (tx) => {
      await tx.insert(usageRecords).values(
        batch.map(({ facts, costNano, createdAt }) => ({
          userId: facts.userId,
          apiKeyId: facts.apiKeyId ?? null,
          agentId: facts.agentId ?? null,
          requestId: facts.requestId,
          model: facts.model,
          stream: facts.stream,
          promptTokens: facts.promptTokens,
          completionTokens: facts.completionTokens,
          totalTokens: facts.totalTokens,
          costNano,
          status: facts.status,
          usageSource: facts.usageSource,
          upstreamStatus: facts.upstreamStatus ?? null,
          error: facts.error ?? null,
          durationMs: facts.durationMs,
          createdAt,
        })),
      );
      const charged = batch.filter((p) => p.costNano > 0n);
      if (charged.length === 0) return;
      await tx.insert(ledgerEntries).values(
        charged.map((p) => ({
          userId: p.facts.userId,
          amountNano: -p.costNano,
          kind: p.facts.agentId ? 'assistant_usage' : 'usage',
          reference: `request:${p.facts.requestId}`,
          createdAt: p.createdAt,
        })),
      );
      const perLease = new Map<string, { userId: string; leaseId: string | null; total: bigint }>();
      for (const p of charged) {
        const key = `${p.facts.userId}:${p.leaseId}`;
        const entry = perLease.get(key) ?? { userId: p.facts.userId, leaseId: p.leaseId, total: 0n };
        entry.total += p.costNano;
        perLease.set(key, entry);
      }
      for (const { userId, leaseId, total } of perLease.values()) {
        await debitLease(tx, userId, leaseId, total);
      }
    });
  }

  async function debitLease(tx: Executor, userId: string, leaseId: string | null, total: bigint) {
    const updated = leaseId
      ? rowsOf(
          await tx.execute(sql`
            update balance_leases set amount_nano = amount_nano - ${total.toString()}::bigint,
              expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
            where id = ${leaseId} and amount_nano >= ${total.toString()}::bigint returning id`),
        ).length
      : 0;
    if (updated > 0) return;
    // The lease expired and was returned while this instance still held money of it (a stall longer than
    // the lease's lifetime): the charge comes from the balance the lease went back to.
    const rows = rowsOf<{ short: unknown }>(
      await tx.execute(sql`
        update users set balance_nano = greatest(balance_nano - ${total.toString()}::bigint, 0)
        where id = ${userId}
        returning greatest(${total.toString()}::bigint - (balance_nano + ${total.toString()}::bigint), 0) as short`),
    );
    logger.error('settled against the balance: the lease was gone', {
      userId,
      leaseId,
      totalNano: total,
      shortNano: rows[0] ? toBigInt(rows[0].short) : total,
    });
  }

  /** Writes every waiting settlement; resolves when they are committed. */
  function flush(): Promise<void> {
    if (flushTimer) {
      clearTimeout(flushTimer);
      flushTimer = null;
    }
    flushing = flushing.then(async () => {
      while (pending.length > 0) {
        const batch = pending.slice(0, maxBatch);
        try {
          await writeBatch(batch);
          pending = pending.slice(batch.length);
        } catch (error) {
          logger.error('usage batch failed; will retry', { error, rows: batch.length });
          if (!stopped) flushTimer ??= setTimeout(() => void flush(), 1_000);
          return;
        }
      }
    });
    return flushing;
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
    pending.push({ facts, costNano, leaseId: lease.id, createdAt: new Date() });
    scheduleFlush();
    return { costNano };
  }

  return {
    instanceId,

    /** Sets `amountNano` aside for one request, or fails with 402 when the balance cannot cover it. */
    async reserve(userId: string, amountNano: bigint): Promise<Reservation> {
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

    /** Records usage that reserved nothing (a request refused before any money was set aside). */
    record(facts: UsageFacts) {
      pending.push({ facts, costNano: 0n, leaseId: null, createdAt: new Date() });
      scheduleFlush();
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
      await flush();
      await returnIdleLeases(true);
    },
  };
}

export type Billing = ReturnType<typeof createBilling>;
