// createBilling: the parts of this folder put together, and the public API a request uses (reserve before
// calling upstream, settle or release after). reserve() and settle() are the hot path, measured by the
// benchmark: they allocate and await nothing beyond what a request needs; the slow paths (a full backlog,
// a top-up, a wait for an overage) sit behind a check, and settle() makes one row object a settlement.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { AppError, errorCodes } from '../../http/errors';
import { cacheRatiosOf, withCachePrices, type ModelPrice } from '../../pricing/prices';
import { billingContext, toBigInt } from './context';
import { LeaseHousekeeping } from './housekeeping';
import type { KeyLimitRef, MemberLimitRef } from '../../keys';
import { keyLimitKind, LimitClaims, memberLimitKind, type LimitLease } from './limit-claims';
import { BalanceLeases, type Lease } from './leases';
import { outgrow } from './overage';
import { replayJournal } from './replay';
import type { Pending } from './rows';
import {
  LEASE_RECALL_CHANNEL,
  providerCost,
  usageCost,
  type BillingOptions,
  type Reservation,
  type RefusalFacts,
  type ReserveOptions,
  type UsageFacts,
} from './types';
import { SettlementWriter } from './writer';

interface InternalReservation extends Reservation {
  lease: Lease;
  keyLease: LimitLease<KeyLimitRef> | null;
  memberLease: LimitLease<MemberLimitRef> | null;
}

/** What a limit's claim could not cover of a settlement's cost, its `available` set to what is left. */
function chargeClaim(claim: LimitLease, reservedNano: bigint, costNano: bigint, now: number): bigint {
  claim.inFlight -= 1;
  claim.lastUsed = now;
  const coverable = reservedNano + claim.available;
  claim.available = costNano <= coverable ? coverable - costNano : 0n;
  return costNano > coverable ? costNano - coverable : 0n;
}

