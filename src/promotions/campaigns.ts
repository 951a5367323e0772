// The operator's campaigns: create (codes made, hashed to be found, sealed to be exported), list with their
// redemptions counted, one campaign with who redeemed it, stop, and the codes for the CSV. Creating and
// stopping are audited in their own transaction.
import { desc, eq, sql } from 'drizzle-orm';
import { type AuditActor, recordAudit } from '../admin';
import { users } from '../accounts/tables';
import type { SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import { AppError, isUniqueViolation } from '../http/errors';
import { nanoToDecimalString } from '../money';
import { codeHash, generateCode } from './codes';
import { type CreateCampaignInput, promoAmountNano } from './input';
import { promoCampaigns, promoCodes, promoRedemptions } from './tables';
import { promoMessages } from './texts';

export type CampaignRow = typeof promoCampaigns.$inferSelect;
export interface Campaign extends CampaignRow {
  redemptions: number;
  creditedNano: bigint;
}

export interface Redemption {
  id: string;
  userId: string;
  email: string;
  amountNano: bigint;
  createdAt: Date;
}

export interface ExportedCode {
  code: string;
  uses: number;
  maxUses: number;
}

/** The name of the secret-box setting a code is sealed under (named if it cannot be opened). */
const SEALED_AS = 'promo code';
const INSERT_CHUNK = 1000;
const REDEMPTIONS_SHOWN = 500;

/** «a***@example.com»: the console names who redeemed without spelling out the address. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

const withCounts = {
  campaign: promoCampaigns,
  // Spelled out: drizzle writes a column unqualified, which inside the subquery would name r's own id.
  redemptions: sql<number>`(select count(*) from promo_redemptions r where r.campaign_id = promo_campaigns.id)::int`,
  credited: sql<string>`(select coalesce(sum(r.amount_nano), 0) from promo_redemptions r where r.campaign_id = promo_campaigns.id)::text`,
};

const toCampaign = (row: { campaign: CampaignRow; redemptions: number; credited: string }): Campaign => ({
  ...row.campaign,
  redemptions: Number(row.redemptions),
  creditedNano: BigInt(row.credited),
});

export function createCampaigns(deps: { db: Database; secretBox: SecretBox }) {
  const { db, secretBox } = deps;

  async function one(id: string): Promise<Campaign> {
    const [row] = await db.select(withCounts).from(promoCampaigns).where(eq(promoCampaigns.id, id));
    if (!row) throw new AppError('not_found', promoMessages.campaignNotFound);
    return toCampaign(row);
  }

  return {
    one,

    /** Makes the campaign and its codes; answers them in clear once here (the export opens the sealed copies). */
    async create(actor: AuditActor, input: CreateCampaignInput): Promise<{ campaign: Campaign; codes: string[] }> {
      const amountNano = promoAmountNano(input.amount)!;
      const shared = input.kind === 'shared';
      const codes = shared ? [input.code ?? generateCode()] : Array.from({ length: input.codeCount! }, generateCode);
      const usesPerCode = shared ? input.uses! : 1;
      try {
        const id = await db.transaction(async (tx) => {
          const [campaign] = await tx
            .insert(promoCampaigns)
            .values({
              name: input.name,
              amountNano,
              kind: input.kind,
              codeCount: codes.length,
              usesPerCode,
              expiresAt: new Date(input.expiresAt),
              registeredAfter: input.registeredAfter ? new Date(input.registeredAfter) : null,
              createdBy: actor.userId,
            })
            .returning({ id: promoCampaigns.id });
          for (let i = 0; i < codes.length; i += INSERT_CHUNK) {
            await tx.insert(promoCodes).values(
              codes.slice(i, i + INSERT_CHUNK).map((code) => ({
                campaignId: campaign!.id,
                codeHash: codeHash(code),
                codeSealed: secretBox.seal(code),
                maxUses: usesPerCode,
              })),
            );
          }
          await recordAudit(tx, actor, {
            action: 'promo_campaign.create',
            targetType: 'promo_campaign',
            targetId: campaign!.id,
            before: null,
            after: {
              name: input.name,
              amount: nanoToDecimalString(amountNano),
              campaignKind: input.kind,
              codeCount: codes.length,
              usesPerCode,
              expiresAt: new Date(input.expiresAt).toISOString(),
              registeredAfter: input.registeredAfter ? new Date(input.registeredAfter).toISOString() : null,
            },
          });
          return campaign!.id;
        });
        return { campaign: await one(id), codes };
      } catch (error) {
        // Only a code the operator chose can collide: 80 random bits do not.
        if (isUniqueViolation(error, 'promo_codes_hash_unique')) throw new AppError('conflict', promoMessages.sharedCodeTaken, { param: 'code' });
        throw error;
      }
    },

    async list(limit: number): Promise<Campaign[]> {
      const rows = await db.select(withCounts).from(promoCampaigns).orderBy(desc(promoCampaigns.createdAt), desc(promoCampaigns.id)).limit(limit);
      return rows.map(toCampaign);
    },

    /** Newest first, the addresses masked. */
    async redemptions(campaignId: string): Promise<Redemption[]> {
      const rows = await db
        .select({
          id: promoRedemptions.id,
          userId: promoRedemptions.userId,
          email: users.email,
          amountNano: promoRedemptions.amountNano,
          createdAt: promoRedemptions.createdAt,
        })
        .from(promoRedemptions)
        .innerJoin(users, eq(users.id, promoRedemptions.userId))
        .where(eq(promoRedemptions.campaignId, campaignId))
        .orderBy(desc(promoRedemptions.createdAt), desc(promoRedemptions.id))
        .limit(REDEMPTIONS_SHOWN);
      return rows.map((r) => ({ ...r, email: maskEmail(r.email) }));
    },

    /** Stops it: from this commit no code of it credits anything (the redemption's UPDATE re-reads stopped_at). */
    async stop(actor: AuditActor, id: string): Promise<Campaign> {
      await db.transaction(async (tx) => {
        const [stopped] = await tx
          .update(promoCampaigns)
          .set({ stoppedAt: new Date() })
          .where(sql`${promoCampaigns.id} = ${id} and ${promoCampaigns.stoppedAt} is null`)
          .returning({ name: promoCampaigns.name, stoppedAt: promoCampaigns.stoppedAt });
        if (!stopped) {
          const [exists] = await tx.select({ id: promoCampaigns.id }).from(promoCampaigns).where(eq(promoCampaigns.id, id));
          throw exists ? new AppError('conflict', promoMessages.campaignAlreadyStopped) : new AppError('not_found', promoMessages.campaignNotFound);
        }
        await recordAudit(tx, actor, {
          action: 'promo_campaign.stop',
          targetType: 'promo_campaign',
          targetId: id,
          before: { name: stopped.name },
          after: { name: stopped.name, stoppedAt: stopped.stoppedAt!.toISOString() },
        });
      });
      return one(id);
    },

    /** Every code of the campaign in clear (in a stable order), with its uses. */
    async codes(campaignId: string): Promise<{ campaign: Campaign; codes: ExportedCode[] }> {
      const campaign = await one(campaignId);
      const rows = await db
        .select({ sealed: promoCodes.codeSealed, uses: promoCodes.uses, maxUses: promoCodes.maxUses })
        .from(promoCodes)
        .where(eq(promoCodes.campaignId, campaignId))
        .orderBy(promoCodes.createdAt, promoCodes.id);
      return { campaign, codes: rows.map((r) => ({ code: secretBox.open(r.sealed, SEALED_AS), uses: r.uses, maxUses: r.maxUses })) };
    },
  };
}

export type Campaigns = ReturnType<typeof createCampaigns>;
