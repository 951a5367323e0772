// Key-limit claims. Keys with a spend limit reserve the same way as the balance does against its leases
// (leases.ts), against a second kind of lease: a slice of the key's budget for the current period
// (key_leases, taken from api_keys.budget_nano), so a limit holds across instances without a round trip per
// request. A claim belongs to one period: one of an earlier period is void, and a budget of an earlier
// period starts over at the whole limit. A key's limit is a cap, not money: a claim that is gone is not
// charged again. Lock order (see index.ts): the key_leases row first, then the api_keys row, FOR NO KEY UPDATE.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { AppError, errorCodes } from '../../http/errors';
import { gatewayMessages } from '../texts';
import { describeLimit, periodStart, type KeyLimitRef, type LimitReset } from '../../keys';
import { minBig, toBigInt, withRetry, type BillingContext } from './context';
import { waitOwing, type Owing } from './overage';

export interface KeyLease extends Owing {
  keyId: string;
  limitReset: LimitReset;
  /** The period (ms since the epoch) this claim belongs to: a claim of an earlier period is void. */
  period: number;
  id: string | null;
  available: bigint;
  inFlight: number;
  lastUsed: number;
  toppingUp: Promise<boolean> | null;
  /** The key's limit changed: reserve no more against this claim, hand it back once idle. */
  stale: boolean;
}

export class KeyClaims {
  /** This instance's current claim of each key it has served lately. */
  readonly byKey = new Map<string, KeyLease>();
  /** Claims no longer used for reservations, handed back once their requests have settled. */
  readonly retired = new Set<KeyLease>();
  private readonly ctx: BillingContext;

  constructor(ctx: BillingContext) {
    this.ctx = ctx;
  }

  /** This instance's claim on the key's limit for the current period; a claim of a past period is dropped. */
  of(ref: KeyLimitRef, now: number): KeyLease {
    const period = periodStart(ref.limitReset, now).getTime();
    let lease = this.byKey.get(ref.keyId);
    if (lease && (lease.period !== period || lease.limitReset !== ref.limitReset || lease.stale)) {
      // A past period's claim is void: its row is deleted once idle (its amount is not returned).
      this.retire(lease);
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
      this.byKey.set(ref.keyId, lease);
    }
    return lease;
  }

  /** Reserve no more against this claim (its key changed, or its period is over); handed back once idle. */
  retire(lease: KeyLease) {
    if (this.byKey.get(lease.keyId) === lease) this.byKey.delete(lease.keyId);
    lease.stale = true;
    if (lease.id) this.retired.add(lease);
  }

  /** The key's limit or reset changed: this instance stops reserving against its old claim. */
  changed(keyId: string) {
    const lease = this.byKey.get(keyId);
    if (lease) this.retire(lease);
  }

  /** Sets `amountNano` aside on the key's claim, topping it up from the key's budget as needed (402 past the limit). */
  async reserve(ref: KeyLimitRef, amountNano: bigint, deadline: number): Promise<KeyLease> {
    for (;;) {
      const lease = this.of(ref, Date.now());
      await waitOwing(lease, deadline);
      if (lease.stale || this.byKey.get(ref.keyId) !== lease) continue;
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

  /** A reservation that will not run (its balance lease refused it) gives its share back to the claim. */
  unreserve(lease: KeyLease, amountNano: bigint) {
    lease.available += amountNano;
    lease.inFlight -= 1;
  }

  /**
   * Claims part of a key's budget for the current period. A budget of an earlier period starts over at
   * the whole limit. Fails with 402 naming the limit when what is left cannot cover `need`; a key whose
   * limit was removed meanwhile needs no claim (true with nothing claimed is never returned: the caller
   * re-reads the key through the verifier on the next request).
   */
  private async topUp(lease: KeyLease, need: bigint): Promise<void> {
    const { db, config, instanceId, leaseTtlSeconds } = this.ctx;
    const periodStartAt = new Date(lease.period);
    const outcome = await withRetry(this.ctx.logger, 'key limit top-up', () =>
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
    this.ctx.observer?.topUp('key', outcome.kind === 'exhausted' ? 'refused' : 'ok');
    if (outcome.kind === 'claimed') {
      lease.id = outcome.leaseId;
      lease.available += outcome.take;
      return;
    }
    if (outcome.kind === 'exhausted') {
      throw new AppError('insufficient_balance', gatewayMessages.keyLimitReached(describeLimit(outcome.limit, lease.limitReset, this.ctx.currency)), {
        code: errorCodes.keySpendLimit,
      });
    }
    // The limit was removed: nothing to claim. The key's cached record still says limited until its
    // notification arrives; let this request through on the balance alone.
    lease.available += need;
  }

  /** Hands a key claim back to the key's budget, unless it belongs to a period that is over. */
  async returnClaim(lease: KeyLease) {
    if (this.byKey.get(lease.keyId) === lease) this.byKey.delete(lease.keyId);
    this.retired.delete(lease);
    if (!lease.id) return;
    await this.ctx.db.execute(sql`
      with gone as (delete from key_leases where id = ${lease.id} returning key_id, amount_nano, period_start)
      update api_keys k set budget_nano = k.budget_nano + gone.amount_nano
      from gone where k.id = gone.key_id and k.budget_period_start = gone.period_start`);
  }
}