export function createBilling(options: BillingOptions) {
  const ctx = billingContext(options);
  const { db, config, logger, instanceId, maxPending, admissionWaitMs } = ctx;
  const defaultPrice: ModelPrice = withCachePrices(
    {
      pattern: null,
      promptNanoPerMillion: config.tokenPriceNano * 1_000_000n,
      completionNanoPerMillion: config.tokenPriceNano * 1_000_000n,
    },
    cacheRatiosOf(config),
  );
  const writer = new SettlementWriter(ctx);
  const leases = new BalanceLeases(ctx);
  const claims = new LimitClaims(ctx, keyLimitKind);
  const memberClaims = new LimitClaims(ctx, memberLimitKind);
  /** Key id → the member limit slot its requests claimed on this instance: a key's change voids that claim too. */
  const memberSlotOfKey = new Map<string, string>();
  const housekeeping = new LeaseHousekeeping(ctx, leases, [claims, memberClaims], writer);
  let unlistenRecall: (() => Promise<void>) | null = null;

  /**
   * Settles a reservation to the real usage: the cost is charged, the rest goes back to the lease,
   * and the usage row, ledger row and lease debit are queued for the next batch. An answer that cost
   * more than the lease holds is settled on its own against the balance (overage.ts).
   */
  function settle(reservation: Reservation, facts: UsageFacts): { costNano: bigint } {
    if (reservation.done) return { costNano: 0n };
    reservation.done = true;
    const { lease, keyLease, memberLease } = reservation as InternalReservation;
    const cost = usageCost(reservation.price, facts);
    const now = Date.now();
    lease.inFlight -= 1;
    lease.lastUsed = now;
    const coverable = reservation.amountNano + lease.available;
    const keyShort = keyLease ? chargeClaim(keyLease, reservation.amountNano, cost.totalNano, now) : 0n;
    const memberShort = memberLease ? chargeClaim(memberLease, reservation.amountNano, cost.totalNano, now) : 0n;
    ctx.observer?.settled(facts, cost);
    // One row object a settlement, made whole at once (every request makes one: no copies, one shape).
    const row: Pending = {
      facts,
      promptCostNano: cost.promptCostNano,
      completionCostNano: cost.completionCostNano,
      costNano: cost.totalNano,
      providerCostNano: providerCost(facts),
      leaseId: lease.id,
      keyLeaseId: keyLease?.id ?? null,
      memberLeaseId: memberLease?.id ?? null,
      member: memberLease?.subject ?? null,
      overage: null,
      createdAt: new Date(now),
      json: undefined,
      segment: null,
    };
    if (cost.totalNano <= coverable && keyShort === 0n && memberShort === 0n) {
      lease.available = coverable - cost.totalNano;
      writer.enqueue(row);
      return { costNano: cost.totalNano };
    }
    // Outgrew a lease: reservations of this user (and key, and member) wait until this settlement is written.
    outgrow(
      logger,
      row,
      cost.totalNano,
      lease,
      coverable,
      { claim: keyLease, short: keyShort, keyId: keyLease?.subject.keyId ?? null },
      { claim: memberLease, short: memberShort },
    );
    writer.enqueue(row);
    return { costNano: cost.totalNano };
  }

  /** Queues a row for usage that reserved nothing: no lease is charged, the row only tells what happened. */
  function record(facts: UsageFacts, member: MemberLimitRef | null = null) {
    writer.enqueue({
      facts,
      promptCostNano: 0n,
      completionCostNano: 0n,
      costNano: 0n,
      providerCostNano: null,
      leaseId: null,
      keyLeaseId: null,
      memberLeaseId: null,
      member,
      overage: null,
      createdAt: new Date(),
      json: undefined,
      segment: null,
    });
  }

  /**
   * A request refused with 402 (balance, key or member limit): a row of no tokens and no cost says so in its
   * owner's usage; a refusal for the member's limit names the member, for the alert.
   */
  function recordRefusal(request: RefusalFacts, error: AppError, member: MemberLimitRef | null) {
    const forMember = error.errorCode === errorCodes.memberSpendLimit;
    record(
      {
        ...request,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        status: forMember ? 'refused_member_limit' : error.errorCode === errorCodes.keySpendLimit ? 'refused_key_limit' : 'refused_balance',
        usageSource: 'none',
        upstreamStatus: null,
        error: error.message,
        durationMs: 0,
      },
      forMember ? member : null,
    );
  }

  const returnIdleLeases = (all = false) => housekeeping.returnIdle(all);
  const flush = () => writer.flush();

  return {
    instanceId,

    /**
     * Sets `amountNano` aside for one request, or fails with 402 when the balance (or the key's limit, or
     * its member's) cannot cover it.
     */
    async reserve(userId: string, amountNano: bigint, options: ReserveOptions = {}): Promise<Reservation> {
      // One try around it all: free in an async function, where a wrapping call would add a promise a request.
      try {
        // Back-pressure (writer.ts): past the backlog's bound, wait for the writer, within this deadline.
        const deadline = Date.now() + admissionWaitMs;
        if (writer.backlog >= maxPending) await writer.admit(deadline);
        const keyLease = options.key ? await claims.reserve(options.key, amountNano, deadline) : null;
        let memberLease: LimitLease<MemberLimitRef> | null = null;
        if (options.member) {
          memberSlotOfKey.set(options.member.keyId, memberLimitKind.slot(options.member));
          try {
            memberLease = await memberClaims.reserve(options.member, amountNano, deadline);
          } catch (error) {
            if (keyLease) claims.unreserve(keyLease, amountNano);
            throw error;
          }
        }
        const lease = leases.of(userId);
        if (lease.owing || lease.available < amountNano) {
          try {
            await leases.acquire(lease, amountNano, deadline);
          } catch (error) {
            // The limits' claims go back: this request will not run.
            if (keyLease) claims.unreserve(keyLease, amountNano);
            if (memberLease) memberClaims.unreserve(memberLease, amountNano);
            throw error;
          }
        } else {
          leases.hold(lease, amountNano);
        }
        const reservation: InternalReservation = {
          userId,
          amountNano,
          price: options.price ?? defaultPrice,
          done: false,
          lease,
          keyLease,
          memberLease,
        };
        return reservation;
      } catch (error) {
        if (options.request && error instanceof AppError && error.status === 402) recordRefusal(options.request, error, options.member ?? null);
        throw error;
      }
    },

    settle,

    /** Gives a reservation back in full (the request failed) and records the failure. */
    release(reservation: Reservation, facts: UsageFacts) {
      settle(reservation, { ...facts, promptTokens: 0, completionTokens: 0, totalTokens: 0 });
    },

    /**
     * The key's limit or reset changed, or its creator's limit in the organisation: this instance stops
     * reserving against its old claims.
     */
    keyChanged(keyId: string) {
      claims.changed(keyId);
      const memberSlot = memberSlotOfKey.get(keyId);
      if (memberSlot !== undefined) {
        memberSlotOfKey.delete(keyId);
        memberClaims.changed(memberSlot);
      }
    },

    /** Settlements queued and not yet written (for operators and tests). */
    get backlog() {
      return writer.backlog;
    },

    /** How long the oldest unwritten settlement has waited, in seconds (0 when none waits). */
    get oldestUnwrittenSeconds() {
      return writer.oldestUnwrittenSeconds;
    },

    /** Records usage that reserved nothing (a request refused before any money was set aside). */
    record,

    /**
     * Writes every settlement queued before the call; resolves when they are committed, or after a write
     * failed (logged; the rows stay queued and are retried).
     */
    flush,
    /** Hands back leases nobody is using (all of them with `all`), after writing what they owe. */
    returnIdleLeases,
    /** Returns the leases and key claims of instances that stopped renewing them; resolves how many leases. */
    reapExpiredLeases: () => housekeeping.reapExpired(),

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
      // Settlements of instances that died before the database had them: written first of all.
      if (options.journalDir) await replayJournal(ctx, options.journalDir, writer);
      if (options.listen && !unlistenRecall) {
        unlistenRecall = await options.listen(LEASE_RECALL_CHANNEL, (userId) => void leases.recall(userId));
      }
      housekeeping.start();
    },

    /** Writes everything and hands every lease back; called once in-flight requests have ended. */
    async stop() {
      writer.stopping();
      housekeeping.stop();
      await unlistenRecall?.().catch(() => {});
      unlistenRecall = null;
      // What the database does not take by the deadline stays in the journal, with the leases that owe it.
      if (await writer.finish(Date.now() + (options.stopWriteMs ?? 15_000))) await returnIdleLeases(true);
    },
  };
}

export type Billing = ReturnType<typeof createBilling>;
