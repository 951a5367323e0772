// POST /api/billing/promo: a person (or an organisation's owner or accountant, for the organisation) types a
// code and the campaign's amount lands on the balance.
//
// Once, under any concurrency, by the database alone: in one transaction the redemption row is inserted
// (its unique index on campaign and account refuses a second one of the same campaign: the parallel twin waits
// on the index and then fails), the code's uses are raised by one conditional UPDATE (uses < max_uses, the
// campaign still running: twenty parallel attempts on one code queue on its row and exactly the allowed number
// pass), then the ledger row (kind 'promo', reference promo:<redemption id>) and the balance. Any refusal rolls
// the whole transaction back. Lock order: code row, then users (a plain UPDATE, last), as top-ups do.
//
// Attempts are counted per account and per client address before any lookup (throttle_counters, all
// instances together); a credited attempt is given back, so what adds up are the failures — guessing.
import { and, eq, sql } from 'drizzle-orm';
import type { Throttle } from '../accounts';
import { rowsOf, type Database } from '../db/client';
import { ledgerEntries } from '../gateway/tables';
import { limitKey } from '../http/client-address';
import { AppError, errorCodes } from '../http/errors';
import { users } from '../accounts/tables';
import { codeHash } from './codes';
import { promoCampaigns, promoCodes, promoRedemptions } from './tables';
import { promoMessages } from './texts';

/** The machine codes a redemption's refusals carry (their spelling is errors.ts's table). */
const PROMO_ERROR_CODES = {
  invalid: errorCodes.promoInvalid,
  expired: errorCodes.promoExpired,
  used: errorCodes.promoUsed,
  alreadyRedeemed: errorCodes.promoAlreadyRedeemed,
  notEligible: errorCodes.promoNotEligible,
} as const;

const WINDOW_SECONDS = 3600;

export interface RedeemConfig {
  /** Attempts per account an hour; 0: no limit. */
  promoAttemptsPerHour: number;
  /** Attempts per client address an hour; 0: no limit. */
  promoAttemptsPerHourPerAddress: number;
}

export interface Redeemed {
  amountNano: bigint;
  campaignName: string;
  redemptionId: string;
}

/** Thrown inside the transaction to roll it back with the refusal the caller sees. */
const refusal = (type: 'invalid_request_error' | 'conflict', message: string, code: string) => new AppError(type, message, { code, param: 'code' });

