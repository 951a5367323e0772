// Closing documents from the operator's side (issue 44, point 4): issuing a month by hand (audited, not a month
// still running), the УПД when the operator turns it on — status 1 with НДС, 2 without — and a month's files:
// every PDF in one ZIP (read back with unzip -l) and the registry CSV. Spending of past months is seeded as the
// gateway's settlement writes it, as in closing-documents.test.ts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('closing-operator');
const REQUISITES = { ...OPERATOR_REQUISITES, vatNote: '', directorName: 'Петров П. П.', accountantName: 'Сидорова А. В.' };

function monthBack(back: number): string {
  const now = new Date(Date.now() + 3 * 3_600_000);
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
}
const lastDayOf = (month: string) => new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
const normal = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ').replace(/\u2011/g, '-');

/** Two finished months: one with НДС 20% (УПД status 1), one without (status 2). */
const WITH_VAT = monthBack(2);
const WITHOUT_VAT = monthBack(3);
/** Issued by two requests at once. */
const RACED = monthBack(4);

let app: TestApp;
let admin: { token: string };
let buyer: { token: string; userId: string; email: string };
let other: { token: string; userId: string; email: string };

async function spend(userId: string, month: string, day: number, rubles: number, requests: number) {
  await app.sql(`insert into ledger_entries (user_id, amount_nano, kind, reference, created_at) values ($1, $2, 'usage', $3, $4)`, [
    userId,
    String(-BigInt(Math.round(rubles * 100)) * 10_000_000n),
    `seed-${userId.slice(0, 8)}-${month}:${requests}`,
    `${month}-${day}T12:00:00Z`,
  ]);
}

async function pdfText(path: string, token: string): Promise<string> {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const pdf = await getDocumentProxy(new Uint8Array(await res.arrayBuffer()));
  return normal((await extractText(pdf, { mergePages: true })).text);
}

const setRequisites = (body: Record<string, unknown>) => call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: { ...REQUISITES, ...body } });
const issue = (month: string, token = admin.token) => call(app.url, 'POST', '/api/admin/documents/issue', { token, body: { month } });

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
  buyer = await registerUser(app.url);
  other = await registerUser(app.url);
  const requisites = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
  expect((await call(app.url, 'PUT', '/api/account/requisites', { token: buyer.token, body: requisites })).status).toBe(200);
  for (const month of [WITH_VAT, WITHOUT_VAT, RACED]) {
    await spend(buyer.userId, month, 15, 1200, 40);
    await spend(other.userId, month, 16, 50, 2);
  }
});

afterAll(async () => {
  await app?.close();
});

