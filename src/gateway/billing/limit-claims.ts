// Spend-limit claims. A limit — a key's own (api_keys.spend_limit_nano) or an organisation member's monthly
// one (organization_members.spend_limit_nano, for every key the member created there) — is enforced the way
// the balance is against its leases (leases.ts), against a second kind of lease: a slice of the limit's
// budget for the current period (key_leases from api_keys.budget_nano, member_leases from
// organization_members.budget_nano), so a limit holds across instances without a round trip per request. A
// request reserves against up to two claims, its key's and its member's. A claim belongs to one period: one
// of an earlier period is void, and a budget of an earlier period starts over at the whole limit. A limit is
// a cap, not money: a claim that is gone is not charged again. Lock order (see index.ts): the lease row
// first, then its budget row, FOR NO KEY UPDATE.
import { sql, type SQL } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { AppError, errorCodes } from '../../http/errors';
import { gatewayMessages } from '../texts';
import { describeLimit, periodStart, type KeyLimitRef, type LimitReset, type MemberLimitRef } from '../../keys';
import { minBig, toBigInt, withRetry, type BillingContext } from './context';
import { waitOwing, type Owing } from './overage';

/** One kind of limit: where its budget and its claims live, and how its refusal reads. */
export interface LimitKind<S> {
  name: 'key' | 'member';
  /** The claim's slot in this instance's map: one claim per limit. */
  slot(subject: S): string;
  reset(subject: S): LimitReset;
  /** Selects `limit`, `budget`, `period` of the limit's row, locked FOR NO KEY UPDATE. */
  lockBudget(subject: S): SQL;
  setBudget(subject: S, budget: bigint, period: Date): SQL;
  insertClaim(subject: S, instanceId: string, period: Date, take: bigint, ttlSeconds: number): SQL;
  claimTable: SQL;
  /** Deletes the claim `id` and gives its amount back to the budget of the same period. */
  returnClaim(id: string): SQL;
  refusal(limitNano: bigint, reset: LimitReset, currency: string): AppError;
}

export interface LimitLease<S = unknown> extends Owing {
  subject: S;
  slot: string;
  limitReset: LimitReset;
  /** The period (ms since the epoch) this claim belongs to: a claim of an earlier period is void. */
  period: number;
  id: string | null;
  available: bigint;
  inFlight: number;
  lastUsed: number;
  toppingUp: Promise<boolean> | null;
  /** The limit changed: reserve no more against this claim, hand it back once idle. */
  stale: boolean;
}

export const keyLimitKind: LimitKind<KeyLimitRef> = {
  name: 'key',
  slot: (ref) => ref.keyId,
  reset: (ref) => ref.limitReset,
  lockBudget: (ref) => sql`
    select spend_limit_nano as limit, budget_nano as budget, budget_period_start as period
    from api_keys where id = ${ref.keyId} for no key update`,
  setBudget: (ref, budget, period) => sql`
    update api_keys set budget_nano = ${budget.toString()}::bigint, budget_period_start = ${period.toISOString()}::timestamptz
    where id = ${ref.keyId}`,
  insertClaim: (ref, instanceId, period, take, ttl) => sql`
    insert into key_leases (key_id, instance_id, period_start, amount_nano, expires_at)
    values (${ref.keyId}, ${instanceId}, ${period.toISOString()}::timestamptz, ${take.toString()}::bigint,
            now() + make_interval(secs => ${ttl}))
    returning id`,
  claimTable: sql.raw('key_leases'),
  returnClaim: (id) => sql`
    with gone as (delete from key_leases where id = ${id} returning key_id, amount_nano, period_start)
    update api_keys k set budget_nano = k.budget_nano + gone.amount_nano
    from gone where k.id = gone.key_id and k.budget_period_start = gone.period_start`,
  refusal: (limit, reset, currency) =>
    new AppError('insufficient_balance', gatewayMessages.keyLimitReached(describeLimit(limit, reset, currency)), { code: errorCodes.keySpendLimit }),
};

export const memberLimitKind: LimitKind<MemberLimitRef> = {
  name: 'member',
  slot: (ref) => `${ref.organizationId}:${ref.memberId}`,
  reset: () => 'month',
  lockBudget: (ref) => sql`
    select spend_limit_nano as limit, budget_nano as budget, budget_period_start as period
    from organization_members where organization_id = ${ref.organizationId} and user_id = ${ref.memberId} for no key update`,
  setBudget: (ref, budget, period) => sql`
    update organization_members set budget_nano = ${budget.toString()}::bigint, budget_period_start = ${period.toISOString()}::timestamptz
    where organization_id = ${ref.organizationId} and user_id = ${ref.memberId}`,
  insertClaim: (ref, instanceId, period, take, ttl) => sql`
    insert into member_leases (organization_id, user_id, instance_id, period_start, amount_nano, expires_at)
    values (${ref.organizationId}, ${ref.memberId}, ${instanceId}, ${period.toISOString()}::timestamptz, ${take.toString()}::bigint,
            now() + make_interval(secs => ${ttl}))
    returning id`,
  claimTable: sql.raw('member_leases'),
  returnClaim: (id) => sql`
    with gone as (delete from member_leases where id = ${id} returning organization_id, user_id, amount_nano, period_start)
    update organization_members m set budget_nano = m.budget_nano + gone.amount_nano
    from gone where m.organization_id = gone.organization_id and m.user_id = gone.user_id
      and m.budget_period_start = gone.period_start`,
  refusal: (limit, reset, currency) =>
    new AppError('insufficient_balance', gatewayMessages.memberLimitReached(describeLimit(limit, reset, currency)), { code: errorCodes.memberSpendLimit }),
};

