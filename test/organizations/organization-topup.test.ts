// A card top-up in an organisation (YooKassa's fake): the accountant pays, the organisation's balance grows,
// and the 54-ФЗ receipt goes to the accountant's address, not to the organisation's unread one.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { registerUser, startTestApp, type TestApp } from '../helpers/app';
import { companyInput, inOrganization, mailedInviteToken, PUBLIC_BASE_URL } from '../helpers/organizations';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(30_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
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
    },
  });
});
afterAll(async () => {
  await app?.close();
  await yk?.close();
  await smtp?.close();
});

describe('a top-up in an organisation', () => {
  test("credits the organisation; the receipt names the accountant's e-mail", async () => {
    const owner = await registerUser(app.url);
    const org = okBody(await rest(app.url, owner.token).organizations.create(companyInput()));
    const accountant = await registerUser(app.url);
    okBody(await rest(app.url, owner.token).organizations.invite({ id: org.id, email: accountant.email, role: 'accountant' }));
    okBody(await rest(app.url, accountant.token).organizations.acceptInvite({ token: await mailedInviteToken(smtp, accountant.email) }));

    const accountants = inOrganization(app, accountant.token, org.id);
    const topup = okBody(await accountants.billing.createTopup({ amount: 500 }));
    const [row] = await app.sql<{ user_id: string; payment_id: string }>('select user_id, payment_id from topups where id = $1', [topup.id]);
    expect(row!.user_id).toBe(org.id);
    expect(yk.payment(row!.payment_id)!.receipt).toMatchObject({ customer: { email: accountant.email } });

    yk.succeed(row!.payment_id);
    expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, row!.payment_id, 'payment.succeeded')).status).toBe(200);
    expect(okBody(await accountants.account.balance()).balance).toBe(500);
    expect(okBody(await rest(app.url, accountant.token).account.balance()).balance).toBe(3);
  });
});
