// The operator's side of promo codes and the limits around redemption: only admins reach the console routes,
// the codes' CSV holds every code (opened from its sealed copy, again at any time), creation and stop are
// audited, the detail names who redeemed (masked), bad input is a 400 that changes nothing, and attempts are
// limited per account and per address — 429 with Retry-After, then through once the window has passed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { unbalancedUsers } from '../helpers/gateway';
import { createCampaign, inDays, operator, PROMO_ENV, redeem } from './helpers';

setDefaultTimeout(30_000);

let app: TestApp;
let admin: { token: string; userId: string };

beforeAll(async () => {
  app = await startTestApp({ env: { ...PROMO_ENV, PROMO_ATTEMPTS_PER_HOUR: '3', PROMO_ATTEMPTS_PER_HOUR_PER_ADDRESS: '8' } });
  admin = await operator(app);
});
afterAll(async () => {
  expect(await unbalancedUsers(app)).toEqual([]);
  await app?.close();
});

/** Moves the promo attempt windows an hour back, as time passing would. */
const hourPassed = () => app.sql(`update throttle_counters set window_started_at = window_started_at - interval '61 minutes' where scope like 'promo_%'`);

describe('the console', () => {
  test('a person who is not an operator gets 403 on every console route; nothing is created', async () => {
    const user = await registerUser(app.url);
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 1 });
    const tries = [
      call(app.url, 'POST', '/api/admin/promotions', { token: user.token, body: { name: 'x', amount: 1, kind: 'unique', codeCount: 1, expiresAt: inDays(1) } }),
      call(app.url, 'GET', '/api/admin/promotions', { token: user.token }),
      call(app.url, 'GET', `/api/admin/promotions/${campaign.id}`, { token: user.token }),
      call(app.url, 'POST', `/api/admin/promotions/${campaign.id}/stop`, { token: user.token }),
      call(app.url, 'GET', `/api/admin/promotions/${campaign.id}/codes/export`, { token: user.token }),
    ];
    for (const res of await Promise.all(tries)) {
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
    }
    expect((await call(app.url, 'GET', '/api/admin/promotions', {})).status).toBe(401);
    expect(await app.sql(`select 1 from promo_campaigns where name = 'x'`)).toEqual([]);
  });

  test('the CSV holds every code with its uses, again after creation; excel-ru in Russian', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 25, name: 'Осень, «для своих»', amount: 12.5 });
    const user = await registerUser(app.url);
    expect((await redeem(app, user.token, campaign.codes[3])).status).toBe(200);
    const res = await fetch(`${app.url}/api/admin/promotions/${campaign.id}/codes/export`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="conduit-promo-${campaign.id}.csv"`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    const lines = text.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('code,uses,max_uses,campaign,amount,expires_at');
    expect(lines).toHaveLength(26);
    const byCode = new Map(lines.slice(1).map((l) => [l.split(',')[0]!, l]));
    expect([...byCode.keys()].sort()).toEqual([...campaign.codes].sort());
    expect(byCode.get(campaign.codes[3]!)).toStartWith(`${campaign.codes[3]},1,1,"Осень, «для своих»",12.500000000,`);
    expect(byCode.get(campaign.codes[0]!)).toStartWith(`${campaign.codes[0]},0,1,`);

    const ru = await (
      await fetch(`${app.url}/api/admin/promotions/${campaign.id}/codes/export?format=excel-ru`, { headers: { authorization: `Bearer ${admin.token}` } })
    ).text();
    expect(ru.split('\r\n')[0]).toBe('Промокод;Активаций;Всего активаций;Акция;Сумма;Действует до');
    expect(ru).toContain(';12,500000000;');

    const unknown = await call(app.url, 'GET', '/api/admin/promotions/00000000-0000-4000-8000-000000000000/codes/export', { token: admin.token });
    expect(unknown.status).toBe(404);
    const notUuid = await call(app.url, 'GET', '/api/admin/promotions/nope/codes/export', { token: admin.token });
    expect(notUuid.status).toBe(404);
    const badFormat = await call(app.url, 'GET', `/api/admin/promotions/${campaign.id}/codes/export?format=xlsx`, { token: admin.token });
    expect(badFormat.status).toBe(400);
  });

  test('the most codes at once: 10 000, all distinct, all in the CSV', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 10_000, name: 'Тираж' });
    expect(new Set(campaign.codes).size).toBe(10_000);
    const res = await fetch(`${app.url}/api/admin/promotions/${campaign.id}/codes/export`, { headers: { authorization: `Bearer ${admin.token}` } });
    const lines = (await res.text()).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(10_001);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0]))).toEqual(new Set(campaign.codes));
  });

  test('list and detail: counts, credited sum, status, who redeemed with the address masked', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 3, amount: 5, name: 'Детали' });
    const user = await registerUser(app.url, `maria.ivanova-${Date.now()}@example.com`);
    expect((await redeem(app, user.token, campaign.codes[0])).status).toBe(200);
    const list = await call(app.url, 'GET', '/api/admin/promotions', { token: admin.token });
    expect(list.status).toBe(200);
    const listed = list.body.campaigns.find((c: { id: string }) => c.id === campaign.id);
    expect(listed).toMatchObject({ name: 'Детали', kind: 'shared', codeCount: 1, usesPerCode: 3, redemptions: 1, credited: 5, amount: 5, status: 'active' });
    const detail = await call(app.url, 'GET', `/api/admin/promotions/${campaign.id}`, { token: admin.token });
    expect(detail.body.redemptionList).toHaveLength(1);
    expect(detail.body.redemptionList[0]).toMatchObject({ userId: user.userId, email: 'm***@example.com', amount: 5 });
    expect(JSON.stringify(detail.body)).not.toContain('ivanova');
    expect((await call(app.url, 'GET', '/api/admin/promotions/00000000-0000-4000-8000-000000000000', { token: admin.token })).status).toBe(404);
  });

  test('creation and stop are in the audit log, in Russian', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 2, name: 'Аудит', amount: 30 });
    expect((await call(app.url, 'POST', `/api/admin/promotions/${campaign.id}/stop`, { token: admin.token })).status).toBe(200);
    const audit = await call(app.url, 'GET', `/api/admin/audit?targetId=${campaign.id}`, { token: admin.token });
    expect(audit.status).toBe(200);
    const rows = audit.body.data as { action: string; actionText: string; targetText: string; adminEmail: string; changes: { text: string }[] }[];
    expect(rows.map((r) => r.action)).toEqual(['promo_campaign.stop', 'promo_campaign.create']);
    expect(rows[1]!.actionText).toBe('Акция с промокодами создана');
    expect(rows[1]!.targetText).toBe('Акция «Аудит»');
    expect(rows[1]!.changes.map((c) => c.text)).toContain('вид промокодов: уникальные коды, по одной активации');
    expect(rows[1]!.changes.map((c) => c.text)).toContain('кодов: 2');
    expect(rows[0]!.actionText).toBe('Акция с промокодами остановлена');
    expect(rows[0]!.adminEmail).toBe('promo-operator@example.com');
  });

  test('bad campaigns are 400 with the field named; nothing is created', async () => {
    const before = await app.sql<{ n: number }>('select count(*)::int as n from promo_campaigns');
    const base = { name: 'Плохая', amount: 10, kind: 'unique', codeCount: 5, expiresAt: inDays(1) };
    const bad: [Record<string, unknown>, string][] = [
      [{ amount: 0 }, 'amount'],
      [{ amount: 1.005 }, 'amount'],
      [{ amount: '10' }, 'amount'],
      [{ codeCount: 10_001 }, 'codeCount'],
      [{ codeCount: undefined }, 'codeCount'],
      [{ kind: 'shared', codeCount: undefined }, 'uses'],
      [{ kind: 'shared', uses: 3, code: 'ab' }, 'code'],
      [{ kind: 'shared', uses: 3, code: 'весна-2026' }, 'code'],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
      [{ expiresAt: '2026-02-30T00:00:00Z' }, 'expiresAt'],
      [{ name: '' }, 'name'],
      [{ kind: 'lottery' }, 'kind'],
      [{ registeredAfter: 'yesterday' }, 'registeredAfter'],
      [{ name: 'a\u0000b' }, 'name'],
    ];
    for (const [change, field] of bad) {
      const res = await call(app.url, 'POST', '/api/admin/promotions', { token: admin.token, body: { ...base, ...change } });
      expect({ change, status: res.status, type: res.body.error?.type }).toEqual({ change, status: 400, type: 'invalid_request_error' });
      expect(res.body.error.message).toContain(field === 'name' && String(change.name).includes('\u0000') ? 'недопустимый символ' : '');
    }
    expect(await app.sql('select count(*)::int as n from promo_campaigns')).toEqual(before);
  });
});

describe('redeeming: bad input and the limits', () => {
  test('a code with NUL, a number, a missing or an overlong code: 400, never 500, nothing counted', async () => {
    const user = await registerUser(app.url);
    for (const code of ['ABCD\u0000EFGH', 42, undefined, 'X'.repeat(65), ' - ']) {
      const res = await redeem(app, user.token, code);
      expect({ code, status: res.status, type: res.body.error?.type }).toEqual({ code, status: 400, type: 'invalid_request_error' });
    }
    const malformed = await call(app.url, 'POST', '/api/billing/promo', { token: user.token, rawBody: '{"code":' });
    expect(malformed.status).toBe(400);
    expect(await app.sql(`select 1 from throttle_counters where scope = 'promo_account' and key = $1`, [user.userId])).toEqual([]);
    expect((await call(app.url, 'POST', '/api/billing/promo', { body: { code: 'ABCD' } })).status).toBe(401);
  });

  test('per account: past PROMO_ATTEMPTS_PER_HOUR wrong codes, 429 with Retry-After even for a good code; an hour later it goes through', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 1, amount: 9 });
    const user = await registerUser(app.url);
    for (let i = 0; i < 3; i++) expect((await redeem(app, user.token, `WRONG-${i}`)).status).toBe(400);
    const limited = await redeem(app, user.token, campaign.codes[0]);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toEqual({ type: 'rate_limit_exceeded', message: 'Слишком много попыток ввести промокод, повторите позже' });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3000);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another account at the same address is not held back by this account's count.
    const neighbour = await registerUser(app.url);
    expect((await redeem(app, neighbour.token, 'WRONG-N')).status).toBe(400);

    await hourPassed();
    const ok = await redeem(app, user.token, campaign.codes[0]);
    expect(ok.status).toBe(200);
    expect(ok.body.amount).toBe(9);
  });

  test('a credited attempt is given back: only failures add up', async () => {
    await hourPassed();
    const campaigns = await Promise.all([1, 2, 3, 4].map(() => createCampaign(app, admin.token, { kind: 'unique', codeCount: 1, amount: 1 })));
    const user = await registerUser(app.url);
    for (const c of campaigns) expect((await redeem(app, user.token, c.codes[0])).status).toBe(200);
    expect((await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance).toBe(7);
  });

  test('per address: many accounts guessing from one address are stopped together', async () => {
    await hourPassed();
    await app.sql(`delete from throttle_counters where scope like 'promo_%'`);
    const users = await Promise.all(Array.from({ length: 5 }, () => registerUser(app.url)));
    const answers = [];
    for (const [i, user] of users.entries()) for (let k = 0; k < 2; k++) answers.push((await redeem(app, user.token, `GUESS-${i}-${k}`)).status);
    expect(answers).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 429, 429]);
    await hourPassed();
    expect((await redeem(app, users[4]!.token, 'GUESS-AGAIN')).status).toBe(400);
  });
});

describe('the statement', () => {
  test('a promo credit is a «Промокод» line of the statement', async () => {
    const campaign = await createCampaign(app, admin.token, { kind: 'shared', uses: 1, amount: 25 });
    await hourPassed();
    const user = await registerUser(app.url);
    expect((await redeem(app, user.token, campaign.codes[0])).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const res = await call(app.url, 'GET', `/api/account/statement?from=${today}&to=${today}&timeZone=UTC`, { token: user.token });
    expect(res.status).toBe(200);
    const line = res.body.lines.find((l: { kind: string }) => l.kind === 'promo');
    expect(line).toMatchObject({ kind: 'promo', title: 'Промокод', amount: 25 });
  });
});