describe('the operator issues a month', () => {
  test('the two settings are checked, kept and audited with the requisites', async () => {
    const bad = await setRequisites({ closingDocuments: 'invoice', updStatus: 3 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('act (акт), act_and_upd (акт и УПД) или upd (УПД)');
    expect(bad.body.error.message).toContain('статус УПД: 1, 2 или null');
    const put = await setRequisites({ vatRate: 20, closingDocuments: 'act_and_upd' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ closingDocuments: 'act_and_upd', updStatus: null, vatRate: 20 });
  });

  test('only an operator issues, and not a month still running', async () => {
    expect((await issue(WITH_VAT, buyer.token)).status).toBe(403);
    const running = await issue(monthBack(0));
    expect(running.status).toBe(400);
    expect(running.body.error.message).toContain('Месяц ещё не закончился');
    expect((await issue('2026-13')).status).toBe(400);
  });

  test('with НДС: an акт and a УПД of status 1 per customer, the УПД showing the rate and the tax; the run is audited', async () => {
    const res = await issue(WITH_VAT);
    expect(res.status).toBe(200);
    expect(res.body.issued.map((d: { kind: string; userId: string; vat: number }) => [d.kind, d.userId, d.vat])).toEqual([
      ['act', buyer.userId, 200],
      ['upd', buyer.userId, 200],
      ['act', other.userId, 8.33],
      ['upd', other.userId, 8.33],
    ]);
    const upd = res.body.issued[1];
    const text = await pdfText(upd.pdfUrl, buyer.token);
    expect(text).toContain('Универсальный передаточный документ');
    expect(text).toMatch(/Статус: 1 /);
    expect(text).toContain(`Счёт-фактура № ${upd.number} от`);
    expect(text).toContain('ИНН/КПП продавца 7701234567/770101001');
    expect(text).toContain('ИНН/КПП покупателя 7712345678/771201001');
    expect(text).toContain('876 усл. ед. 1 1 000,00 1 000,00 без акциза 20% 200,00 1 200,00');
    expect(text).toContain('Всего к оплате 1 000,00 X 200,00 1 200,00');
    expect(text).toContain('Товар (груз) передал / услуги, результаты работ, права сдал');
    expect(text).toContain('Товар (груз) получил / услуги, результаты работ, права принял');
    expect(await pdfText(res.body.issued[0].pdfUrl, buyer.token)).toContain('В том числе НДС 20%: 200,00');
    const audit = await call(app.url, 'GET', '/api/admin/audit?limit=5', { token: admin.token });
    expect(audit.body.data.find((e: { action: string }) => e.action === 'documents.issue')).toMatchObject({
      adminEmail: ADMIN_EMAIL,
      after: { month: WITH_VAT, issued: 4 },
    });
  });

  test('without НДС: the УПД has status 2 and «без НДС» in its tax columns', async () => {
    expect((await setRequisites({ vatRate: null, closingDocuments: 'upd' })).status).toBe(200);
    const res = await issue(WITHOUT_VAT);
    expect(res.body.issued.map((d: { kind: string }) => d.kind)).toEqual(['upd', 'upd']);
    const text = await pdfText(res.body.issued[0].pdfUrl, buyer.token);
    expect(text).toMatch(/Статус: 2 /);
    expect(text).toContain('1 200,00 1 200,00 без акциза без НДС без НДС 1 200,00');
    // A УПД alone stands in for the акт at the month's old address.
    const byMonth = await fetch(`${app.url}/api/account/documents/${WITHOUT_VAT}/act.pdf`, { headers: { authorization: `Bearer ${buyer.token}` } });
    expect(byMonth.headers.get('content-location')).toBe(res.body.issued[0].pdfUrl);
  });
});

describe('issuing at once', () => {
  test('two runs of one month at the same time issue each document once, with numbers neither shared nor skipped', async () => {
    const [a, b] = await Promise.all([issue(RACED), issue(RACED)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.issued.length + b.body.issued.length).toBe(2);
    const rows = await app.sql<{ year: number; number: number }>('select year, number from closing_documents where month = $1 order by number', [RACED]);
    expect(rows).toHaveLength(2);
    const numbers = await app.sql<{ year: number; number: number }>('select year, number from closing_documents where year = $1 order by number', [rows[0]!.year]);
    expect(numbers.map((r) => r.number)).toEqual(numbers.map((_, i) => i + 1));
  });
});

describe("a month's files", () => {
  test('the list of a month for the operator: every document with its customer and the file name in the archive', async () => {
    const res = await call(app.url, 'GET', `/api/admin/documents?month=${WITH_VAT}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.documents).toHaveLength(4);
    expect(res.body.documents[0]).toMatchObject({ kind: 'act', customer: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', amount: 1200 });
    expect(res.body.documents[1].fileName).toBe(`upd-${res.body.documents[1].number}-${WITH_VAT.slice(0, 4)}.pdf`);
    expect((await call(app.url, 'GET', `/api/admin/documents?month=${WITH_VAT}`, { token: buyer.token })).status).toBe(403);
  });

  test('the ZIP holds every PDF of the month (unzip lists them and tests their checksums)', async () => {
    const list = (await call(app.url, 'GET', `/api/admin/documents?month=${WITH_VAT}`, { token: admin.token })).body.documents;
    const res = await fetch(`${app.url}/api/admin/documents/${WITH_VAT}.zip`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    const dir = mkdtempSync(join(tmpdir(), 'closing-zip-'));
    try {
      const file = join(dir, 'month.zip');
      writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
      const listing = spawnSync('unzip', ['-l', file], { encoding: 'utf8' });
      expect(listing.status).toBe(0);
      for (const d of list) expect(listing.stdout).toContain(d.fileName);
      expect(listing.stdout).toMatch(/\s4 files/);
      const check = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
      expect(check.status).toBe(0);
      expect(check.stdout).toContain('No errors detected');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await fetch(`${app.url}/api/admin/documents/${WITH_VAT}.zip`, { headers: { authorization: `Bearer ${buyer.token}` } })).status).toBe(403);
  });

  test('the registry CSV: UTF-8 with BOM, «;», one line per document with number, date, kind, customer, ИНН, КПП, amount, НДС, status', async () => {
    const res = await fetch(`${app.url}/api/admin/documents/${WITH_VAT}/registry.csv`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Номер;Дата;Вид;Заказчик;ИНН;КПП;Сумма;НДС;Статус;Исправляет');
    const day = lastDayOf(WITH_VAT).split('-').reverse().join('.');
    const list = (await call(app.url, 'GET', `/api/admin/documents?month=${WITH_VAT}`, { token: admin.token })).body.documents;
    expect(lines.slice(1)).toEqual([
      `${list[0].number};${day};Акт;ООО «Ромашка»;7712345678;771201001;1200,00;200,00;действует;`,
      `${list[1].number};${day};УПД;ООО «Ромашка»;7712345678;771201001;1200,00;200,00;действует;`,
      `${list[2].number};${day};Акт;${other.email};;;50,00;8,33;действует;`,
      `${list[3].number};${day};УПД;${other.email};;;50,00;8,33;действует;`,
    ]);
    expect((await fetch(`${app.url}/api/admin/documents/${WITH_VAT}/registry.csv`, { headers: { authorization: `Bearer ${buyer.token}` } })).status).toBe(403);
  });
});
