// Referral payouts over HTTP (issue 45, point 4): the invitation link, registration through it, and the
// referrer's share of the referred account's real-money top-ups — by card (fake YooKassa, notifications
// redelivered and in parallel) and by bank transfer (a счёт marked paid) — credited once, exact to the
// nano-unit, as a `referral` ledger row; nothing for bonuses and operator credits, after REFERRAL_MONTHS,
// to a blocked referrer, for the same mailbox, or for the same company domain under
// REFERRAL_SAME_DOMAIN=refuse; nothing at all with REFERRAL_PERCENT=0. The books balance after each test.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, registerAdmin, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, unbalancedUsers } from '../helpers/gateway';
import { companyInput } from '../helpers/organizations';
import { OPERATOR_REQUISITES } from '../helpers/requisites';
import { createCampaign, redeem } from '../promotions/helpers';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(30_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const PUBLIC = 'https://conduit.example';
const ADMIN_EMAIL = 'referrals-admin@example.com';
const BONUS = 3_000_000_000n;

let yk: FakeYookassa;

const appEnv = (extra: Record<string, string>) => ({
  YOOKASSA_SHOP_ID: SHOP_ID,
  YOOKASSA_SECRET_KEY: SECRET_KEY,
  YOOKASSA_API_BASE_URL: yk.url,
  PUBLIC_BASE_URL: PUBLIC,
  ADMIN_EMAILS: ADMIN_EMAIL,
  ...extra,
});

beforeAll(async () => {
  yk = await startFakeYookassa();
});
afterAll(async () => {
  await yk?.close();
});
beforeEach(() => {
  yk.reset();
  yk.addShop(SHOP_ID, SECRET_KEY);
});

async function register(app: TestApp, email = uniqueEmail(), referralCode?: unknown) {
  const res = await call(app.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123', ...(referralCode === undefined ? {} : { referralCode }) } });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return { token: res.body.token as string, userId: res.body.user.id as string, email };
}

/** The referrer's link, made by POST /api/referrals/link; its code. */
async function linkOf(app: TestApp, token: string, headers: Record<string, string> = {}) {
  const res = await call(app.url, 'POST', '/api/referrals/link', { token, headers });
  expect(res.status).toBe(200);
  return res.body.code as string;
}

/** A card top-up of `amount` paid, and its notification delivered `deliveries` times. */
async function payByCard(app: TestApp, token: string, amount: number, deliveries = 1) {
  const res = await call(app.url, 'POST', '/api/billing/topups', { token, body: { amount } });
  expect(res.status).toBe(201);
  const [row] = await app.sql<{ payment_id: string }>('select payment_id from topups where id = $1', [res.body.id]);
  yk.succeed(row!.payment_id);
  for (let i = 0; i < deliveries; i++) expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, row!.payment_id)).status).toBe(200);
  return row!.payment_id;
}

const referralRows = (app: TestApp, userId: string) =>
  app.sql<{ amount_nano: string; reference: string }>(
    "select amount_nano::text, reference from ledger_entries where user_id = $1 and kind = 'referral' order by id",
    [userId],
  );

const overview = async (app: TestApp, token: string, headers: Record<string, string> = {}) => {
  const res = await call(app.url, 'GET', '/api/referrals', { token, headers });
  expect(res.status).toBe(200);
  return res.body;
};

