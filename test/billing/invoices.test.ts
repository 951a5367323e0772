// Счёт на оплату before paying and the акт an accountant accepts (issue 41 point 6), over HTTP: a счёт for
// 1234.56 is issued with the next number, listed, and its PDF read back as text (unpdf): the bank block on top,
// both parties with ИНН/КПП/address, the table with unit and price, the VAT line, «Всего к оплате», the amount
// in words, the purpose, «Руководитель» with the operator's head named, «Бухгалтер» left blank, М.П. The amounts are checked, numbers are sequential under
// concurrent requests, another account's счёт is not found, a счёт keeps the requisites it was issued with,
// and dates and month boundaries follow Moscow time.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { extractText, getDocumentProxy } from 'unpdf';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('invoices-admin');
const REQUISITES = {
  ...OPERATOR_REQUISITES,
  vatNote: 'Без НДС',
  // The head's name printed at the signature line; no chief accountant's: that line keeps its blank.
  directorName: 'Петров П. П.',
  accountantName: '',
};
const CUSTOMER = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };

let app: TestApp;
let admin: { token: string };
let user: { token: string; userId: string; email: string };

const normal = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').replace(/\u2011/g, '-');

async function pdfText(path: string, token: string) {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
  return { text: normal((await extractText(await getDocumentProxy(bytes), { mergePages: true })).text), disposition: res.headers.get('content-disposition') };
}

const issue = (token: string, amount: unknown) => call(app.url, 'POST', '/api/account/invoices', { token, body: { amount } });

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
  user = await registerUser(app.url);
});

afterAll(async () => {
  await app?.close();
});