export function createRedemptions(deps: { db: Database; throttle: Throttle; config: RedeemConfig }) {
  const { db, throttle, config } = deps;

  /** Counts the attempt against both limits; 429 with Retry-After past either. Returns what to give back on success. */
  async function countAttempt(accountId: string, address: string): Promise<Array<() => Promise<void>>> {
    const counted: Array<() => Promise<void>> = [];
    const limits: ['promo_account' | 'promo_address', string, number][] = [
      ['promo_account', accountId, config.promoAttemptsPerHour],
      ['promo_address', limitKey(address), config.promoAttemptsPerHourPerAddress],
    ];
    for (const [scope, key, limit] of limits) {
      if (limit <= 0) continue;
      const verdict = await throttle.hit(scope, key, limit, WINDOW_SECONDS);
      if (!verdict.allowed) {
        throw new AppError('rate_limit_exceeded', promoMessages.tooManyAttempts, { headers: { 'retry-after': String(verdict.retryAfterSeconds) } });
      }
      counted.push(() => throttle.refund(scope, key, limit));
    }
    return counted;
  }

  return {
    /**
     * Credits the code's campaign to `accountId` once; `actorId` is the person who typed it (an organisation's
     * member), null when it is the account itself.
     */
    async redeem(accountId: string, actorId: string | null, typed: string, clientAddress: string): Promise<Redeemed> {
      const refunds = await countAttempt(accountId, clientAddress);
      const [found] = await db
        .select({
          codeId: promoCodes.id,
          uses: promoCodes.uses,
          maxUses: promoCodes.maxUses,
          campaignId: promoCampaigns.id,
          name: promoCampaigns.name,
          amountNano: promoCampaigns.amountNano,
          expiresAt: promoCampaigns.expiresAt,
          registeredAfter: promoCampaigns.registeredAfter,
          stoppedAt: promoCampaigns.stoppedAt,
        })
        .from(promoCodes)
        .innerJoin(promoCampaigns, eq(promoCampaigns.id, promoCodes.campaignId))
        .where(eq(promoCodes.codeHash, codeHash(typed)));
      // A stopped campaign's code reads like an unknown one: the operator withdrew it.
      if (!found || found.stoppedAt !== null) throw refusal('invalid_request_error', promoMessages.invalid, PROMO_ERROR_CODES.invalid);
      if (found.expiresAt.getTime() <= Date.now()) throw refusal('invalid_request_error', promoMessages.expired, PROMO_ERROR_CODES.expired);
      if (found.registeredAfter !== null) {
        const [account] = await db.select({ createdAt: users.createdAt }).from(users).where(eq(users.id, accountId));
        if (!account || account.createdAt.getTime() <= found.registeredAfter.getTime()) {
          throw refusal('invalid_request_error', promoMessages.notEligible, PROMO_ERROR_CODES.notEligible);
        }
      }
      // Told before the transaction when it is plain; the transaction decides when it is a race.
      const [earlier] = await db
        .select({ id: promoRedemptions.id })
        .from(promoRedemptions)
        .where(and(eq(promoRedemptions.campaignId, found.campaignId), eq(promoRedemptions.userId, accountId)));
      if (earlier) throw refusal('conflict', promoMessages.alreadyRedeemed, PROMO_ERROR_CODES.alreadyRedeemed);
      if (found.uses >= found.maxUses) throw refusal('conflict', promoMessages.used, PROMO_ERROR_CODES.used);

      const redeemed = await db.transaction(async (tx) => {
        const [redemption] = await tx
          .insert(promoRedemptions)
          .values({ campaignId: found.campaignId, codeId: found.codeId, userId: accountId, actorId, amountNano: found.amountNano })
          .onConflictDoNothing()
          .returning({ id: promoRedemptions.id });
        if (!redemption) throw refusal('conflict', promoMessages.alreadyRedeemed, PROMO_ERROR_CODES.alreadyRedeemed);
        const taken = rowsOf<{ id: string }>(
          await tx.execute(sql`
            update promo_codes c set uses = c.uses + 1
            from promo_campaigns p
            where c.id = ${found.codeId} and p.id = c.campaign_id and c.uses < c.max_uses
              and p.stopped_at is null and p.expires_at > now()
            returning c.id`),
        );
        if (taken.length === 0) {
          // Lost the race, or the operator stopped the campaign meanwhile: say which.
          const [now] = await tx
            .select({ uses: promoCodes.uses, maxUses: promoCodes.maxUses, stoppedAt: promoCampaigns.stoppedAt })
            .from(promoCodes)
            .innerJoin(promoCampaigns, eq(promoCampaigns.id, promoCodes.campaignId))
            .where(eq(promoCodes.id, found.codeId));
          if (now && now.stoppedAt === null && now.uses >= now.maxUses) throw refusal('conflict', promoMessages.used, PROMO_ERROR_CODES.used);
          if (now && now.stoppedAt === null) throw refusal('invalid_request_error', promoMessages.expired, PROMO_ERROR_CODES.expired);
          throw refusal('invalid_request_error', promoMessages.invalid, PROMO_ERROR_CODES.invalid);
        }
        const [entry] = await tx
          .insert(ledgerEntries)
          .values({ userId: accountId, amountNano: found.amountNano, kind: 'promo', reference: `promo:${redemption.id}` })
          .returning({ id: ledgerEntries.id });
        await tx.update(promoRedemptions).set({ ledgerEntryId: entry!.id }).where(eq(promoRedemptions.id, redemption.id));
        await tx.execute(sql`update users set balance_nano = balance_nano + ${found.amountNano.toString()}::bigint where id = ${accountId}`);
        return { amountNano: found.amountNano, campaignName: found.name, redemptionId: redemption.id };
      });
      for (const refund of refunds) await refund();
      return redeemed;
    },
  };
}

export type Redemptions = ReturnType<typeof createRedemptions>;
