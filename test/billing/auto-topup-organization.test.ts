// Auto top-up in an organisation (YooKassa's fake, the suite's SMTP server): the accountant saves the card on
// the organisation's top-up and sets auto top-up; a developer may neither read nor change it; the auto payment
// credits the organisation and its receipt, like the failure mail, goes to the accountant who saved the card,
// never to the organisation's own unread address.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { startTestApp, type TestApp } from '../helpers/app';
import { setBalanceNano, unbalancedUsers } from '../helpers/gateway';
import { inOrganization, joinAs, newOrganization, PUBLIC_BASE_URL } from '../helpers/organizations';
import { okBody } from '../helpers/rest';

setDefaultTimeout(30_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const RUB = 1_000_000_000n;
let yk: FakeYookassa;
let smtp: FakeSmtp;
let app: TestApp;

beforeAll(async () => {
  yk = await startFakeYookassa();
  yk.addShop(SHOP_ID, SECRET_KEY, { requireReceipt: true });
  smtp = await startFakeSmtp();
  app = await startTestApp({
    env: {
      YOOKASSA_SHOP_ID: SHOP_ID,
      YOOKASSA_SECRET_KEY: SECRET_KEY,
      YOOKASSA_API_BASE_URL: yk.url,
      YOOKASSA_RECEIPT_VAT_CODE: '1',
      PUBLIC_BASE_URL,
      SMTP_URL: smtp.url,
      OUTBOX_POLL_INTERVAL_MS: '100',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await yk?.close();
  await smtp?.close();
});

describe('auto top-up in an organisation', () => {
  test('the accountant saves the card and sets it up; the auto payment credits the organisation; receipt and mail go to the accountant', async () => {
    const { owner, org } = await newOrganization(app);
    const accountant = await joinAs({ app, smtp }, owner.token, org.id, 'accountant');
    const developer = await joinAs({ app, smtp }, owner.token, org.id, 'developer');
    const accountants = inOrganization(app, accountant.token, org.id);

    const topup = okBody(await accountants.billing.createTopup({ amount: 100, saveCard: true }));
    const [row] = await app.sql<{ payment_id: string }>('select payment_id from topups where id = $1', [topup.id]);
    yk.succeed(row!.payment_id);
    expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, row!.payment_id)).status).toBe(200);
    const settings = okBody(await accountants.billing.saveAutoTopup({ enabled: true, amount: 10, threshold: 50, monthlyLimit: 100 }));
    expect(settings.card?.last4).toBe('4477');

    // The money line of the role table: a developer sees none of it.
    const developers = inOrganization(app, developer.token, org.id);
    expect((await developers.billing.autoTopup()).status).toBe(403);
    expect((await developers.billing.removeCard()).status).toBe(403);

    // Below the threshold; the check billing's next batch would start.
    await setBalanceNano(app, org.id, 49n * RUB);
    await app.instance.services.topups.autoTopup.check([org.id]);
    const charge = yk.calls.filter((c) => c.method === 'POST' && (c.body as { payment_method_id?: string }).payment_method_id);
    expect(charge).toHaveLength(1);
    expect(charge[0]!.body).toMatchObject({ receipt: { customer: { email: accountant.email } }, metadata: { userId: org.id } });
    expect(okBody(await accountants.account.balance()).balance).toBe(59);

    // A failed one: the accountant is mailed, not the organisation's address.
    yk.scriptCharges({ cancel: 'insufficient_funds' });
    const seen = smtp.messages.filter((m) => m.to.includes(accountant.email)).length;
    await setBalanceNano(app, org.id, 49n * RUB);
    await app.instance.services.topups.autoTopup.check([org.id]);
    const mail = await smtp.waitFor(accountant.email, seen);
    expect(mail.subject).toContain('Автопополнение');
    expect(okBody(await accountants.billing.autoTopup()).attempts.map((a) => a.status)).toEqual(['canceled', 'succeeded']);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});
