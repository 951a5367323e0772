// Promo codes in an organisation: with X-Conduit-Organization its owner (or accountant) activates a code for the
// organisation's balance — the money line of ORGANIZATION_ACCESS, as top-ups —, a developer is refused with 403;
// the organisation and the person are two accounts, each may activate the campaign once.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerAdmin, type TestApp } from '../helpers/app';
import { unbalancedUsers } from '../helpers/gateway';
import { joinAs, newOrganization, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';
import { ADMIN_EMAIL, createCampaign, PROMO_ENV, redeem } from './helpers';

setDefaultTimeout(30_000);

let setup: OrganizationsSetup;
let app: TestApp;
useOrganizationsApp((s) => ({ app } = setup = s), PROMO_ENV);

const balanceIn = async (token: string, organizationId?: string) =>
  (await call(app.url, 'GET', '/api/balance', { token, headers: organizationId ? { 'x-conduit-organization': organizationId } : {} })).body.balance as number;

describe('an organisation', () => {
  test('its owner activates for the organisation, a developer may not; the person activates for themself apart', async () => {
    const admin = await registerAdmin(app, ADMIN_EMAIL);
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 10, amount: 40 });
    const code = campaign.codes[0];
    const { owner, org } = await newOrganization(app);
    const developer = await joinAs(setup, owner.token, org.id, 'developer');
    const accountant = await joinAs(setup, owner.token, org.id, 'accountant');
    const header = { 'x-conduit-organization': org.id };

    const refused = await redeem(app, developer.token, code, header);
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('forbidden');

    const orgBefore = await balanceIn(owner.token, org.id);
    const personBefore = await balanceIn(owner.token);
    const credited = await redeem(app, owner.token, code, header);
    expect(credited.status).toBe(200);
    expect(credited.body.balance).toBe(orgBefore + 40);
    expect(await balanceIn(owner.token, org.id)).toBe(orgBefore + 40);
    expect(await balanceIn(owner.token)).toBe(personBefore);
    const [row] = await app.sql<{ user_id: string; actor_id: string }>('select user_id, actor_id from promo_redemptions where campaign_id = $1', [campaign.id]);
    expect(row).toEqual({ user_id: org.id, actor_id: owner.userId });

    // The organisation has had this campaign: its accountant too is told so.
    const again = await redeem(app, accountant.token, code, header);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('promo_already_redeemed');

    // The owner's own account is another account.
    expect((await redeem(app, owner.token, code)).status).toBe(200);
    expect(await balanceIn(owner.token)).toBe(personBefore + 40);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
