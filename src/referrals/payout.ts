// The referrer's share of a top-up, credited in the top-up's own transaction (billing/credit.ts calls this
// right after crediting the referred account), so the two commit or fail together and the payout happens
// exactly as often as the top-up is credited: once. The referral_payouts row, keyed by the top-up's ledger
// row, says so a second time in the schema.
//
// Paid only when all of these hold: REFERRAL_PERCENT > 0; the account was registered through someone's
// link less than REFERRAL_MONTHS calendar months ago; the referrer still exists and is not blocked; it is
// not self-referral (self-referral.ts); the share rounds down to at least one nano-unit.
import { sql } from 'drizzle-orm';
import type { Config } from '../config';
import { rowsOf, type Executor } from '../db/client';
import { ledgerEntries } from '../gateway/tables';
import { selfReferral } from './self-referral';
import { referralPayouts } from './tables';

export type ReferralConfig = Pick<Config, 'referral'>;

const MILLION = 1_000_000n;

/** The share of `amountNano`, rounded down to a whole nano-unit. */
function referralShareNano(amountNano: bigint, shareMillionths: bigint): bigint {
  return amountNano > 0n && shareMillionths > 0n ? (amountNano * shareMillionths) / MILLION : 0n;
}

export interface CreditedTopup {
  /** The referred account the top-up credited. */
  userId: string;
  amountNano: bigint;
  /** Its `topup` ledger row. */
  topupEntryId: bigint;
}

/** Pays the referrer of `topup.userId` its share; the referrer's new `referral` ledger row id, or null when nothing is due. */
export async function payReferralReward(tx: Executor, config: ReferralConfig, topup: CreditedTopup): Promise<bigint | null> {
  const { shareMillionths, months, sameDomain } = config.referral;
  const amountNano = referralShareNano(topup.amountNano, shareMillionths);
  if (amountNano <= 0n) return null;
  const [link] = rowsOf<{ referrer_id: string; referrer_email: string; referred_email: string }>(
    await tx.execute(sql`
      select r.referrer_id, referrer.email as referrer_email, referred.email as referred_email
      from referrals r
      join users referred on referred.id = r.referred_id
      join users referrer on referrer.id = r.referrer_id
      where r.referred_id = ${topup.userId}
        and referrer.blocked_at is null
        and now() < referred.created_at + make_interval(months => ${months}::int)`),
  );
  if (!link || selfReferral(link.referred_email, link.referrer_email, sameDomain) !== null) return null;
  // The same lock order as the top-up's credit: the ledger insert first, the referrer's users row last.
  const [entry] = await tx
    .insert(ledgerEntries)
    .values({ userId: link.referrer_id, amountNano, kind: 'referral', reference: `topup:${topup.topupEntryId}` })
    .returning({ id: ledgerEntries.id });
  await tx.insert(referralPayouts).values({
    topupEntryId: topup.topupEntryId,
    ledgerEntryId: entry!.id,
    referrerId: link.referrer_id,
    referredId: topup.userId,
    topupNano: topup.amountNano,
    amountNano,
  });
  await tx.execute(sql`update users set balance_nano = balance_nano + ${amountNano.toString()}::bigint where id = ${link.referrer_id}`);
  return entry!.id;
}
