// Campaigns and redemptions as the API shows them: money in currency units, times in ISO 8601.
import { nanoToUnits } from '../money';
import type { Campaign, Redemption } from './campaigns';
import type { CampaignView } from './input';

export function campaignStatus(c: Pick<Campaign, 'stoppedAt' | 'expiresAt'>, now = Date.now()): CampaignView['status'] {
  if (c.stoppedAt !== null) return 'stopped';
  return c.expiresAt.getTime() <= now ? 'expired' : 'active';
}

export function campaignView(c: Campaign, currency: string): CampaignView {
  return {
    id: c.id,
    name: c.name,
    amount: nanoToUnits(c.amountNano),
    currency,
    kind: c.kind === 'shared' ? 'shared' : 'unique',
    codeCount: c.codeCount,
    usesPerCode: c.usesPerCode,
    redemptions: c.redemptions,
    credited: nanoToUnits(c.creditedNano),
    expiresAt: c.expiresAt.toISOString(),
    registeredAfter: c.registeredAfter?.toISOString() ?? null,
    status: campaignStatus(c),
    stoppedAt: c.stoppedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
  };
}

export const redemptionView = (r: Redemption) => ({
  id: r.id,
  userId: r.userId,
  email: r.email,
  amount: nanoToUnits(r.amountNano),
  createdAt: r.createdAt.toISOString(),
});
