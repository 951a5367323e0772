// Settlements that outgrew their leases. Every token is billed: an answer that costs more than its
// reservation takes the rest from the lease, then from the balance in the database, down to zero and never
// below; only what the whole balance cannot cover is left unpaid, recorded on the usage row and logged, and
// the user's next request waits for that settlement and gets 402. Such a settlement is rare and written on
// its own transaction, by the same single writer as the batches and in order with them (writer.ts), so an
// instance never runs the two at once. Its transaction takes rows in the lock order (see index.ts):
// balance_leases → key_leases → api_keys → member_leases → organization_members → users, the users row
// FOR NO KEY UPDATE.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { AppError } from '../../http/errors';
import { gatewayMessages } from '../texts';
import type { Logger } from '../../logger';
import { minBig, toBigInt, type BillingContext } from './context';
import { recordRowsSql, serialize, type Overage, type Pending } from './rows';
import { LEASE_RECALL_CHANNEL } from './types';

/** A balance lease or key claim, as far as a settlement that outgrew it holds its reservations up. */
export interface Owing {
  /** A settlement larger than the lease is being written; reservations wait for it. */
  owing: Promise<void> | null;
}

/** A limit's claim a settlement outgrew, and what it could not cover. */
export interface ClaimShort {
  claim: Owing | null;
  short: bigint;
}

/**
 * Makes `row` an overage: the lease gives what it can (`coverable`, the reservation plus what the lease
 * held) and reservations of this user (and key, and member) wait until the settlement is written. `key`
 * and `member` say what their claims could not cover.
 */
export function outgrow(
  logger: Logger,
  row: Pending,
  totalNano: bigint,
  lease: Owing & { userId: string; available: bigint },
  coverable: bigint,
  key: ClaimShort & { keyId: string | null },
  member: ClaimShort,
) {
  const keyLease = key.claim;
  const memberLease = member.claim;
  const fromLease = minBig(totalNano, coverable);
  lease.available = coverable - fromLease;
  let done!: () => void;
  const written = new Promise<void>((resolve) => (done = resolve));
  const clear = () => {
    if (lease.owing === written) lease.owing = null;
    if (keyLease && keyLease.owing === written) keyLease.owing = null;
    if (memberLease && memberLease.owing === written) memberLease.owing = null;
  };
  void written.then(clear);
  lease.owing = written;
  if (keyLease) keyLease.owing = written;
  if (memberLease) memberLease.owing = written;
  logger.warn('usage exceeded the lease; settling the rest against the balance', {
    userId: lease.userId,
    requestId: row.facts.requestId,
    costNano: totalNano,
    leaseCoverNano: fromLease,
  });
  row.costNano = fromLease;
  row.overage = {
    fromBalanceNano: totalNano - fromLease,
    keyId: keyLease ? key.keyId : null,
    keyLeaseCostNano: totalNano - key.short,
    fromKeyBudgetNano: key.short,
    member: memberLease && row.member ? { organizationId: row.member.organizationId, memberId: row.member.memberId } : null,
    memberLeaseCostNano: totalNano - member.short,
    fromMemberBudgetNano: member.short,
    done,
  };
}

/** Waits for an overage settlement of this lease to be written, within the admission bound. */
export async function waitOwing(lease: Owing, deadline: number) {
  while (lease.owing) {
    const owing = lease.owing;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const inTime = await Promise.race([
      owing.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
    if (!inTime) {
      throw new AppError('service_unavailable', gatewayMessages.billingUnavailable, { headers: { 'retry-after': '5' } });
    }
  }
}

/**
 * Before an answer is left partly unpaid, the money other instances hold in leases of the same user
 * is asked back (NOTIFY; they answer in BalanceLeases.recall), and the writer waits a moment for it: a
 * bounded wait, only on this rare path.
 */
async function gatherBalance(ctx: BillingContext, userId: string, owed: bigint) {
  const { db, instanceId } = ctx;
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
export async function writeOverage(ctx: BillingContext, p: Pending, overage: Overage) {
  const { db, logger } = ctx;
  const userId = p.facts.userId;
  const total = p.promptCostNano + p.completionCostNano;
  if (overage.fromBalanceNano > 0n) await gatherBalance(ctx, userId, overage.fromBalanceNano);
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
    if (p.memberLeaseId && overage.memberLeaseCostNano > 0n) {
      await tx.execute(sql`
          update member_leases set amount_nano = greatest(amount_nano - ${overage.memberLeaseCostNano.toString()}::bigint, 0)
          where id = ${p.memberLeaseId}`);
    }
    if (overage.member && overage.fromMemberBudgetNano > 0n) {
      await tx.execute(sql`
          update organization_members set budget_nano = greatest(budget_nano - ${overage.fromMemberBudgetNano.toString()}::bigint, 0)
          where organization_id = ${overage.member.organizationId} and user_id = ${overage.member.memberId}`);
    }
    const owed = total - fromLease;
    let taken = 0n;
    if (owed > 0n) {
      const [user] = rowsOf<{ balance: unknown }>(await tx.execute(sql`select balance_nano as balance from users where id = ${userId} for no key update`));
      taken = minBig(user ? toBigInt(user.balance) : 0n, owed);
      if (taken > 0n) {
        await tx.execute(sql`update users set balance_nano = balance_nano - ${taken.toString()}::bigint where id = ${userId}`);
      }
    }
    const charged = fromLease + taken;
    const unpaid = total - charged;
    await tx.execute(sql`${recordRowsSql(`[${serialize({ ...p, leaseId: null, keyLeaseId: null, memberLeaseId: null }, charged, unpaid)}]`)} select 1`);
    return { charged, unpaid };
  });
  if (unpaid > 0n) {
    ctx.observer?.unpaid(unpaid);
    logger.error('usage left unpaid: the whole balance could not cover it', {
      userId,
      requestId: p.facts.requestId,
      costNano: total,
      chargedNano: charged,
      unpaidNano: unpaid,
    });
  }
}
