// Closing documents issued monthly (issue 44, point 4): after a Moscow month ends the job issues an акт to every
// account with spending in it (persons and organisations), numbered 1, 2, 3 … in the year, and a second run
// issues nothing; the PDF is drawn from the facts frozen at issue, so the operator's later changes leave it as
// it was; a correction is a new document with a new number. Spending of past months is seeded as the gateway's
// settlement writes it (ledger rows of kind usage, reference «<batch>:<requests>»), as the invoice tests do.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { amountInWords } from '../../src/money-words';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('closing-admin');
const REQUISITES = { ...OPERATOR_REQUISITES, vatNote: '', vatRate: null, directorName: 'Петров П. П.' };
const GENITIVE = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];

/** Moscow's month (UTC+3 all year) `back` months before the current one, YYYY-MM. */
function monthBack(back: number): string {
  const now = new Date(Date.now() + 3 * 3_600_000);
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
  return d.toISOString().slice(0, 7);
}
const lastDayOf = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
/** «31 октября 2026 г.» */
const dated = (day: string) => `${Number(day.slice(8))} ${GENITIVE[Number(day.slice(5, 7)) - 1]} ${day.slice(0, 4)} г.`;
const normal = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ').replace(/\u2011/g, '-');

const LAST = monthBack(1);
const EARLIER = monthBack(2);
const EARLIEST = monthBack(3);

let app: TestApp;
let admin: { token: string };
let romashka: { token: string; userId: string; email: string };
let person: { token: string; userId: string; email: string };
let idle: { token: string; userId: string };
const org = { id: '', name: 'ООО «Вектор»' };

async function fetchPdf(path: string, token: string): Promise<{ text: string; status: number }> {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) return { text: await res.text(), status: res.status };
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const pdf = await getDocumentProxy(new Uint8Array(await res.arrayBuffer()));
  return { text: normal((await extractText(pdf, { mergePages: true })).text), status: 200 };
}

/** Spending in `month`: one settlement row on the day given, `requests` requests for `rubles`. */
async function spend(userId: string, month: string, day: number, rubles: number, requests: number) {
  const at = `${month}-${String(day).padStart(2, '0')}T12:00:00Z`;
  await app.sql(`insert into ledger_entries (user_id, amount_nano, kind, reference, created_at) values ($1, $2, 'usage', $3, $4)`, [
    userId,
    String(-BigInt(Math.round(rubles * 100)) * 10_000_000n),
    `seed-${userId.slice(0, 8)}-${month}-${day}:${requests}`,
    at,
  ]);
}

const runJob = () => app.instance.services.statement.closingJob.runOnce();
const listOf = async (token: string) => (await call(app.url, 'GET', '/api/account/documents', { token })).body;
const monthOf = (list: { months: { month: string }[] }, month: string) => list.months.find((m) => m.month === month) as any;

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
  romashka = await registerUser(app.url);
  person = await registerUser(app.url);
  idle = await registerUser(app.url);
  const requisites = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
  expect((await call(app.url, 'PUT', '/api/account/requisites', { token: romashka.token, body: requisites })).status).toBe(200);
  // An organisation: its own account row (kind organization) and its requisites with ОГРН and bank details.
  const [row] = await app.sql<{ id: string }>(
    `insert into users (email, password_hash, kind) values ('org-' || gen_random_uuid() || '@organizations.invalid', '', 'organization') returning id`,
  );
  org.id = row!.id;
  await app.sql('insert into organizations (id, name) values ($1, $2)', [org.id, org.name]);
  await app.sql(
    `insert into customer_requisites (user_id, inn, kpp, ogrn, address, bank_name, bik, account, correspondent_account)
     values ($1, '7709876543', '770901001', '1157746123456', '101000, г. Москва, ул. Мясницкая, д. 5', 'ПАО «Сбербанк»', '044525225', '40702810938000012345', '30101810400000000225')`,
    [org.id],
  );
  await spend(romashka.userId, LAST, 10, 1000, 7);
  await spend(romashka.userId, LAST, 20, 234.56, 3);
  await spend(person.userId, LAST, 11, 99.99, 1);
  await spend(org.id, LAST, 12, 5000, 120);
  for (const who of [romashka.userId, person.userId]) {
    await spend(who, EARLIER, 5, 600, 2);
    await spend(who, EARLIEST, 5, 300, 2);
  }
});

afterAll(async () => {
  await app?.close();
});