describe('счёт на оплату', () => {
  test("without the operator's requisites no счёт can be issued (409), and the list says so", async () => {
    const list = await call(app.url, 'GET', '/api/account/invoices', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ requisitesReady: false, currency: 'RUB', minAmount: 100, maxAmount: 10_000_000, invoices: [] });
    const res = await issue(user.token, 1000);
    expect(res.status).toBe(409);
    expect(res.body.error.type).toBe('conflict');
    expect(res.body.error.message).toContain('оператор сервиса ещё не указал реквизиты');
    expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
  });

  test('the amount is checked: a JSON number from 100 to 10 000 000 with at most two decimals; a credential is needed', async () => {
    for (const amount of [99.99, 0, -5, 10_000_000.01, 1234.567, '1234.56', null, Number.NaN]) {
      const res = await issue(user.token, amount);
      expect({ amount, status: res.status, type: res.body.error?.type }).toEqual({ amount, status: 400, type: 'invalid_request_error' });
      expect(normal(res.body.error.message)).toContain('сумма счёта — от 100 до 10 000 000, не больше двух знаков после запятой');
    }
    expect((await call(app.url, 'GET', '/api/account/invoices', { token: user.token })).body.invoices).toEqual([]);
    expect((await call(app.url, 'POST', '/api/account/invoices', { body: { amount: 1000 } })).status).toBe(401);
  });

  test('a счёт for 1234.56: numbered, listed, its PDF laid out as a Russian счёт with the amount in words and the signature lines', async () => {
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: user.token, body: CUSTOMER })).status).toBe(200);
    const res = await issue(user.token, 1234.56);
    expect(res.status).toBe(201);
    const invoice = res.body;
    expect(invoice).toMatchObject({ amount: 1234.56, currency: 'RUB', pdfUrl: `/api/account/invoices/${invoice.number}.pdf` });
    expect(Number.isInteger(invoice.number) && invoice.number > 0).toBe(true);
    const moscowDay = new Date(Date.parse(invoice.createdAt) + 3 * 3_600_000).toISOString().slice(0, 10);
    expect(invoice.date).toBe(moscowDay);
    const list = await call(app.url, 'GET', '/api/account/invoices', { token: user.token });
    expect(list.body.requisitesReady).toBe(true);
    expect(list.body.invoices).toEqual([invoice]);

    const { text, disposition } = await pdfText(invoice.pdfUrl, user.token);
    expect(disposition).toBe(`attachment; filename="conduit-schet-${invoice.number}.pdf"`);
    const months = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];
    const date = `${Number(moscowDay.slice(8))} ${months[Number(moscowDay.slice(5, 7)) - 1]} ${moscowDay.slice(0, 4)} г.`;
    // The bank block comes first: the bank with БИК and correspondent account, then the recipient.
    const bank = `${REQUISITES.bankName} БИК ${REQUISITES.bik} Сч. № ${REQUISITES.correspondentAccount} Банк получателя`;
    const recipient = `ИНН ${REQUISITES.inn} КПП ${REQUISITES.kpp} Сч. № ${REQUISITES.account} ${REQUISITES.companyName} Получатель`;
    expect(text.startsWith(`${bank} ${recipient} Счёт на оплату № ${invoice.number} от ${date}`)).toBe(true);
    expect(text).toContain(
      `Поставщик (Исполнитель): ${REQUISITES.companyName}, ИНН ${REQUISITES.inn}, КПП ${REQUISITES.kpp}, ${REQUISITES.address}, ОГРН ${REQUISITES.ogrn}, р/с ${REQUISITES.account} в ${REQUISITES.bankName}`,
    );
    expect(text).toContain(`Покупатель (Заказчик): ${CUSTOMER.companyName}, ИНН ${CUSTOMER.inn}, КПП ${CUSTOMER.kpp}, ${CUSTOMER.address}, e-mail ${user.email}`);
    expect(text).toContain('№ Товары (работы, услуги) Кол-во Ед. Цена Сумма');
    expect(text).toContain('1 Пополнение баланса (предоплата за доступ к API Conduit) 1 усл. 1 234,56 1 234,56');
    expect(text).toContain('Итого: 1 234,56 Без НДС Всего к оплате: 1 234,56');
    expect(text).toContain('Всего наименований 1, на сумму 1 234,56 ₽');
    expect(text).toContain('Одна тысяча двести тридцать четыре рубля 56 копеек');
    const dotted = `${moscowDay.slice(8, 10)}.${moscowDay.slice(5, 7)}.${moscowDay.slice(0, 4)}`;
    expect(text).toContain(`«Оплата по счёту № ${invoice.number} от ${dotted} за доступ к API Conduit. Без НДС»`);
    expect(text).toMatch(/Руководитель _+ \/ Петров П\. П\. \/ Бухгалтер _+ \/ _+ \/ М\.П\./);
    expect(text).not.toContain('UTC');
  });

  test('numbers are sequential across accounts, also when requested at once; each account lists only its own', async () => {
    const other = await registerUser(app.url);
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: other.token, body: { ...CUSTOMER, inn: '7712345679' } })).status).toBe(200);
    const first = (await issue(user.token, 500)).body.number as number;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => issue(i % 2 ? other.token : user.token, 1000 + i)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const numbers = results.map((r) => r.body.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => first + 1 + i));
    const mine = (await call(app.url, 'GET', '/api/account/invoices', { token: user.token })).body.invoices.map((i: { number: number }) => i.number);
    const theirs = (await call(app.url, 'GET', '/api/account/invoices', { token: other.token })).body.invoices.map((i: { number: number }) => i.number);
    expect(mine).toHaveLength(6);
    expect(theirs).toHaveLength(4);
    expect(mine.some((n: number) => theirs.includes(n))).toBe(false);
    // Newest first.
    expect(mine).toEqual([...mine].sort((a: number, b: number) => b - a));
    // Another account's счёт, an unknown number and a malformed name are all simply not found.
    for (const path of [
      `/api/account/invoices/${theirs[0]}.pdf`,
      '/api/account/invoices/999999.pdf',
      '/api/account/invoices/0.pdf',
      '/api/account/invoices/abc.pdf',
    ]) {
      const res = await call(app.url, 'GET', path, { token: user.token });
      expect({ path, status: res.status, type: res.body.error.type }).toEqual({ path, status: 404, type: 'not_found' });
    }
    expect((await call(app.url, 'GET', `/api/account/invoices/${first}.pdf`)).status).toBe(401);
  });

  test('a счёт keeps the requisites it was issued with; a new one takes the new ones; without a company name and ИНН none is issued', async () => {
    const person = await registerUser(app.url);
    const refused = await issue(person.token, 100);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('сначала укажите реквизиты покупателя — название и ИНН');
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: person.token, body: CUSTOMER })).status).toBe(200);
    const before = (await issue(person.token, 100)).body;
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: person.token, body: { ...CUSTOMER, companyName: 'ООО «Василёк»' } })).status).toBe(200);
    const after = (await issue(person.token, 100)).body;
    const old = (await pdfText(before.pdfUrl, person.token)).text;
    expect(old).toContain(`Покупатель (Заказчик): ${CUSTOMER.companyName}, ИНН ${CUSTOMER.inn}`);
    expect(old).toContain('Сто рублей 00 копеек');
    expect((await pdfText(after.pdfUrl, person.token)).text).toContain(`Покупатель (Заказчик): ООО «Василёк», ИНН ${CUSTOMER.inn}`);
  });

  test('the date is the Moscow day: a счёт issued at 22:30 UTC on 30 November is dated 1 December', async () => {
    const res = await issue(user.token, 2000);
    // The clock cannot be moved over HTTP: the row's moment is set as if it had been issued then.
    await app.sql('update invoices set created_at = $1 where number = $2', ['2026-11-30T22:30:00Z', res.body.number]);
    const listed = (await call(app.url, 'GET', '/api/account/invoices', { token: user.token })).body.invoices;
    expect(listed.find((i: { number: number }) => i.number === res.body.number).date).toBe('2026-12-01');
    expect((await pdfText(res.body.pdfUrl, user.token)).text).toContain(`Счёт на оплату № ${res.body.number} от 1 декабря 2026 г.`);
  });

  test('at most 20 счетов a day for one account: the next is 429 with Retry-After', async () => {
    const busy = await registerUser(app.url);
    expect((await call(app.url, 'PUT', '/api/account/requisites', { token: busy.token, body: CUSTOMER })).status).toBe(200);
    for (let i = 0; i < 20; i++) expect((await issue(busy.token, 100 + i)).status).toBe(201);
    const refused = await issue(busy.token, 100);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({ type: 'rate_limit_exceeded', message: 'За сутки можно выставить не больше 20 счетов: повторите позже' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(86_000);
  });
});