export class LimitClaims<S> {
  /** This instance's current claim of each limit it has served lately, by slot. */
  readonly byKey = new Map<string, LimitLease<S>>();
  /** Claims no longer used for reservations, handed back once their requests have settled. */
  readonly retired = new Set<LimitLease<S>>();
  private readonly ctx: BillingContext;
  readonly kind: LimitKind<S>;

  constructor(ctx: BillingContext, kind: LimitKind<S>) {
    this.ctx = ctx;
    this.kind = kind;
  }

  /** This instance's claim on the limit for the current period; a claim of a past period is dropped. */
  of(subject: S, now: number): LimitLease<S> {
    const reset = this.kind.reset(subject);
    const slot = this.kind.slot(subject);
    const period = periodStart(reset, now).getTime();
    let lease = this.byKey.get(slot);
    if (lease && (lease.period !== period || lease.limitReset !== reset || lease.stale)) {
      // A past period's claim is void: its row is deleted once idle (its amount is not returned).
      this.retire(lease);
      lease = undefined;
    }
    if (!lease) {
      lease = { subject, slot, limitReset: reset, period, id: null, available: 0n, inFlight: 0, lastUsed: now, toppingUp: null, owing: null, stale: false };
      this.byKey.set(slot, lease);
    }
    return lease;
  }

  /** Reserve no more against this claim (its limit changed, or its period is over); handed back once idle. */
  retire(lease: LimitLease<S>) {
    if (this.byKey.get(lease.slot) === lease) this.byKey.delete(lease.slot);
    lease.stale = true;
    if (lease.id) this.retired.add(lease);
  }

  /** The limit behind this slot changed: this instance stops reserving against its old claim. */
  changed(slot: string) {
    const lease = this.byKey.get(slot);
    if (lease) this.retire(lease);
  }

  /** Sets `amountNano` aside on the limit's claim, topping it up from the budget as needed (402 past the limit). */
  async reserve(subject: S, amountNano: bigint, deadline: number): Promise<LimitLease<S>> {
    const slot = this.kind.slot(subject);
    for (;;) {
      const lease = this.of(subject, Date.now());
      await waitOwing(lease, deadline);
      if (lease.stale || this.byKey.get(slot) !== lease) continue;
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
      const attempt = this.topUp(lease, amountNano - lease.available).then(() => true);
      lease.toppingUp = attempt;
      try {
        await attempt;
      } finally {
        lease.toppingUp = null;
      }
    }
  }

  /** A reservation that will not run (another claim or its balance lease refused it) gives its share back. */
  unreserve(lease: LimitLease<S>, amountNano: bigint) {
    lease.available += amountNano;
    lease.inFlight -= 1;
  }

  /**
   * Claims part of a limit's budget for the current period. A budget of an earlier period starts over at
   * the whole limit. Fails with 402 naming the limit when what is left cannot cover `need`; a limit removed
   * meanwhile needs no claim (the cached key record is re-read on the next request).
   */
  private async topUp(lease: LimitLease<S>, need: bigint): Promise<void> {
    const { db, config, instanceId, leaseTtlSeconds } = this.ctx;
    const { kind } = this;
    const periodStartAt = new Date(lease.period);
    const outcome = await withRetry(this.ctx.logger, `${kind.name} limit top-up`, () =>
      db.transaction(async (tx) => {
        let leaseId = lease.id;
        if (leaseId) {
          const held = rowsOf(await tx.execute(sql`select id from ${kind.claimTable} where id = ${leaseId} for update`));
          if (held.length === 0) leaseId = null;
        }
        const [row] = rowsOf<{ limit: unknown; budget: unknown; period: Date | string | null }>(await tx.execute(kind.lockBudget(lease.subject)));
        if (!row || row.limit === null) return { kind: 'unlimited' as const };
        const limit = toBigInt(row.limit);
        const samePeriod = row.period !== null && new Date(row.period).getTime() === lease.period;
        const budget = samePeriod ? toBigInt(row.budget) : limit;
        if (budget < need) return { kind: 'exhausted' as const, limit };
        // Claims are small next to the limit, so instances share it fairly and an idle claim holds little.
        const slice = limit / 20n > config.leaseChunkNano ? config.leaseChunkNano : limit / 20n;
        const take = minBig(budget, need > slice ? need : slice);
        await tx.execute(kind.setBudget(lease.subject, budget - take, periodStartAt));
        if (leaseId) {
          await tx.execute(sql`
            update ${kind.claimTable} set amount_nano = amount_nano + ${take.toString()}::bigint,
              expires_at = now() + make_interval(secs => ${leaseTtlSeconds})
            where id = ${leaseId}`);
        } else {
          const inserted = rowsOf<{ id: string }>(await tx.execute(kind.insertClaim(lease.subject, instanceId, periodStartAt, take, leaseTtlSeconds)));
          leaseId = inserted[0]!.id;
        }
        return { kind: 'claimed' as const, leaseId, take };
      }),
    );
    this.ctx.observer?.topUp(kind.name, outcome.kind === 'exhausted' ? 'refused' : 'ok');
    if (outcome.kind === 'claimed') {
      lease.id = outcome.leaseId;
      lease.available += outcome.take;
      return;
    }
    if (outcome.kind === 'exhausted') throw kind.refusal(outcome.limit, lease.limitReset, this.ctx.currency);
    // The limit was removed: nothing to claim. The key's cached record still says limited until its
    // notification arrives; let this request through on the balance alone.
    lease.available += need;
  }

  /** Hands a claim back to its limit's budget, unless it belongs to a period that is over. */
  async returnClaim(lease: LimitLease<S>) {
    if (this.byKey.get(lease.slot) === lease) this.byKey.delete(lease.slot);
    this.retired.delete(lease);
    if (!lease.id) return;
    await this.ctx.db.execute(this.kind.returnClaim(lease.id));
  }
}
