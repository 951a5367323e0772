// Two of issue 45's features meeting: an invited account's auto top-up is real money (its saved card is charged),
// so it pays the referrer like the card top-up that saved the card — once each, however the payment's news
// arrives — while the operator's promo code the same account redeems pays nothing. Over HTTP against a fake
// YooKassa and a fake upstream; the books balance after.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, createApiKey, registerAdmin, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, setBalanceNano, settleAll, unbalancedUsers } from '../helpers/gateway';
import { createCampaign, redeem } from '../promotions/helpers';

setDefaultTimeout(60_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const ADMIN_EMAIL = 'referral-auto-admin@example.com';
const RUB = 1_000_000_000n;
const BONUS = 3n * RUB;

let yk: FakeYookassa;
let upstream: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  yk = await startFakeYookassa();
  yk.addShop(SHOP_ID, SECRET_KEY);
  upstream = await startFakeUpstream();
  app = await startTestApp({
    env: {
      YOOKASSA_SHOP_ID: SHOP_ID,
      YOOKASSA_SECRET_KEY: SECRET_KEY,
      YOOKASSA_API_BASE_URL: yk.url,
      PUBLIC_BASE_URL: 'https://conduit.example',
      UPSTREAM_BASE_URL: upstream.url,
      ADMIN_EMAILS: ADMIN_EMAIL,
      REFERRAL_PERCENT: '10',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await yk?.close();
  await upstream?.close();
});

const ok = async (res: Promise<{ status: number; body: any; text: string }>, status = 200) => {
  const answer = await res;
  if (answer.status !== status) throw new Error(`${status} expected: ${answer.status} ${answer.text}`);
  return answer.body;
};

test('an invited account’s auto top-up pays its referrer 10 % once; its promo code pays nothing', async () => {
  const admin = await registerAdmin(app, ADMIN_EMAIL);
  const referrer = await ok(call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail('referrer'), password: 'secret123' } }), 201);
  const { code } = await ok(call(app.url, 'POST', '/api/referrals/link', { token: referrer.token }));
  const invited = await ok(call(app.url, 'POST', '/api/auth/register', { body: { email: uniqueEmail('invited'), password: 'secret123', referralCode: code } }), 201);

  // The card top-up that saves the card: 100 ₽, so 10 ₽ to the referrer.
  await ok(call(app.url, 'POST', '/api/billing/topups', { token: invited.token, body: { amount: 100, saveCard: true } }), 201);
  const first = yk.payments.at(-1)!;
  yk.succeed(first.id);
  expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, first.id)).status).toBe(200);
  expect(await balanceNanoInDb(app, referrer.user.id)).toBe(BONUS + 10n * RUB);

  // Auto top-up of 20 ₽ below 50 ₽: the balance is put just above it, and a few requests cross it.
  await ok(call(app.url, 'PUT', '/api/billing/auto-topup', { token: invited.token, body: { enabled: true, amount: 20, threshold: 50, monthlyLimit: 1000 } }));
  await setBalanceNano(app, invited.user.id, 50n * RUB + 1n);
  const key = await createApiKey(app.url, invited.token);
  const client = openaiClient(app, key.key);
  await Promise.all(
    Array.from({ length: 5 }, () => client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 })),
  );
  await settleAll(app);
  await app.instance.services.topups.autoTopup.idle();
  const [auto] = await app.sql<{ status: string; payment_id: string }>('select status, payment_id from topups where user_id = $1 and auto', [invited.user.id]);
  expect(auto!.status).toBe('succeeded');
  // YooKassa's own notification of the auto payment, twice: still once.
  for (let i = 0; i < 2; i++) expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, auto!.payment_id)).status).toBe(200);
  expect(await balanceNanoInDb(app, referrer.user.id)).toBe(BONUS + 10n * RUB + 2n * RUB);

  // A promo code is the operator's money, not the customer's: nothing for the referrer.
  const campaign = await createCampaign(app, admin.token, { kind: 'unique', codeCount: 1, amount: 30 });
  await ok(redeem(app, invited.token, campaign.codes[0]));
  expect(await balanceNanoInDb(app, referrer.user.id)).toBe(BONUS + 12n * RUB);

  const payouts = await app.sql<{ amount_nano: string }>("select amount_nano::text from ledger_entries where user_id = $1 and kind = 'referral' order by id", [
    referrer.user.id,
  ]);
  expect(payouts.map((p) => p.amount_nano)).toEqual([(10n * RUB).toString(), (2n * RUB).toString()]);
  expect(await unbalancedUsers(app)).toEqual([]);
});
