// Top-up by bank transfer (issue 44, points 2 and 3), over HTTP with the real app: the счёт on request (refused
// without the buyer's requisites; its PDF in the Russian layout with the НДС line, the amount in words and the
// purpose), the operator's 1C statement import in Windows-1251 (the committed fixture, filled in with this test's
// счета and ИНН) with proposals, the confirm that credits exactly the match — once, whatever is repeated — the
// unmatched payments assigned or ignored, «отметить оплаченным», cancel, and the expiry after INVOICE_VALID_DAYS.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { fixtureStatement, uploadStatement } from '../helpers/bank';
import { unbalancedUsers, waitFor } from '../helpers/gateway';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('bank-admin');
const REQUISITES = { ...OPERATOR_REQUISITES, vatRate: 22, vatNote: '', directorName: 'Петров П. П.', accountantName: 'Сидорова А. В.' };
const ROMASHKA = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
const SOKOLOVA = { companyName: 'ИП Соколова Ирина Петровна', inn: '500100732259', kpp: '', address: '141400, г. Химки, ул. Ленина, д. 5' };

let app: TestApp;
let smtp: FakeSmtp;
let admin: { token: string };
let romashka: { token: string; userId: string; email: string };
let sokolova: { token: string; userId: string; email: string };

const normal = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').replace(/\u2011/g, '-');
const balanceOf = async (token: string) => (await call(app.url, 'GET', '/api/balance', { token })).body.balance as number;
const issue = async (token: string, amount: number) => {
  const res = await call(app.url, 'POST', '/api/account/invoices', { token, body: { amount } });
  expect(res.status).toBe(201);
  return res.body as { number: number; date: string; validUntil: string; status: string; paymentPurpose: string; pdfUrl: string };
};
const invoiceOf = async (token: string, number: number) =>
  (await call(app.url, 'GET', '/api/account/invoices', { token })).body.invoices.find((i: { number: number }) => i.number === number);
const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin.token, body });
const auditOf = async (action: string) =>
  (await adminCall('GET', `/api/admin/audit?action=${action}`)).body.data as { targetId: string; after: Record<string, string> }[];

async function pdfText(path: string, token: string) {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return normal((await extractText(await getDocumentProxy(bytes), { mergePages: true })).text);
}

/** The fixture for two счета: the matching one (ООО «Ромашка») and the one paid short (ИП Соколова). */
const statementFor = (match: { number: number; amount: string }, short: { number: number; amount: string }) =>
  fixtureStatement({
    OPERATOR_ACCOUNT: REQUISITES.account,
    TOTAL_IN: '0.00',
    CLOSING: '0.00',
    MATCH_AMOUNT: match.amount,
    MATCH_INN: ROMASHKA.inn,
    MATCH_INVOICE: String(match.number),
    SHORT_AMOUNT: short.amount,
    SHORT_INN: SOKOLOVA.inn,
    SHORT_INVOICE: String(short.number),
  });

beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL, SMTP_URL: smtp.url, INVOICE_EXPIRY_SECONDS: '1' } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
  expect((await adminCall('PUT', '/api/admin/requisites', REQUISITES)).status).toBe(200);
  romashka = await registerUser(app.url);
  sokolova = await registerUser(app.url);
});

afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

