// Promo codes under concurrency (issue 45, Done when): a campaign of 100 codes redeemed under 20 parallel
// attempts per code from 2000 accounts credits exactly 100 times; a shared code of N uses raced by more
// than N accounts credits exactly N; one account racing several codes of one campaign is credited once.
// After each race Σ ledger = balance + leases, and the counters agree with the ledger.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { unbalancedUsers } from '../helpers/gateway';
import { bulkAccounts, createCampaign, operator, PROMO_ENV, redeem } from './helpers';

setDefaultTimeout(120_000);

let app: TestApp;
let admin: { token: string };

beforeAll(async () => {
  app = await startTestApp({ env: PROMO_ENV });
  admin = await operator(app);
});
afterAll(async () => {
  await app?.close();
});

const promoLedger = (campaignId: string) =>
  app.sql<{ rows: number; total: string }>(
    `select count(*)::int as rows, coalesce(sum(l.amount_nano), 0)::text as total
     from ledger_entries l join promo_redemptions r on l.reference = 'promo:' || r.id::text
     where l.kind = 'promo' and r.campaign_id = $1`,
    [campaignId],
  );

describe('races', () => {
  test('100 codes × 20 parallel attempts from different accounts: exactly 100 credits, each code once, the books balanced', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 100, amount: 7.77 });
    const accounts = await bulkAccounts(app, 2000);
    const statuses: Record<number, number> = {};
    const codes: Record<string, number> = {};
    // Ten codes at a time, each attempted by its twenty accounts at once (200 requests in flight).
    for (let wave = 0; wave < 100; wave += 10) {
      const attempts = [];
      for (let c = wave; c < wave + 10; c++) {
        for (let a = 0; a < 20; a++) attempts.push(redeem(app, accounts[c * 20 + a]!.token, campaign.codes[c]).then((res) => ({ res, code: c })));
      }
      for (const { res, code } of await Promise.all(attempts)) {
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status === 200) codes[code] = (codes[code] ?? 0) + 1;
        else expect(res.body.error.code).toBe('promo_used');
      }
    }
    expect(statuses).toEqual({ 200: 100, 409: 1900 });
    expect(Object.values(codes)).toEqual(Array(100).fill(1));
    expect(await promoLedger(campaign.id)).toEqual([{ rows: 100, total: (100n * 7_770_000_000n).toString() }]);
    expect(await app.sql(`select 1 from promo_codes where campaign_id = $1 and uses <> 1`, [campaign.id])).toEqual([]);
    const detail = await call(app.url, 'GET', `/api/admin/promotions/${campaign.id}`, { token: admin.token });
    expect(detail.body.redemptions).toBe(100);
    expect(detail.body.credited).toBe(777);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a shared code of 5 uses raced by 40 accounts: exactly 5 credited', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 5, amount: 20 });
    const accounts = await bulkAccounts(app, 40);
    const answers = await Promise.all(accounts.map((a) => redeem(app, a.token, campaign.codes[0])));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    expect(answers.filter((r) => r.status === 409 && r.body.error.code === 'promo_used')).toHaveLength(35);
    expect(await app.sql(`select uses from promo_codes where campaign_id = $1`, [campaign.id])).toEqual([{ uses: 5 }]);
    expect(await promoLedger(campaign.id)).toEqual([{ rows: 5, total: '100000000000' }]);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('one account racing ten codes of one campaign is credited once; the other codes stay unused', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 10, amount: 1 });
    const user = await registerUser(app.url);
    const answers = await Promise.all(campaign.codes.map((code) => redeem(app, user.token, code)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409 && r.body.error.code === 'promo_already_redeemed')).toHaveLength(9);
    expect(await app.sql(`select count(*)::int as used from promo_codes where campaign_id = $1 and uses > 0`, [campaign.id])).toEqual([{ used: 1 }]);
    expect((await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(4);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
