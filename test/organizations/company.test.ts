// A company as a customer, from the first invitation to the month's акт (issue 44, "Done when"), over HTTP the
// way its people and the operator would: the owner creates the organisation and invites a developer (with a
// monthly limit) and an accountant, who follow their mailed links; the accountant asks for two счета; the
// operator imports the bank's 1C statement (Windows-1251: the match, a payment short of its счёт, an unknown
// payer) and credits exactly the match; the developer's key spends the organisation's money until the member
// limit stops it; after the month the accountant downloads the акт, whose total and amount in words are what
// the developer spent.
import { expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { extractText, getDocumentProxy } from 'unpdf';
import { amountInWords } from '../../src/money-words';
import { call, registerAdmin, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { fixtureStatement, uploadStatement } from '../helpers/bank';
import { openaiClient, settleAll } from '../helpers/gateway';
import { companyInput, inOrganization, joinAs, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';
import { OPERATOR_REQUISITES } from '../helpers/requisites';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(120_000);

const ADMIN_EMAIL = uniqueEmail('company-operator');
/** Half a rouble a token: a request of the fake's 17 tokens costs 8.50, so the акт has roubles to spell. */
const TOKEN_PRICE = 0.5;
/** The developer's monthly limit: a few requests' worth. */
const MEMBER_LIMIT = 60;

let setup: OrganizationsSetup;
let app: TestApp;
useOrganizationsApp(
  (s) => {
    setup = s;
    app = s.app;
  },
  { ADMIN_EMAILS: ADMIN_EMAIL, TOKEN_PRICE: String(TOKEN_PRICE) },
);

const normal = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ').replace(/\u2011/g, '-');
const rubles = (amount: number) =>
  amount
    .toFixed(2)
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ')
    .replace('.', ',');

async function pdfText(path: string, token: string, organizationId: string): Promise<string> {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}`, 'x-conduit-organization': organizationId } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  return normal((await extractText(await getDocumentProxy(new Uint8Array(await res.arrayBuffer())), { mergePages: true })).text);
}

/** The first Moscow moment of the next month: when the month that is running now has ended. */
function nextMoscowMonth(): Date {
  const moscow = new Date(Date.now() + 3 * 3_600_000);
  return new Date(Date.UTC(moscow.getUTCFullYear(), moscow.getUTCMonth() + 1, 1, 1) - 3 * 3_600_000);
}

test('a company: invitations followed, a счёт paid by a 1C statement, a developer within the member limit, the month’s акт', async () => {
  const operator = await registerAdmin(app, ADMIN_EMAIL);
  const requisites = { ...OPERATOR_REQUISITES, vatRate: 22, directorName: 'Петров П. П.' };
  expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: operator.token, body: requisites })).status).toBe(200);

  // The owner registers and creates the organisation: its own balance starts at zero, with no bonus.
  const owner = await registerUser(app.url);
  const company = companyInput('ООО «Вектор»');
  const org = okBody(await rest(app.url, owner.token).organizations.create(company));
  expect(org).toMatchObject({ name: 'ООО «Вектор»', role: 'owner', balance: 0 });

  // Both invitations are mailed; each person follows the link and accepts it as themself.
  const developer = await joinAs(setup, owner.token, org.id, 'developer', MEMBER_LIMIT);
  const accountant = await joinAs(setup, owner.token, org.id, 'accountant');
  const members = okBody(await rest(app.url, owner.token).organizations.members({ id: org.id })).members;
  expect(members.map((m) => [m.email, m.role, m.spendLimit]).sort()).toEqual(
    [
      [owner.email, 'owner', null],
      [developer.email, 'developer', MEMBER_LIMIT],
      [accountant.email, 'accountant', null],
    ].sort(),
  );

  // The accountant asks for a счёт (and a second one that the bank will see paid short).
  const books = inOrganization(app, accountant.token, org.id);
  const invoice = okBody(await books.invoices.create({ amount: 15000 }));
  const second = okBody(await books.invoices.create({ amount: 5000 }));
  expect(invoice.status).toBe('pending');
  const invoicePdf = await pdfText(invoice.pdfUrl, accountant.token, org.id);
  expect(invoicePdf).toContain(`Счёт на оплату № ${invoice.number}`);
  expect(invoicePdf).toContain(`Покупатель (Заказчик): ООО «Вектор», ИНН ${company.inn}`);
  expect(invoicePdf).toContain('Пятнадцать тысяч рублей 00 копеек');
  // The developer may not ask for one: money documents are the owner's and the accountant's.
  expect((await inOrganization(app, developer.token, org.id).invoices.create({ amount: 100 })).status).toBe(403);

  // The operator imports the bank's statement: one payment matches, one is short of its счёт, one payer is unknown.
  const statement = fixtureStatement({
    OPERATOR_ACCOUNT: requisites.account,
    TOTAL_IN: '0.00',
    CLOSING: '0.00',
    MATCH_AMOUNT: '15000.00',
    MATCH_INN: company.inn,
    MATCH_INVOICE: String(invoice.number),
    SHORT_AMOUNT: '4999.00',
    SHORT_INN: company.inn,
    SHORT_INVOICE: String(second.number),
  });
  const imported = await uploadStatement(app, operator.token, statement);
  expect(imported.status).toBe(201);
  expect(imported.body.encoding).toBe('windows-1251');
  const incoming = imported.body.payments as { id: string; status: string; problem: string | null; invoiceNumber: number | null }[];
  expect(incoming.map((p) => [p.status, p.invoiceNumber, p.problem])).toEqual([
    ['matched', invoice.number, null],
    ['unmatched', second.number, 'amount_mismatch'],
    ['unmatched', null, 'payer_unknown'],
  ]);
  expect(okBody(await books.account.balance()).balance).toBe(0);

  // Confirming all three credits exactly the match, once.
  const confirmed = await call(app.url, 'POST', `/api/admin/bank-statements/${imported.body.importId}/confirm`, {
    token: operator.token,
    body: { payments: incoming.map((p) => p.id) },
  });
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.payments.map((p: { outcome: string }) => p.outcome)).toEqual(['credited', 'not_matched', 'not_matched']);
  expect(okBody(await books.account.balance()).balance).toBe(15000);
  const listed = okBody(await books.invoices.list()).invoices;
  expect(listed.find((i) => i.number === invoice.number)?.status).toBe('paid');
  expect(listed.find((i) => i.number === second.number)?.status).toBe('pending');

  // The developer's key spends the organisation's money until the member limit stops it; the person's own
  // balance and bonus are untouched.
  const key = okBody(await inOrganization(app, developer.token, org.id).keys.create({ name: 'CI' }));
  const client = openaiClient(app, key.key);
  let served = 0;
  let refusal: unknown = null;
  for (let n = 0; n < 20 && refusal === null; n++) {
    try {
      await client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 });
      served += 1;
    } catch (error) {
      refusal = error;
    }
  }
  expect(served).toBeGreaterThan(0);
  expect(refusal).toBeInstanceOf(OpenAI.APIError);
  expect((refusal as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
  expect((refusal as InstanceType<typeof OpenAI.APIError>).code).toBe('member_spend_limit');
  await settleAll(app);
  const spent = 15000 - okBody(await books.account.balance()).balance;
  expect(spent).toBeCloseTo(served * 17 * TOKEN_PRICE, 6);
  expect(spent).toBeLessThanOrEqual(MEMBER_LIMIT);
  expect(okBody(await rest(app.url, developer.token).account.balance()).balance).toBe(3);

  // After the month the акт is issued to the organisation; the accountant downloads it.
  await app.instance.services.statement.closingJob.runOnce(nextMoscowMonth());
  const months = okBody(await books.statement.documents()).months;
  const documents = months.flatMap((m) => m.documents);
  const act = documents.find((d) => d.kind === 'act');
  expect(act).toBeDefined();
  expect(act!.amount).toBe(spent);
  const actText = await pdfText(act!.pdfUrl, accountant.token, org.id);
  expect(actText).toContain(`Акт № ${act!.number}`);
  expect(actText).toContain(`ООО «Вектор», ИНН ${company.inn}`);
  expect(actText).toContain(rubles(spent));
  expect(actText).toContain(amountInWords(BigInt(Math.round(spent * 100))));
  // Nobody outside the organisation reads it, and its developer may not either.
  expect((await fetch(app.url + act!.pdfUrl, { headers: { authorization: `Bearer ${owner.token}` } })).status).toBe(404);
  const byDeveloper = await fetch(app.url + act!.pdfUrl, { headers: { authorization: `Bearer ${developer.token}`, 'x-conduit-organization': org.id } });
  expect(byDeveloper.status).toBe(403);
});
