// Per-instance balance leases. An instance takes a lease (a slice of a user's balance) from the database in
// one atomic statement and reserves requests against it in memory, so the hot path does no I/O while the
// lease lasts. Money moves between users.balance_nano and balance_leases only inside a transaction that
// changes both, so at every commit users.balance_nano + Σ leases = Σ ledger; the memory (`available`)
// learns of money only after the commit. A lease outlives its instance only until it expires, and then any
// instance returns it to the balance (housekeeping.ts). Lock order (see index.ts): the lease row first,
// then the user's, which is locked FOR NO KEY UPDATE, never FOR UPDATE.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { AppError } from '../../http/errors';
import { toBigInt, withRetry, type BillingContext } from './context';
import { waitOwing, type Owing } from './overage';

export interface Lease extends Owing {
  userId: string;
  /** The lease's row; null until the first top-up commits. */
  id: string | null;
  /** Money of the lease not reserved by any request. */
  available: bigint;
  inFlight: number;
  lastUsed: number;
  toppingUp: Promise<boolean> | null;
}

export class BalanceLeases {
  /** This instance's lease of each user it has served lately. */
  readonly byUser = new Map<string, Lease>();
  private readonly ctx: BillingContext;

  constructor(ctx: BillingContext) {
    this.ctx = ctx;
  }

  of(userId: string): Lease {
    let lease = this.byUser.get(userId);
    if (!lease) {
      lease = { userId, id: null, available: 0n, inFlight: 0, lastUsed: Date.now(), toppingUp: null, owing: null };
      this.byUser.set(userId, lease);
    }
    return lease;
  }

  /**
   * Sets `amountNano` of the lease aside for one request. The check and the taking are one synchronous
   * step: requests that waited for the same top-up resume one after another, and each must see what the
   * ones before it took (a check in one step and the taking after an await let 50 requests through on a
   * lease that covered 10).
   */
  hold(lease: Lease, amountNano: bigint) {
    lease.available -= amountNano;
    lease.inFlight += 1;
    lease.lastUsed = Date.now();
  }

  /**
   * Waits until the lease holds `amountNano`, and holds it (hold()): for a settlement that outgrew it to
   * be written, and for a top-up from the balance (one at a time per lease); 402 when the balance cannot
   * cover it. reserve() calls it only when the lease does not already hold the amount, so the common case
   * awaits nothing.
   */
  async acquire(lease: Lease, amountNano: bigint, deadline: number): Promise<void> {
    for (;;) {
      if (lease.owing) {
        await waitOwing(lease, deadline);
        continue;
      }
      if (lease.available >= amountNano) {
        this.hold(lease, amountNano);
        return;
      }
      if (lease.toppingUp) {
        await lease.toppingUp.catch(() => false);
        continue;
      }
      const attempt = this.topUp(lease, amountNano - lease.available);
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
  }

  /** Moves money from the user's balance into this instance's lease; false when the balance cannot cover `need`. */
  private async topUp(lease: Lease, need: bigint): Promise<boolean> {
    const { db, config, instanceId, leaseTtlSeconds } = this.ctx;
    const chunk = need > config.leaseChunkNano ? need : config.leaseChunkNano;
    return withRetry(this.ctx.logger, 'lease top-up', () =>
      db.transaction(async (tx) => {
        // The lease row first, then the user's (the lock order in index.ts).
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
        this.ctx.observer?.topUp('balance', result ? 'ok' : 'refused');
        if (!result) return false;
        lease.id = result.leaseId;
        lease.available += result.take;
        return true;
      },
      (error) => {
        this.ctx.observer?.topUp('balance', 'failed');
        throw error;
      },
    );
  }

  /**
   * Hands the unreserved part of this instance's lease of a user back to the balance: another instance
   * settles an answer the balance it sees cannot cover (overage.ts asks on LEASE_RECALL_CHANNEL).
   * Reservations in flight keep their share.
   */
  async recall(userId: string) {
    const lease = this.byUser.get(userId);
    if (!lease?.id || lease.available <= 0n) return;
    const amount = lease.available;
    lease.available = 0n;
    try {
      await this.ctx.db.transaction(async (tx) => {
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
      this.ctx.logger.error('could not hand a recalled lease back', { error, userId });
    }
  }

  /** Deletes the lease's row and credits what it held to the balance (its settlements are written). */
  async returnLease(lease: Lease) {
    this.byUser.delete(lease.userId);
    if (!lease.id) return;
    await this.ctx.db.transaction(async (tx) => {
      const rows = rowsOf<{ amount_nano: unknown }>(await tx.execute(sql`delete from balance_leases where id = ${lease.id} returning amount_nano`));
      if (rows.length === 0) return;
      const amount = toBigInt(rows[0]!.amount_nano);
      if (amount > 0n) {
        await tx.execute(sql`update users set balance_nano = balance_nano + ${amount.toString()}::bigint where id = ${lease.userId}`);
      }
    });
  }
}