describe('the monthly issue', () => {
  test("without the operator's requisites the job issues nothing; the month's old address says the акт is not issued yet", async () => {
    expect((await runJob()).issued).toEqual([]);
    const res = await call(app.url, 'GET', `/api/account/documents/${LAST}/act.pdf`, { token: romashka.token });
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('not_found');
    expect(res.body.error.message).toContain('ещё не выпущен');
  });

  test('after the month ends the job issues one акт per account with spending (persons and the organisation), numbered 1, 2, 3 in the year', async () => {
    expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
    const run = await runJob();
    expect(run).toMatchObject({ ran: true, month: LAST });
    const issued = run.issued.map((d) => ({ user: d.userId, kind: d.kind, number: d.number, date: d.date, amount: d.amountNano }));
    expect(issued).toEqual([
      { user: romashka.userId, kind: 'act', number: 1, date: lastDayOf(LAST), amount: 1_234_560_000_000n },
      { user: person.userId, kind: 'act', number: 2, date: lastDayOf(LAST), amount: 99_990_000_000n },
      { user: org.id, kind: 'act', number: 3, date: lastDayOf(LAST), amount: 5_000_000_000_000n },
    ]);
    const [{ count }] = (await app.sql<{ count: string }>('select count(*)::text as count from closing_documents where user_id = $1', [idle.userId])) as [
      { count: string },
    ];
    expect(count).toBe('0');
  });

  test('running again (the job or the operator) issues nothing twice', async () => {
    expect((await runJob()).issued).toEqual([]);
    const again = await call(app.url, 'POST', '/api/admin/documents/issue', { token: admin.token, body: { month: LAST } });
    expect(again.status).toBe(200);
    expect(again.body.issued).toEqual([]);
    const [{ count }] = (await app.sql<{ count: string }>('select count(*)::text as count from closing_documents')) as [{ count: string }];
    expect(count).toBe('3');
  });
});

