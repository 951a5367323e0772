// Who invited a new account: heard from accounts' `accountRegistered`, inside the registration's
// transaction. A code that names nobody (mistyped, made up, from another installation) is ignored and the
// registration goes on: a registration form that failed on a stale link would lose the customer, and one
// that said "no such code" would let anyone test codes.
import { eq } from 'drizzle-orm';
import type { AccountRegistered } from '../accounts';
import { normaliseReferralCode } from './codes';
import { referralCodes, referrals } from './tables';

export async function recordReferral({ tx, userId, referralCode }: AccountRegistered): Promise<void> {
  const code = referralCode === null ? null : normaliseReferralCode(referralCode);
  if (code === null) return;
  const [owner] = await tx.select({ userId: referralCodes.userId }).from(referralCodes).where(eq(referralCodes.code, code)).limit(1);
  if (!owner || owner.userId === userId) return;
  await tx.insert(referrals).values({ referredId: userId, referrerId: owner.userId }).onConflictDoNothing();
}