describe('REFERRAL_PERCENT=7.5', () => {
  let app: TestApp;
  let admin: { token: string };
  beforeAll(async () => {
    app = await startTestApp({ env: appEnv({ REFERRAL_PERCENT: '7.5', REFERRAL_MONTHS: '12' }) });
    admin = await registerAdmin(app, ADMIN_EMAIL);
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(async () => {
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the page shows no link until its owner makes one (GET changes nothing); the link is made once and stays the same', async () => {
    const referrer = await register(app);
    const before = await overview(app, referrer.token);
    expect(before).toEqual({
      enabled: true,
      percent: 7.5,
      months: 12,
      code: null,
      link: null,
      referredCount: 0,
      totalEarned: 0,
      currency: 'RUB',
      referred: [],
      nextCursor: null,
    });
    expect(await app.sql('select * from referral_codes where user_id = $1', [referrer.userId])).toEqual([]);
    const code = await linkOf(app, referrer.token);
    expect(code).toMatch(/^[a-z2-9]{8}$/);
    expect(await linkOf(app, referrer.token)).toBe(code);
    const after = await overview(app, referrer.token);
    expect(after.link).toBe(`${PUBLIC}/app/register?ref=${code}`);
    expect((await call(app.url, 'GET', '/api/referrals')).status).toBe(401);
    expect((await call(app.url, 'POST', '/api/referrals/link')).status).toBe(401);
  });

  test('a card top-up of the referred account credits its referrer 7.5 % once: redelivered and parallel notifications change nothing', async () => {
    const referrer = await register(app);
    const code = await linkOf(app, referrer.token);
    // Typed in capitals and with spaces around, the code still names the referrer.
    const referred = await register(app, uniqueEmail('invited'), ` ${code.toUpperCase()} `);
    // The referred account's registration bonus pays the referrer nothing.
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);

    const paymentId = await payByCard(app, referred.token, 333.33, 3);
    await Promise.all(Array.from({ length: 6 }, () => yk.notify(`${app.url}/api/billing/yookassa/notifications`, paymentId)));

    // 333.33 × 7.5 % = 24.99975, to the nano-unit.
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 24_999_750_000n);
    expect(await balanceNanoInDb(app, referred.userId)).toBe(BONUS + 333_330_000_000n);
    const [topupEntry] = await app.sql<{ id: string }>("select id::text from ledger_entries where user_id = $1 and kind = 'topup'", [referred.userId]);
    expect(await referralRows(app, referrer.userId)).toEqual([{ amount_nano: '24999750000', reference: `topup:${topupEntry!.id}` }]);
    expect((await call(app.url, 'GET', '/api/balance', { token: referrer.token })).body.balance).toBe(27.99975);

    const view = await overview(app, referrer.token);
    expect(view.referredCount).toBe(1);
    expect(view.totalEarned).toBe(24.99975);
    expect(view.referred).toEqual([
      {
        email: `${referred.email.slice(0, 2)}***@example.com`,
        registeredAt: expect.any(String),
        paysUntil: expect.any(String),
        status: 'active',
        earned: 24.99975,
        payouts: 1,
      },
    ]);
    // The masked address does not show the account's own name.
    expect(JSON.stringify(view)).not.toContain(referred.email.split('@')[0]);
    const months = (Date.parse(view.referred[0].paysUntil) - Date.parse(view.referred[0].registeredAt)) / 86_400_000;
    expect(months).toBeGreaterThanOrEqual(365);
    expect(months).toBeLessThanOrEqual(366);

    // The referred account sees nothing of it; its own page is empty.
    expect((await overview(app, referred.token)).referred).toEqual([]);
    // The statement names the row in Russian.
    const day = new Date().toISOString().slice(0, 10);
    const statement = await call(app.url, 'GET', `/api/account/statement?from=${day}&to=${day}&timeZone=UTC`, { token: referrer.token });
    expect(statement.status).toBe(200);
    expect(statement.body.lines.find((l: { kind: string }) => l.kind === 'referral')).toMatchObject({ title: 'Вознаграждение за приглашённого', amount: 24.99975 });
  });

  test('a second top-up pays again; the list keeps a line per account with its sum', async () => {
    const referrer = await register(app);
    const code = await linkOf(app, referrer.token);
    const first = await register(app, uniqueEmail('one'), code);
    const second = await register(app, uniqueEmail('two'), code);
    await payByCard(app, first.token, 100);
    await payByCard(app, first.token, 10.01);
    await payByCard(app, second.token, 1000);
    // 7.5 + 0.75075 + 75
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 7_500_000_000n + 750_750_000n + 75_000_000_000n);
    const view = await overview(app, referrer.token);
    expect(view.totalEarned).toBe(83.25075);
    expect(view.referred.map((r: { email: string; earned: number; payouts: number }) => [r.email, r.earned, r.payouts])).toEqual([
      [`${second.email.slice(0, 2)}***@example.com`, 75, 1],
      [`${first.email.slice(0, 2)}***@example.com`, 8.25075, 2],
    ]);
    // Paged: one per page, the cursor leads to the next.
    const page1 = await call(app.url, 'GET', '/api/referrals?limit=1', { token: referrer.token });
    expect(page1.body.referred).toHaveLength(1);
    const page2 = await call(app.url, 'GET', `/api/referrals?limit=1&cursor=${page1.body.nextCursor}`, { token: referrer.token });
    expect(page2.body.referred[0].email).toBe(`${first.email.slice(0, 2)}***@example.com`);
    expect(page2.body.nextCursor).toBeNull();
  });

  test('a bank transfer (a счёт marked paid) credits the referrer once; marking it again credits nothing', async () => {
    expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: OPERATOR_REQUISITES })).status).toBe(200);
    const referrer = await register(app);
    const referred = await register(app, uniqueEmail('company'), await linkOf(app, referrer.token));
    const customer = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: referred.token, body: customer })).status).toBe(200);
    const invoice = await call(app.url, 'POST', '/api/account/invoices', { token: referred.token, body: { amount: 1234.56 } });
    expect(invoice.status).toBe(201);
    const today = new Date().toISOString().slice(0, 10);
    const markPaid = () => call(app.url, 'POST', `/api/admin/invoices/${invoice.body.number}/mark-paid`, { token: admin.token, body: { paidOn: today } });
    expect((await markPaid()).status).toBe(200);
    expect((await markPaid()).status).toBe(409);
    // 1234.56 × 7.5 % = 92.592
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 92_592_000_000n);
    expect(await referralRows(app, referrer.userId)).toHaveLength(1);
  });

  test('operator credits, promo codes and bonuses never pay out; nor top-ups after REFERRAL_MONTHS, nor to a blocked referrer', async () => {
    const referrer = await register(app);
    const code = await linkOf(app, referrer.token);
    const referred = await register(app, uniqueEmail('credited'), code);
    const credit = await call(app.url, 'POST', `/api/admin/users/${referred.userId}/credit`, {
      token: admin.token,
      body: { amount: 500, reason: 'компенсация', reference: `ref-test-${referred.userId}` },
    });
    expect(credit.status).toBe(200);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);
    // A promo code is the operator's money too: redeeming one pays the referrer nothing.
    const campaign = await createCampaign(app, admin.token, { name: 'Акция для приглашённых', kind: 'unique', codeCount: 1, amount: 250 });
    expect((await redeem(app, referred.token, campaign.codes[0])).status).toBe(200);
    expect(await balanceNanoInDb(app, referred.userId)).toBe(BONUS + 500_000_000_000n + 250_000_000_000n);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);

    // Registered 12 months and a day ago: the program has ended for this account.
    const old = await register(app, uniqueEmail('old'), code);
    await app.sql("update users set created_at = now() - interval '12 months 1 day' where id = $1", [old.userId]);
    await payByCard(app, old.token, 200);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);
    // Eleven months ago: still paying.
    const recent = await register(app, uniqueEmail('recent'), code);
    await app.sql("update users set created_at = now() - interval '11 months' where id = $1", [recent.userId]);
    await payByCard(app, recent.token, 200);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 15_000_000_000n);
    const statuses = Object.fromEntries(
      (await overview(app, referrer.token)).referred.map((r: { email: string; status: string }) => [r.email.slice(0, 2), r.status]),
    );
    expect(statuses).toMatchObject({ ol: 'expired', re: 'active', cr: 'active' });

    // Blocked: no payout while blocked, and none later for what was paid then.
    expect((await call(app.url, 'POST', `/api/admin/users/${referrer.userId}/block`, { token: admin.token })).status).toBe(200);
    await payByCard(app, recent.token, 100);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 15_000_000_000n);
    expect((await call(app.url, 'POST', `/api/admin/users/${referrer.userId}/unblock`, { token: admin.token })).status).toBe(200);
    await payByCard(app, recent.token, 100);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS + 22_500_000_000n);
  });

  test('self-referral: the same mailbox written another way (+tag, Gmail dots) is recorded but never paid', async () => {
    const referrer = await register(app, `ivan.petrov.${Date.now()}@gmail.com`);
    const code = await linkOf(app, referrer.token);
    const [name] = referrer.email.split('@');
    const twin = await register(app, `${name!.replaceAll('.', '')}+second@gmail.com`, code);
    await payByCard(app, twin.token, 100);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);
    expect((await overview(app, referrer.token)).referred).toEqual([expect.objectContaining({ status: 'refused', earned: 0, payouts: 0 })]);
    // An account cannot be its own referrer, even written straight into the table.
    let refused = false;
    try {
      await app.sql('insert into referrals (referred_id, referrer_id) values ($1, $1)', [referrer.userId]);
    } catch {
      refused = true;
    }
    expect(refused).toBe(true);
  });

  test('registration with a code that names nobody, a malformed one or null goes on without a referrer; an absurdly long one is 400', async () => {
    for (const code of ['zzzzzzzz', 'не код!', '', null, 'a'.repeat(64)]) {
      const user = await register(app, uniqueEmail('stray'), code);
      expect(await app.sql('select * from referrals where referred_id = $1', [user.userId])).toEqual([]);
    }
    const long = await call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail(), password: 'secret123', referralCode: 'a'.repeat(65) } });
    expect(long.status).toBe(400);
    expect(long.body.error.type).toBe('invalid_request_error');
    expect(long.body.error.message).toMatch(/[а-яё]/i);
    const wrongType = await call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail(), password: 'secret123', referralCode: 42 } });
    expect(wrongType.status).toBe(400);
  });

  test('an organisation is a referrer: its owner makes its link, and a person registered through it earns the organisation', async () => {
    const owner = await register(app);
    const org = okBody(await rest(app.url, owner.token).organizations.create(companyInput('ООО «Приглашающая»')));
    const asOrg = { 'x-conduit-organization': org.id };
    const code = await linkOf(app, owner.token, asOrg);
    expect(code).not.toBe(await linkOf(app, owner.token));
    const referred = await register(app, uniqueEmail('via-org'), code);
    await payByCard(app, referred.token, 400);
    expect(await balanceNanoInDb(app, org.id)).toBe(30_000_000_000n);
    expect(await balanceNanoInDb(app, owner.userId)).toBe(BONUS);
    const view = await overview(app, owner.token, asOrg);
    expect(view.totalEarned).toBe(30);
    expect(view.referred).toHaveLength(1);
  });
});