describe('акт by Moscow months', () => {
  test("spending settled at 21:30 UTC on a month's last day belongs to the next month's act (00:30 in Moscow)", async () => {
    const person = await registerUser(app.url);
    // Past months' spending cannot be made over HTTP today: the ledger rows are written as the gateway's
    // settlement writes them (kind usage, reference «<batch>:<requests>»), dated in those months.
    await app.sql(
      `insert into ledger_entries (user_id, amount_nano, kind, reference, created_at) values
        ($1, -1000000000000, 'usage', 'test-batch-1:7', '2025-01-31T20:59:00Z'),
        ($1, -234560000000, 'usage', 'test-batch-2:3', '2025-01-31T21:30:00Z')`,
      [person.userId],
    );
    // The months' акты are issued once each month has ended (issue 44); the month's address leads to it.
    for (const month of ['2025-01', '2025-02']) {
      expect((await call(app.url, 'POST', '/api/admin/documents/issue', { token: admin.token, body: { month } })).status).toBe(200);
    }
    const january = (await pdfText('/api/account/documents/2025-01/act.pdf', person.token)).text;
    expect(january).toContain('Период: 01.01.2025 — 31.01.2025');
    expect(january).toContain('1 Запросы к моделям через API, январь 2025 (7 запросов) 1 усл. 1 000,00 1 000,00');
    expect(january).toContain('Одна тысяча рублей 00 копеек');
    const february = (await pdfText('/api/account/documents/2025-02/act.pdf', person.token)).text;
    expect(february).toContain('Период: 01.02.2025 — 28.02.2025');
    expect(february).toContain('1 Запросы к моделям через API, февраль 2025 (3 запроса) 1 усл. 234,56 234,56');
    expect(february).toContain('Итого: 234,56 Без НДС');
    expect(february).toContain('Двести тридцать четыре рубля 56 копеек');
    expect(february).toContain(`Заказчик: Владелец учётной записи с e-mail ${person.email}`);
    expect(february).toMatch(/ИСПОЛНИТЕЛЬ ООО «Кондуит» Руководитель _+ \/ Петров П\. П\. \/ М\.П\. ЗАКАЗЧИК Владелец учётной записи/);
    const months = (await call(app.url, 'GET', '/api/account/documents', { token: person.token })).body.months;
    expect(months.find((m: { month: string }) => m.month === '2025-01')).toMatchObject({ spent: 1000 });
    expect(months.find((m: { month: string }) => m.month === '2025-02')).toMatchObject({ spent: 234.56 });
  });
});