describe("the customer's documents", () => {
  test('the list shows the issued акт of the month (kind, number, date, amount, status, pdfUrl) and the current month as a running total', async () => {
    const list = await listOf(romashka.token);
    const last = monthOf(list, LAST);
    expect(last.documents).toHaveLength(1);
    expect(last.documents[0]).toMatchObject({
      kind: 'act',
      number: 1,
      date: lastDayOf(LAST),
      month: LAST,
      amount: 1234.56,
      vat: 0,
      status: 'issued',
      corrects: null,
    });
    expect(last.documents[0].pdfUrl).toBe(`/api/account/documents/${last.documents[0].id}.pdf`);
    expect(last.actUrl).toBe(last.documents[0].pdfUrl);
    expect(list.current).toMatchObject({ month: monthBack(0), spent: 0 });
    expect(monthOf(list, monthBack(0))).toMatchObject({ current: true, documents: [], actUrl: null });
  });

  test('the акт PDF: its number and date, both parties with requisites, the lines, Итого, «Без НДС», the amount in words, the signatures', async () => {
    const { pdfUrl } = monthOf(await listOf(romashka.token), LAST).documents[0];
    const { text } = await fetchPdf(pdfUrl, romashka.token);
    expect(text).toContain(`Акт № 1 от ${dated(lastDayOf(LAST))}`);
    expect(text).toContain(
      `Исполнитель: ООО «Кондуит», ИНН ${REQUISITES.inn}, КПП ${REQUISITES.kpp}, ${REQUISITES.address}, ОГРН ${REQUISITES.ogrn}, р/с ${REQUISITES.account} ` +
        `в ${REQUISITES.bankName}, БИК ${REQUISITES.bik}, к/с ${REQUISITES.correspondentAccount}`,
    );
    expect(text).toContain(`Заказчик: ООО «Ромашка», ИНН 7712345678, КПП 771201001, 125009, г. Москва, ул. Тверская, д. 1, e-mail ${romashka.email}`);
    expect(text).toContain('(10 запросов) 1 усл. 1 234,56 1 234,56');
    expect(text).toContain('Итого: 1 234,56 Без НДС');
    expect(text).toContain('Всего оказано услуг 1, на сумму 1 234,56 ₽');
    expect(text).toContain(amountInWords(123_456n));
    expect(text).toContain('Вышеперечисленные услуги выполнены полностью и в срок. Заказчик претензий по объёму, качеству и срокам оказания услуг не имеет.');
    expect(text).toMatch(/Руководитель _+ \/ Петров П\. П\. \//);
  });

  test("the organisation's акт names it with its ОГРН and bank details", async () => {
    const [row] = await app.sql<{ id: string }>('select id from closing_documents where user_id = $1', [org.id]);
    const facts = (await app.sql<{ facts: any }>('select facts from closing_documents where id = $1', [row!.id]))[0]!.facts;
    expect(facts.customer).toMatchObject({ companyName: org.name, inn: '7709876543', ogrn: '1157746123456', bankName: 'ПАО «Сбербанк»', email: '' });
  });

  test("the month's old address serves its issued акт; the current month's says none is issued yet", async () => {
    const { pdfUrl } = monthOf(await listOf(person.token), LAST).documents[0];
    const res = await fetch(`${app.url}/api/account/documents/${LAST}/act.pdf`, { headers: { authorization: `Bearer ${person.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-location')).toBe(pdfUrl);
    expect((await fetchPdf(`/api/account/documents/${LAST}/act.pdf`, person.token)).text).toContain('Акт № 2 от');
    const current = await call(app.url, 'GET', `/api/account/documents/${monthBack(0)}/act.pdf`, { token: person.token });
    expect(current.status).toBe(404);
    expect(current.body.error.message).toContain('выпускаются после окончания месяца');
  });

  test("another customer's document id, an unknown id and no token are refused", async () => {
    const { pdfUrl } = monthOf(await listOf(romashka.token), LAST).documents[0];
    const other = await call(app.url, 'GET', pdfUrl, { token: person.token });
    expect(other.status).toBe(404);
    expect(other.body.error).toEqual({ type: 'not_found', message: 'Документ не найден' });
    expect((await call(app.url, 'GET', '/api/account/documents/00000000-0000-4000-8000-000000000000.pdf', { token: person.token })).status).toBe(404);
    expect((await call(app.url, 'GET', '/api/account/documents/nonsense.pdf', { token: person.token })).status).toBe(404);
    expect((await call(app.url, 'GET', pdfUrl)).status).toBe(401);
  });
});

describe('an issued document never changes', () => {
  test("the operator's new requisites leave the issued PDF as it was", async () => {
    const { pdfUrl } = monthOf(await listOf(romashka.token), LAST).documents[0];
    const before = (await fetchPdf(pdfUrl, romashka.token)).text;
    const changed = { ...REQUISITES, companyName: 'ООО «Кондуит Плюс»', address: '190000, г. Санкт-Петербург, Невский пр., д. 1', vatRate: 20 };
    expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: changed })).status).toBe(200);
    await call(app.url, 'PUT', '/api/account/requisites', {
      token: romashka.token,
      body: { companyName: 'ООО «Ромашка-2»', inn: '7712345678', kpp: '771201001', address: '' },
    });
    const after = (await fetchPdf(pdfUrl, romashka.token)).text;
    expect(after).toBe(before);
    expect(after).not.toContain('Кондуит Плюс');
  });

  test('a correction gets the next number, names the old one and supersedes it; the old PDF still downloads unchanged (audited)', async () => {
    const old = monthOf(await listOf(romashka.token), LAST).documents[0];
    const oldText = (await fetchPdf(old.pdfUrl, romashka.token)).text;
    expect((await call(app.url, 'POST', `/api/admin/documents/${old.id}/correct`, { token: romashka.token })).status).toBe(403);
    const res = await call(app.url, 'POST', `/api/admin/documents/${old.id}/correct`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.superseded).toMatchObject({ id: old.id, number: 1, status: 'superseded' });
    expect(res.body.document).toMatchObject({ kind: 'act', number: 4, status: 'issued', corrects: old.id, vat: 205.76, amount: 1234.56 });

    const month = monthOf(await listOf(romashka.token), LAST);
    expect(month.documents.map((d: { number: number; status: string }) => [d.number, d.status])).toEqual([
      [1, 'superseded'],
      [4, 'issued'],
    ]);
    expect(month.actUrl).toBe(res.body.document.pdfUrl);
    expect((await fetchPdf(old.pdfUrl, romashka.token)).text).toBe(oldText);
    const fresh = (await fetchPdf(res.body.document.pdfUrl, romashka.token)).text;
    expect(fresh).toContain('Акт № 4 от');
    expect(fresh).toContain(`взамен документа «Акт № 1 от ${lastDayOf(LAST).split('-').reverse().join('.')}»`);
    expect(fresh).toContain('ООО «Кондуит Плюс»');
    expect(fresh).toContain('В том числе НДС 20%: 205,76');

    const again = await call(app.url, 'POST', `/api/admin/documents/${old.id}/correct`, { token: admin.token });
    expect(again.status).toBe(409);
    const audit = await call(app.url, 'GET', '/api/admin/audit?limit=5', { token: admin.token });
    expect(audit.body.data.find((e: { action: string }) => e.action === 'documents.correct')).toMatchObject({ targetId: old.id, after: { number: 4 } });
  });
});
