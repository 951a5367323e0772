// Money that came in, credited once: the ledger row (kind 'topup') with the payment's reference — unique per
// kind, so a second attempt with the same reference inserts nothing — and the balance, in the caller's
// transaction. Card payments (topups.ts) and bank transfers (bank-statements/) both credit through here,
// and so pay the referrer of the account its share in that same transaction (referrals/payout.ts): money
// that came in is the only thing that earns a referral payout, never a bonus, a promo code or an operator's credit.
import { sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { ledgerEntries } from '../gateway/tables';
import { payReferralReward, type ReferralConfig } from '../referrals';

/**
 * Credits `amountNano` to `userId` under `reference` unless a top-up with that reference was credited before;
 * the new ledger row's id, or null when it was. Lock order: the ledger insert first, `users` last with a plain
 * UPDATE (a SELECT … FOR UPDATE on users would conflict with the billing writer's key-share locks).
 */
export async function creditTopupOnce(
  tx: Executor,
  entry: { userId: string; amountNano: bigint; reference: string },
  config: ReferralConfig,
): Promise<bigint | null> {
  const inserted = await tx
    .insert(ledgerEntries)
    .values({ userId: entry.userId, amountNano: entry.amountNano, kind: 'topup', reference: entry.reference })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return null;
  await tx.execute(sql`update users set balance_nano = balance_nano + ${entry.amountNano.toString()}::bigint where id = ${entry.userId}`);
  await payReferralReward(tx, config, { userId: entry.userId, amountNano: entry.amountNano, topupEntryId: inserted[0]!.id });
  return inserted[0]!.id;
}