describe('счёт на оплату', () => {
  test('a person without a company name and ИНН is refused with 409 telling them to fill the requisites', async () => {
    const res = await call(app.url, 'POST', '/api/account/invoices', { token: romashka.token, body: { amount: 15000 } });
    expect(res.status).toBe(409);
    expect(res.body.error.type).toBe('conflict');
    expect(res.body.error.message).toContain('укажите реквизиты покупателя — название и ИНН');
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: romashka.token, body: ROMASHKA })).status).toBe(200);
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: sokolova.token, body: SOKOLOVA })).status).toBe(200);
  });

  test('the PDF: the bank block, «Счёт на оплату №», both parties, the table, «В том числе НДС 22%», the amount in words, the purpose, valid until', async () => {
    const invoice = await issue(romashka.token, 15000);
    expect(invoice.status).toBe('pending');
    const lastDay = new Date(Date.parse(`${invoice.date}T00:00:00Z`) + 10 * 86_400_000).toISOString().slice(0, 10);
    expect(invoice.validUntil).toBe(lastDay);
    const dotted = (day: string) => `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
    const purpose = `Оплата по счёту № ${invoice.number} от ${dotted(invoice.date)} за доступ к API Conduit. В т.ч. НДС 22% — 2 704,92 руб.`;
    expect(normal(invoice.paymentPurpose)).toBe(purpose);

    const text = await pdfText(invoice.pdfUrl, romashka.token);
    expect(text).toContain(`${REQUISITES.bankName} БИК ${REQUISITES.bik} Сч. № ${REQUISITES.correspondentAccount} Банк получателя`);
    expect(text).toContain(`ИНН ${REQUISITES.inn} КПП ${REQUISITES.kpp} Сч. № ${REQUISITES.account} ${REQUISITES.companyName} Получатель`);
    expect(text).toMatch(new RegExp(`Счёт на оплату № ${invoice.number} от \\d+ [а-я]+ \\d{4} г\\.`));
    expect(text).toContain(
      `Поставщик (Исполнитель): ${REQUISITES.companyName}, ИНН ${REQUISITES.inn}, КПП ${REQUISITES.kpp}, ${REQUISITES.address}, ОГРН ${REQUISITES.ogrn}, р/с ${REQUISITES.account} в ${REQUISITES.bankName}, БИК ${REQUISITES.bik}, к/с ${REQUISITES.correspondentAccount}`,
    );
    expect(text).toContain(`Покупатель (Заказчик): ${ROMASHKA.companyName}, ИНН ${ROMASHKA.inn}, КПП ${ROMASHKA.kpp}, ${ROMASHKA.address}`);
    expect(text).toContain('№ Товары (работы, услуги) Кол-во Ед. Цена Сумма');
    expect(text).toContain('1 Пополнение баланса (предоплата за доступ к API Conduit) 1 усл. 15 000,00 15 000,00');
    expect(text).toContain('Итого: 15 000,00 В том числе НДС 22%: 2 704,92 Всего к оплате: 15 000,00');
    expect(text).toContain('Всего наименований 1, на сумму 15 000,00 ₽');
    expect(text).toContain('Пятнадцать тысяч рублей 00 копеек');
    expect(text).toContain(`«${purpose}»`);
    expect(text).toContain(`Счёт действителен до ${dotted(lastDay)} включительно`);
    expect(text).toMatch(/Руководитель _+ \/ Петров П\. П\. \/ Бухгалтер _+ \/ Сидорова А\. В\. \//);
    expect(text).not.toContain('Оплачен');
  });
});

describe('the 1C statement', () => {
  let match: { number: number; pdfUrl: string };
  let short: { number: number };
  let statement: Uint8Array;
  let importId: string;
  let payments: Record<string, { id: string; status: string; problem: string | null; invoiceNumber: number | null; duplicate: boolean }>;

  test('import proposes the match, names why the others are not, skips the outgoing one, and credits nothing', async () => {
    match = await issue(romashka.token, 15000);
    short = await issue(sokolova.token, 5000);
    statement = statementFor({ number: match.number, amount: '15000.00' }, { number: short.number, amount: '4999.00' });
    const before = [await balanceOf(romashka.token), await balanceOf(sokolova.token)];
    const res = await uploadStatement(app, admin.token, statement);
    expect(res.status).toBe(201);
    importId = res.body.importId;
    expect(res.body).toMatchObject({ encoding: 'windows-1251', periodFrom: '01.12.2026', periodTo: '03.12.2026' });
    expect(res.body.counts).toEqual({ documents: 4, incoming: 3, new: 3, duplicates: 0, outgoing: 1, foreign: 0 });
    payments = Object.fromEntries(res.body.payments.map((p: { documentNumber: string }) => [p.documentNumber, p]));
    expect(payments['512']).toMatchObject({
      status: 'matched',
      invoiceNumber: match.number,
      problem: null,
      duplicate: false,
      amount: 15000,
      receivedOn: '2026-12-02',
    });
    expect(payments['77']).toMatchObject({
      status: 'unmatched',
      invoiceNumber: short.number,
      problem: 'amount_mismatch',
      problemText: 'Сумма платежа не равна сумме счёта',
      payerKpp: '',
    });
    expect(payments['3091']).toMatchObject({ status: 'unmatched', invoiceNumber: null, problem: 'payer_unknown', payerInn: '5001007322' });
    expect([await balanceOf(romashka.token), await balanceOf(sokolova.token)]).toEqual(before);
    expect((await invoiceOf(romashka.token, match.number)).status).toBe('pending');
    expect((await auditOf('bank_statement.import')).some((a) => a.targetId === importId)).toBe(true);
  });

  test('confirm credits exactly the match: the balance, the statement line, the счёт paid (PDF says so), the notice mailed', async () => {
    const before = await balanceOf(romashka.token);
    const seen = smtp.messages.length;
    const res = await adminCall('POST', `/api/admin/bank-statements/${importId}/confirm`, { payments: [payments['512']!.id, payments['77']!.id] });
    expect(res.status).toBe(200);
    expect(res.body.payments).toEqual([
      { id: payments['512']!.id, outcome: 'credited', problem: null },
      { id: payments['77']!.id, outcome: 'not_matched', problem: 'amount_mismatch' },
    ]);
    expect(await balanceOf(romashka.token)).toBe(before + 15000);
    const invoice = await invoiceOf(romashka.token, match.number);
    expect(invoice).toMatchObject({ status: 'paid', paidOn: '2026-12-02' });
    const day = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);
    const lines = (await call(app.url, 'GET', `/api/account/statement?from=${day}&to=${day}&timeZone=Europe/Moscow`, { token: romashka.token })).body.lines;
    const credits = lines.filter((l: { kind: string; amount: number }) => l.kind === 'topup' && l.amount === 15000);
    expect(credits.map((l: { title: string; detail: string }) => [l.title, l.detail])).toEqual([['Пополнение баланса', 'Банковский перевод']]);
    expect(await pdfText(match.pdfUrl, romashka.token)).toStartWith('Оплачен 02.12.2026');
    const mail = await smtp.waitFor(romashka.email, 0, 10_000);
    expect(smtp.messages.length).toBeGreaterThan(seen);
    expect(mail.subject).toContain('Платёж зачислен');
    expect(normal(mail.text)).toContain(`Оплачен счёт № ${match.number}, деньги поступили 02.12.2026`);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the same statement again and the same confirm again credit nothing twice', async () => {
    const before = await balanceOf(romashka.token);
    const again = await uploadStatement(app, admin.token, statement, { raw: true });
    expect(again.status).toBe(201);
    expect(again.body.counts).toMatchObject({ incoming: 3, new: 0, duplicates: 3 });
    expect(again.body.payments.map((p: { duplicate: boolean }) => p.duplicate)).toEqual([true, true, true]);
    expect(again.body.payments.find((p: { documentNumber: string }) => p.documentNumber === '512').status).toBe('credited');
    const repeat = await adminCall('POST', `/api/admin/bank-statements/${importId}/confirm`, { payments: [payments['512']!.id] });
    expect(repeat.body.payments[0].outcome).toBe('already_credited');
    const elsewhere = await adminCall('POST', `/api/admin/bank-statements/${again.body.importId}/confirm`, { payments: [payments['512']!.id] });
    expect(elsewhere.body.payments[0].outcome).toBe('not_found');
    expect(await balanceOf(romashka.token)).toBe(before);
    const ledger = await app.sql<{ n: number }>(`select count(*)::int as n from ledger_entries where reference = $1`, [`bank:${payments['512']!.id}`]);
    expect(ledger[0]!.n).toBe(1);
  });

  test('unmatched: listed; assigned to its счёт by hand credits the payment once; the unknown payer ignored with a reason; audited', async () => {
    const unmatched = (await adminCall('GET', '/api/admin/bank-payments?status=unmatched')).body.payments.map((p: { id: string }) => p.id);
    expect(unmatched.sort()).toEqual([payments['77']!.id, payments['3091']!.id].sort());
    const before = await balanceOf(sokolova.token);
    const assigned = await adminCall('POST', `/api/admin/bank-payments/${payments['77']!.id}/assign`, { invoiceNumber: short.number });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ status: 'credited', invoiceNumber: short.number, creditedUserId: sokolova.userId });
    const twice = await adminCall('POST', `/api/admin/bank-payments/${payments['77']!.id}/assign`, { userId: sokolova.userId });
    expect(twice.status).toBe(409);
    expect(await balanceOf(sokolova.token)).toBe(before + 4999);
    expect((await invoiceOf(sokolova.token, short.number)).status).toBe('paid');

    const neither = await adminCall('POST', `/api/admin/bank-payments/${payments['3091']!.id}/assign`, {});
    expect(neither.status).toBe(400);
    const ignored = await adminCall('POST', `/api/admin/bank-payments/${payments['3091']!.id}/ignore`, { reason: 'Возврат плательщику' });
    expect(ignored.body).toMatchObject({ status: 'ignored', ignoredReason: 'Возврат плательщику' });
    expect((await adminCall('GET', '/api/admin/bank-payments?status=unmatched')).body.payments).toEqual([]);
    expect((await auditOf('bank_payment.assign')).map((a) => a.targetId)).toEqual([payments['77']!.id]);
    expect((await auditOf('bank_payment.ignore'))[0]!.after.reason).toBe('Возврат плательщику');
    expect((await auditOf('bank_payment.credit')).map((a) => a.targetId)).toEqual([payments['512']!.id]);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('an organisation', () => {
  test("money assigned to an organisation's account goes on its balance; the notice goes to its owners and accountants, not its developers", async () => {
    const [owner, accountant, developer] = [await registerUser(app.url), await registerUser(app.url), await registerUser(app.url)];
    // The organisations feature is another slice: its rows are made as it makes them (an account row of kind
    // 'organization', the organisation, its members).
    const [org] = await app.sql<{ id: string }>(
      `insert into users (email, password_hash, kind) values (gen_random_uuid()::text || '@organizations.invalid', '', 'organization') returning id`,
    );
    await app.sql(`insert into organizations (id, name, created_by) values ($1, 'ООО «Вектор»', $2)`, [org!.id, owner.userId]);
    for (const [member, role] of [
      [owner, 'owner'],
      [accountant, 'accountant'],
      [developer, 'developer'],
    ] as const) {
      await app.sql('insert into organization_members (organization_id, user_id, role) values ($1, $2, $3)', [org!.id, member.userId, role]);
    }
    const file = fixtureStatement({
      OPERATOR_ACCOUNT: REQUISITES.account,
      TOTAL_IN: '0.00',
      CLOSING: '0.00',
      MATCH_AMOUNT: '1234.00',
      MATCH_INN: '7700000001',
      MATCH_INVOICE: '1',
      SHORT_AMOUNT: '2.00',
      SHORT_INN: '7700000002',
      SHORT_INVOICE: '1',
    });
    const imported = await uploadStatement(app, admin.token, file);
    const payment = imported.body.payments.find((p: { documentNumber: string }) => p.documentNumber === '512');
    expect(payment).toMatchObject({ status: 'unmatched', problem: 'payer_unknown', duplicate: false });
    const assigned = await adminCall('POST', `/api/admin/bank-payments/${payment.id}/assign`, { userId: org!.id });
    expect(assigned.body).toMatchObject({ status: 'credited', creditedUserId: org!.id, invoiceNumber: null });
    const [row] = await app.sql<{ balance: string }>('select balance_nano::text as balance from users where id = $1', [org!.id]);
    expect(row!.balance).toBe('1234000000000');
    for (const member of [owner, accountant]) {
      const mail = await smtp.waitFor(member.email, 0, 10_000);
      expect(normal(mail.text)).toContain('Банковский перевод на 1 234,00 ₽ зачислен на баланс организации «ООО «Вектор»»');
    }
    await Bun.sleep(300);
    expect(smtp.messages.filter((m) => m.to.includes(developer.email))).toEqual([]);
    expect(smtp.messages.filter((m) => m.to.some((to) => to.endsWith('@organizations.invalid')))).toEqual([]);
  });
});

describe("the operator's счета", () => {
  test('mark paid credits the счёт once and is audited; cancel is audited; a paid счёт cannot be cancelled', async () => {
    const invoice = await issue(romashka.token, 2500.5);
    const before = await balanceOf(romashka.token);
    const listed = (await adminCall('GET', '/api/admin/invoices?status=pending')).body.invoices;
    expect(listed.map((i: { number: number }) => i.number)).toContain(invoice.number);
    const today = new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 27 * 3_600_000).toISOString().slice(0, 10);
    const future = await adminCall('POST', `/api/admin/invoices/${invoice.number}/mark-paid`, { paidOn: tomorrow });
    expect(future.status).toBe(400);
    expect(future.body.error.message).toContain('Дата оплаты не может быть позже сегодняшнего дня');
    const paid = await adminCall('POST', `/api/admin/invoices/${invoice.number}/mark-paid`, { paidOn: today, note: 'п/п 88' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', paidOn: today, paidBy: 'manual' });
    const again = await adminCall('POST', `/api/admin/invoices/${invoice.number}/mark-paid`, { paidOn: today, note: '' });
    expect(again.status).toBe(409);
    expect(await balanceOf(romashka.token)).toBe(before + 2500.5);
    const lines = (await call(app.url, 'GET', `/api/account/statement?from=${today}&to=${today}&timeZone=Europe/Moscow`, { token: romashka.token })).body.lines;
    expect(lines.filter((l: { detail: string }) => l.detail === `Банковский перевод по счёту № ${invoice.number}`)).toHaveLength(1);
    const audit = (await auditOf('invoice.mark_paid')).find((a) => a.targetId === String(invoice.number));
    expect(audit?.after).toMatchObject({ invoiceStatus: 'paid', amount: '2500.5', paidOn: today, reason: 'п/п 88' });
    expect((await adminCall('POST', `/api/admin/invoices/${invoice.number}/cancel`)).status).toBe(409);

    const other = await issue(romashka.token, 100);
    const cancelled = await adminCall('POST', `/api/admin/invoices/${other.number}/cancel`);
    expect(cancelled.body.status).toBe('cancelled');
    expect((await auditOf('invoice.cancel')).map((a) => a.targetId)).toContain(String(other.number));
    expect((await invoiceOf(romashka.token, other.number)).status).toBe('cancelled');
    expect((await adminCall('POST', '/api/admin/invoices/999999/mark-paid', { paidOn: today })).status).toBe(404);
    expect((await call(app.url, 'GET', '/api/admin/invoices', { token: romashka.token })).status).toBe(403);
    expect((await call(app.url, 'POST', `/api/admin/invoices/${other.number}/cancel`, { token: romashka.token })).status).toBe(403);
  });

  test('a счёт past INVOICE_VALID_DAYS is cancelled (at once to readers, by the job in the rows); a transfer for it waits unmatched', async () => {
    const invoice = await issue(sokolova.token, 3000);
    // The clock cannot be moved over HTTP: the счёт is made as if issued 11 days ago.
    await app.sql(`update invoices set created_at = now() - interval '11 days', valid_until = now() - interval '1 hour' where number = $1`, [invoice.number]);
    expect((await invoiceOf(sokolova.token, invoice.number)).status).toBe('cancelled');
    await waitFor(async () => (await app.sql<{ status: string }>('select status from invoices where number = $1', [invoice.number]))[0]!.status === 'cancelled');
    const file = fixtureStatement({
      OPERATOR_ACCOUNT: REQUISITES.account,
      TOTAL_IN: '0.00',
      CLOSING: '0.00',
      MATCH_AMOUNT: '3000.00',
      MATCH_INN: SOKOLOVA.inn,
      MATCH_INVOICE: String(invoice.number),
      SHORT_AMOUNT: '1.00',
      SHORT_INN: '7700000000',
      SHORT_INVOICE: '1',
    });
    // A different statement: its payments' numbers and dates differ from the first one's.
    const res = await uploadStatement(app, admin.token, new TextEncoder().encode(new TextDecoder('windows-1251').decode(file).replace('Номер=512', 'Номер=513')));
    expect(res.status).toBe(201);
    const payment = res.body.payments.find((p: { documentNumber: string }) => p.documentNumber === '513');
    expect(payment).toMatchObject({ status: 'unmatched', problem: 'invoice_cancelled', invoiceNumber: invoice.number });
  });

  test('a broken statement is refused with the line named; a non-operator cannot upload', async () => {
    const broken = new TextEncoder().encode('1CClientBankExchange\r\nВерсияФормата=1.03\r\nСекцияДокумент=Платежное поручение\r\nНомер=1\r\nКонецФайла\r\n');
    const res = await uploadStatement(app, admin.token, broken);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Выписка, строка 5: документ, начатый в строке 3, не закрыт строкой КонецДокумента');
    expect((await uploadStatement(app, romashka.token, broken)).status).toBe(403);
    expect((await uploadStatement(app, admin.token, new Uint8Array())).status).toBe(400);
  });
});
