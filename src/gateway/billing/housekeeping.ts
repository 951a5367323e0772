// Lease housekeeping, on a timer: leases and limit claims (keys', members') nobody used for a moment go back
// to the balance and the limits' budgets (after what they owe is written), this instance's live ones are renewed, and those of
// instances that stopped renewing them (crashed) are returned by whichever instance sees them expire.
// Reapers run one at a time across instances (a transaction-scoped advisory lock), so two never lock the
// same rows in two orders.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import type { BillingContext } from './context';
import type { LimitClaims } from './limit-claims';
import type { BalanceLeases } from './leases';
import type { SettlementWriter } from './writer';

export class LeaseHousekeeping {
  private readonly ctx: BillingContext;
  private readonly leases: BalanceLeases;
  private readonly claims: readonly LimitClaims<unknown>[];
  private readonly writer: SettlementWriter;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(ctx: BillingContext, leases: BalanceLeases, claims: readonly LimitClaims<unknown>[], writer: SettlementWriter) {
    this.ctx = ctx;
    this.leases = leases;
    this.claims = claims;
    this.writer = writer;
  }

  start() {
    const { logger, idleReturnMs, leaseTtlSeconds } = this.ctx;
    this.timer ??= setInterval(
      () => {
        void this.returnIdle().catch((error) => logger.error('lease return failed', { error }));
        void this.renew().catch((error) => logger.error('lease renewal failed', { error }));
        void this.reapExpired().catch((error) => logger.error('lease reaping failed', { error }));
      },
      Math.max(500, Math.min(idleReturnMs, (leaseTtlSeconds * 1000) / 4)),
    );
    this.timer.unref?.();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Hands back leases nobody is using (all of them with `all`), after writing what they owe. */
  async returnIdle(all = false): Promise<void> {
    const { leases, claims } = this;
    const now = Date.now();
    const isIdle = (l: { inFlight: number; toppingUp: unknown; owing: unknown; lastUsed: number }) =>
      l.inFlight === 0 && !l.toppingUp && !l.owing && (all || now - l.lastUsed >= this.ctx.idleReturnMs);
    const idle = [...leases.byUser.values()].filter(isIdle);
    const idleClaims = claims.map((c) => [...c.byKey.values(), ...c.retired].filter((l) => isIdle(l) || (l.stale && l.inFlight === 0 && !l.toppingUp && !l.owing)));
    if (idle.length === 0 && idleClaims.every((l) => l.length === 0)) return;
    await this.writer.flush();
    for (const lease of idle) {
      // A request may have reserved against it while the flush ran.
      if (lease.inFlight > 0 || leases.byUser.get(lease.userId) !== lease) continue;
      try {
        await leases.returnLease(lease);
      } catch (error) {
        this.ctx.logger.error('could not return a lease; it will expire', { error, leaseId: lease.id });
      }
    }
    for (const [i, idleOfKind] of idleClaims.entries()) {
      const kind = claims[i]!;
      for (const lease of idleOfKind) {
        if (lease.inFlight > 0) continue;
        if (!lease.stale && kind.byKey.get(lease.slot) !== lease) continue;
        try {
          await kind.returnClaim(lease);
        } catch (error) {
          this.ctx.logger.error(`could not return a ${kind.kind.name} limit claim; it will expire`, { error, leaseId: lease.id });
        }
      }
    }
  }

  private async renew() {
    const { db, instanceId, leaseTtlSeconds } = this.ctx;
    await db.execute(sql`
      update balance_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
    await db.execute(sql`
      update key_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
    await db.execute(sql`
      update member_leases set expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
      where instance_id = ${instanceId}`);
  }

  /**
   * Returns leases of instances that stopped renewing them (crashed) to their users' balances, and
   * their key and member claims to the limits' budgets (a claim of a past period just goes). One reaper at a time
   * across instances (a transaction-scoped advisory lock), so two never lock the same rows in two orders.
   */
  async reapExpired(): Promise<number> {
    return this.ctx.db.transaction(async (tx) => {
      const [lock] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(1131376228, 1) as ok`));
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
      await tx.execute(sql`
        with expired as (
          delete from member_leases where expires_at < now() returning organization_id, user_id, amount_nano, period_start
        ), sums as (
          select organization_id, user_id, period_start, sum(amount_nano)::bigint as total from expired
          group by organization_id, user_id, period_start
        )
        update organization_members m set budget_nano = m.budget_nano + sums.total
        from sums where m.organization_id = sums.organization_id and m.user_id = sums.user_id
          and m.budget_period_start = sums.period_start`);
      const n = Number(rows[0]?.n ?? 0);
      if (n > 0) this.ctx.logger.warn('returned expired balance leases', { count: n });
      return n;
    });
  }
}