describe('REFERRAL_PERCENT=0 (the default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: appEnv({}) });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('links still record who invited whom, but a top-up pays nothing; the page says payouts are off', async () => {
    const referrer = await register(app);
    const code = await linkOf(app, referrer.token);
    const referred = await register(app, uniqueEmail('invited'), code);
    await payByCard(app, referred.token, 1000);
    expect(await balanceNanoInDb(app, referrer.userId)).toBe(BONUS);
    expect(await referralRows(app, referrer.userId)).toEqual([]);
    const view = await overview(app, referrer.token);
    expect(view).toMatchObject({ enabled: false, percent: 0, referredCount: 1, totalEarned: 0 });
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('REFERRAL_SAME_DOMAIN=refuse, REFERRAL_PERCENT=3.3333', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: appEnv({ REFERRAL_PERCENT: '3.3333', REFERRAL_SAME_DOMAIN: 'refuse' }) });
  });
  afterAll(async () => {
    await app?.close();
  });

  test('a colleague at the same company domain pays nothing; at a public mail service the same domain is no obstacle; the share rounds down', async () => {
    const stamp = Date.now();
    const boss = await register(app, `boss-${stamp}@acme-corp.ru`);
    const colleague = await register(app, `dev-${stamp}@acme-corp.ru`, await linkOf(app, boss.token));
    await payByCard(app, colleague.token, 100);
    expect(await balanceNanoInDb(app, boss.userId)).toBe(BONUS);
    expect((await overview(app, boss.token)).referred).toEqual([expect.objectContaining({ status: 'refused' })]);

    const friend = await register(app, `anna-${stamp}@gmail.com`);
    const invited = await register(app, `oleg-${stamp}@gmail.com`, await linkOf(app, friend.token));
    await payByCard(app, invited.token, 10.01);
    // 10.01 × 3.3333 % = 0.33366333 → 0.333663330 (rounded down to the nano-unit: 333663330.33).
    expect(await balanceNanoInDb(app, friend.userId)).toBe(BONUS + 333_663_330n);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
