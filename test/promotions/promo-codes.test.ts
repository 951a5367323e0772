// Promo codes over HTTP: the operator's campaign (unique codes or one shared code), a person redeeming on the
// balance page, each refusal with its code and Russian words, the CSV of codes, the audit, the statement's
// «Промокод» line, and the books: Σ ledger = balance + leases after everything.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { unbalancedUsers } from '../helpers/gateway';
import { createCampaign, inDays, operator, PROMO_ENV, redeem } from './helpers';

setDefaultTimeout(30_000);

let app: TestApp;
let admin: { token: string; userId: string };

beforeAll(async () => {
  app = await startTestApp({ env: PROMO_ENV });
  admin = await operator(app);
});
afterAll(async () => {
  expect(await unbalancedUsers(app)).toEqual([]);
  await app?.close();
});

const balanceOf = async (token: string) => (await call(app.url, 'GET', '/api/balance', { token })).body.balance as number;

describe('a campaign of unique codes', () => {
  test('codes are 16 unambiguous characters in groups of four, each redeemed once, typed in any case with spaces', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 3, amount: 150.5 });
    expect(campaign.codes).toHaveLength(3);
    for (const code of campaign.codes) expect(code).toMatch(/^[2-9A-HJ-NP-Z]{4}(-[2-9A-HJ-NP-Z]{4}){3}$/);
    expect(new Set(campaign.codes).size).toBe(3);
    // Not in the database in clear.
    const stored = await app.sql<{ code_hash: string; code_sealed: string }>('select code_hash, code_sealed from promo_codes where campaign_id = $1', [campaign.id]);
    expect(stored).toHaveLength(3);
    for (const row of stored) for (const code of campaign.codes) expect(`${row.code_hash} ${row.code_sealed}`).not.toContain(code.replaceAll('-', ''));

    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const typed = ` ${campaign.codes[0]!.toLowerCase().replaceAll('-', ' ')} `;
    const res = await redeem(app, user.token, typed);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ amount: 150.5, balance: before + 150.5, currency: 'RUB', campaign: 'Весенняя акция' });
    expect(await balanceOf(user.token)).toBe(before + 150.5);
    const ledger = await app.sql<{ kind: string; amount: string; reference: string }>(
      `select kind, amount_nano::text as amount, reference from ledger_entries where user_id = $1 and kind = 'promo'`,
      [user.userId],
    );
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.amount).toBe('150500000000');
    expect(ledger[0]!.reference).toMatch(/^promo:[0-9a-f-]{36}$/);

    // The same code by another account: used.
    const other = await registerUser(app.url);
    const used = await redeem(app, other.token, campaign.codes[0]);
    expect(used.status).toBe(409);
    expect(used.body.error).toEqual({ type: 'conflict', message: 'Этот промокод уже использован', code: 'promo_used' });

    // A second code of the same campaign by the first account: one per account.
    const again = await redeem(app, user.token, campaign.codes[1]);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('promo_already_redeemed');
    expect(again.body.error.message).toContain('уже активировали');
    expect(await balanceOf(user.token)).toBe(before + 150.5);

    // The other account may still take another code of it.
    expect((await redeem(app, other.token, campaign.codes[1])).status).toBe(200);
  });

  test('an unknown code is promo_invalid (400) and credits nothing', async () => {
    const user = await registerUser(app.url);
    const res = await redeem(app, user.token, 'ABCD-EFGH-JKLM-NPQR');
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'Такого промокода нет или он больше не действует. Проверьте, что код введён без ошибок',
      code: 'promo_invalid',
    });
    expect(await app.sql(`select 1 from ledger_entries where user_id = $1 and kind = 'promo'`, [user.userId])).toHaveLength(0);
  });

  test('past its date a code is promo_expired; a stopped campaign reads like an unknown code', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 2 });
    await app.sql(`update promo_campaigns set expires_at = now() - interval '1 second' where id = $1`, [campaign.id]);
    const user = await registerUser(app.url);
    const expired = await redeem(app, user.token, campaign.codes[0]);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toEqual({ type: 'invalid_request_error', message: 'Срок действия промокода истёк', code: 'promo_expired' });

    const running = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 2 });
    const stop = await call(app.url, 'POST', `/api/admin/promotions/${running.id}/stop`, { token: admin.token });
    expect(stop.status).toBe(200);
    expect(stop.body.status).toBe('stopped');
    const stopped = await redeem(app, user.token, running.codes[0]);
    expect(stopped.status).toBe(400);
    expect(stopped.body.error.code).toBe('promo_invalid');
    const twice = await call(app.url, 'POST', `/api/admin/promotions/${running.id}/stop`, { token: admin.token });
    expect(twice.status).toBe(409);
    expect(await balanceOf(user.token)).toBe(3);
  });

  test('«only accounts registered after»: an older account is promo_not_eligible, a newer one is credited', async () => {
    const older = await registerUser(app.url);
    await app.sql(`update users set created_at = now() - interval '2 days' where id = $1`, [older.userId]);
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 10, registeredAfter: new Date(Date.now() - 86_400_000).toISOString() });
    const refused = await redeem(app, older.token, campaign.codes[0]);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'Этот промокод только для учётных записей, зарегистрированных после начала акции',
      code: 'promo_not_eligible',
    });
    const newer = await registerUser(app.url);
    expect((await redeem(app, newer.token, campaign.codes[0])).status).toBe(200);
  });
});

describe('a shared code', () => {
  test('the operator’s own code, N uses by different accounts, then promo_used', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 2, code: 'Spring-2026', amount: 50 });
    expect(campaign.codes).toEqual(['Spring-2026']);
    const [a, b, c] = await Promise.all([registerUser(app.url), registerUser(app.url), registerUser(app.url)]);
    expect((await redeem(app, a.token, 'spring2026')).status).toBe(200);
    expect((await redeem(app, a.token, 'SPRING-2026')).body.error.code).toBe('promo_already_redeemed');
    expect((await redeem(app, b.token, 'spring 2026')).status).toBe(200);
    const third = await redeem(app, c.token, 'SPRING-2026');
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('promo_used');
    expect(await balanceOf(b.token)).toBe(53);
    expect(await balanceOf(c.token)).toBe(3);

    // The same code in another campaign is refused: a code must find one campaign.
    const taken = await call(app.url, 'POST', '/api/admin/promotions', {
      token: admin.token,
      body: { name: 'Ещё одна', amount: 10, kind: 'shared', uses: 5, code: 'SPRING2026', expiresAt: inDays(1) },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.message).toBe('Такой код уже есть в другой акции: выберите другой');
  });
});
