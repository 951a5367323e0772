// The statement of account, its CSV file and the monthly closing documents (issue 33, point 7), the
// support contact (point 8) and the site root for browsers (point 13), over HTTP. The PDFs are read back
// as text (unpdf) and checked for the requisites, the month, the lines and the totals.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { extractText, getDocumentProxy } from 'unpdf';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient, settleAll } from '../helpers/gateway';
import { amountInWords } from '../../src/money-words';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const SUPPORT = 'support@conduit.example';
const ADMIN_EMAIL = uniqueEmail('statement-admin');
const REQUISITES = OPERATOR_REQUISITES;

let upstream: FakeUpstream;
let yk: FakeYookassa;
let app: TestApp;
let admin: { token: string };
let user: { token: string; userId: string; email: string; password: string };

const today = () => new Date().toISOString().slice(0, 10);
/** The documents' calendar is Moscow's (UTC+3 all year). */
const moscowToday = () => new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10);
const thisMonth = () => moscowToday().slice(0, 7);
/** The Moscow month before this one, YYYY-MM. */
const lastMonth = () => {
  const [year, month] = [Number(thisMonth().slice(0, 4)), Number(thisMonth().slice(5))];
  return new Date(Date.UTC(year, month - 2, 1)).toISOString().slice(0, 7);
};
const MONTHS = ['январь', 'февраль', 'март', 'апрель', 'май', 'июнь', 'июль', 'август', 'сентябрь', 'октябрь', 'ноябрь', 'декабрь'];
/** «1 234,50 ₽» with ordinary spaces (the documents use no-break ones; the test reads text with spaces normalised). */
const rub = (value: number) =>
  `${Math.abs(value)
    .toFixed(2)
    .replace('.', ',')
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ')} ₽`;
/** Spaces normalised; the documents' no-break hyphen («e‑mail») read as a hyphen. */
const normal = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').replace(/\u2011/g, '-');
/** «1 234,50»: a document's figures without the sign. */
const num = (value: number) => rub(value).slice(0, -2);
/** The amount in words, as the documents print it under the total (the module has its own unit test). */
const words = (value: number) => amountInWords(BigInt(Math.round(value * 100)));
const GENITIVE = ['января', 'февраля', 'марта', 'апреля', 'мая', 'июня', 'июля', 'августа', 'сентября', 'октября', 'ноября', 'декабря'];

async function pdfText(path: string, token: string) {
  const res = await fetch(app.url + path, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
  const pdf = await getDocumentProxy(bytes);
  return normal((await extractText(pdf, { mergePages: true })).text);
}

beforeAll(async () => {
  upstream = await startFakeUpstream();
  yk = await startFakeYookassa();
  yk.addShop(SHOP_ID, SECRET_KEY);
  app = await startTestApp({
    env: {
      UPSTREAM_BASE_URL: upstream.url,
      YOOKASSA_SHOP_ID: SHOP_ID,
      YOOKASSA_SECRET_KEY: SECRET_KEY,
      YOOKASSA_API_BASE_URL: yk.url,
      ADMIN_EMAILS: ADMIN_EMAIL,
      SUPPORT_CONTACT: SUPPORT,
      TOKEN_PRICE: '0.05',
    },
  });
  admin = await registerAdmin(app, ADMIN_EMAIL);
  user = await registerUser(app.url);

  // A top-up of 500 ₽ paid through YooKassa.
  const topup = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 500 } });
  expect(topup.status).toBe(201);
  const [row] = await app.sql<{ payment_id: string }>('select payment_id from topups where id = $1', [topup.body.id]);
  yk.succeed(row!.payment_id);
  expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, row!.payment_id, 'payment.succeeded')).status).toBe(200);
  // An operator's credit with its reason.
  const credit = await call(app.url, 'POST', `/api/admin/users/${user.userId}/credit`, {
    token: admin.token,
    body: { amount: 100, reason: 'Компенсация за сбой 12 ноября', reference: `statement-${user.userId}` },
  });
  expect(credit.status).toBe(200);
  // Three paid requests through the API.
  const { key } = await createApiKey(app.url, user.token);
  const client = openaiClient(app, key);
  for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'fake/chat', messages: [{ role: 'user', content: `вопрос ${i}` }], max_tokens: 16 });
  await settleAll(app);
});

afterAll(async () => {
  await app?.close();
  await upstream?.close();
  await yk?.close();
});

describe('statement of account', () => {
  test('every movement of the period with the running balance: bonus, top-up, operator credit with its reason, one spending line for the day', async () => {
    const res = await call(app.url, 'GET', `/api/account/statement?from=${today()}&to=${today()}`, { token: user.token });
    expect(res.status).toBe(200);
    const s = res.body;
    expect(s).toMatchObject({ from: today(), to: today(), timeZone: 'UTC', currency: 'RUB', opening: 0 });
    expect(s.lines.map((l: { kind: string }) => l.kind)).toEqual(['registration_bonus', 'topup', 'admin_credit', 'usage']);
    expect(s.lines[0]).toMatchObject({ title: 'Стартовый бонус', amount: 3, balanceAfter: 3 });
    expect(s.lines[1]).toMatchObject({ title: 'Пополнение баланса', amount: 500, balanceAfter: 503 });
    expect(s.lines[2]).toMatchObject({ title: 'Начисление оператора', detail: 'Компенсация за сбой 12 ноября', amount: 100, balanceAfter: 603 });
    const spend = s.lines[3];
    expect(spend).toMatchObject({ title: 'Запросы к моделям через API', requests: 3, detail: '3 запроса', day: today() });
    expect(spend.amount).toBeLessThan(0);
    expect(spend.balanceAfter).toBeCloseTo(603 + spend.amount, 9);
    // The closing balance is the account's balance, and the sums add up.
    const balance = (await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance;
    expect(s.closing).toBeCloseTo(balance, 9);
    expect(s.credits).toBe(603);
    expect(s.debits).toBeCloseTo(spend.amount, 9);
  });

  test('a period before the account existed is empty; a period starting today has the earlier balance as its opening', async () => {
    const past = await call(app.url, 'GET', '/api/account/statement?from=2020-01-01&to=2020-01-31', { token: user.token });
    expect(past.body).toMatchObject({ opening: 0, closing: 0, lines: [] });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const later = await call(app.url, 'GET', `/api/account/statement?from=${tomorrow}&to=${tomorrow}`, { token: user.token });
    const balance = (await call(app.url, 'GET', '/api/balance', { token: user.token })).body.balance;
    expect(later.body.lines).toEqual([]);
    expect(later.body.opening).toBeCloseTo(balance, 9);
  });

  test('bad periods are refused in Russian; an API key or no credential is not enough', async () => {
    const reversed = await call(app.url, 'GET', '/api/account/statement?from=2026-02-01&to=2026-01-01', { token: user.token });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toContain('Конец периода');
    const tooLong = await call(app.url, 'GET', '/api/account/statement?from=2024-01-01&to=2025-12-31', { token: user.token });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toContain('366');
    const badDay = await call(app.url, 'GET', '/api/account/statement?from=2026-02-30&to=2026-03-01', { token: user.token });
    expect(badDay.status).toBe(400);
    expect(badDay.body.error.message).toContain('Начало периода');
    const zone = await call(app.url, 'GET', '/api/account/statement?from=2026-01-01&to=2026-01-02&timeZone=Mars/Olympus', { token: user.token });
    expect(zone.status).toBe(400);
    expect((await call(app.url, 'GET', '/api/account/statement?from=2026-01-01&to=2026-01-02')).status).toBe(401);
  });

  test('the CSV file holds the same lines between the opening and closing balances', async () => {
    const res = await fetch(`${app.url}/api/account/statement/export?from=${today()}&to=${today()}`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="conduit-statement-${today()}-${today()}.csv"`);
    const lines = (await res.text())
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('day,at,kind,title,detail,amount,balance_after,currency');
    expect(lines[1]).toBe(`${today()},,opening_balance,Остаток на начало периода,,,0.000000000,RUB`);
    expect(lines.slice(2, -1).map((l) => l.split(',')[2])).toEqual(['registration_bonus', 'topup', 'admin_credit', 'usage']);
    expect(lines[4]).toContain(',admin_credit,Начисление оператора,Компенсация за сбой 12 ноября,100.000000000,603.000000000,RUB');
    expect(lines.at(-1)).toMatch(new RegExp(`^${today()},,closing_balance,Остаток на конец периода,,,\\d+\\.\\d{9},RUB$`));
    const bad = await fetch(`${app.url}/api/account/statement/export?from=2026-01-02&to=2026-01-01`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(bad.status).toBe(400);
  });

  test('format=excel-ru: Russian headers and kinds, semicolons, a decimal comma, days and times in the statement’s zone', async () => {
    const zone = 'Europe/Moscow';
    // Yesterday to tomorrow: today's operations are in it whatever the hour in Moscow.
    const shift = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    const [from, to] = [shift(-1), shift(1)];
    const query = `from=${from}&to=${to}&timeZone=${encodeURIComponent(zone)}`;
    const headers = { authorization: `Bearer ${user.token}` };
    const plain = (await (await fetch(`${app.url}/api/account/statement/export?${query}`, { headers })).text()).replace(/^\uFEFF/, '');
    const res = await fetch(`${app.url}/api/account/statement/export?${query}&format=excel-ru`, { headers });
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes);
    expect(text.split('\r\n')[0]).toBe('Дата;Время;Вид операции;Операция;Подробности;Сумма;Остаток после;Валюта');
    const rows: Record<string, string>[] = parse(text, { columns: true, delimiter: ';' });
    const machine: Record<string, string>[] = parse(plain, { columns: true });
    expect(rows).toHaveLength(machine.length);
    const excelDay = (iso: string) => `${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`;
    expect(rows.at(-1)!.Дата).toBe(excelDay(to));
    expect(rows[0]).toMatchObject({ Дата: excelDay(from), Время: '', 'Вид операции': 'остаток на начало', 'Остаток после': '0,000000000' });
    expect(rows.slice(1, -1).map((r) => r['Вид операции'])).toEqual(['бонус', 'пополнение', 'оператор', 'запросы через API']);
    expect(rows.at(-1)!['Вид операции']).toBe('остаток на конец');
    const credit = rows.find((r) => r['Вид операции'] === 'оператор')!;
    expect(credit).toMatchObject({ Операция: 'Начисление оператора', Подробности: 'Компенсация за сбой 12 ноября', Сумма: '100,000000000', Валюта: 'RUB' });
    // Each time is the machine file's UTC instant in the statement's zone, as «28.11.2026 22:15:03».
    const inZone = new Intl.DateTimeFormat('ru-RU', {
      timeZone: zone,
      day: '2-digit',
      month: '2-digit',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    rows.slice(1, -1).forEach((r, i) => {
      expect(r.Время).toMatch(/^\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d$/);
      expect(r.Время).toBe(inZone.format(new Date(machine[i + 1]!.at!)).replace(', ', ' '));
      expect(r.Сумма).toBe(machine[i + 1]!.amount!.replace('.', ','));
      expect(r.Дата).toBe(excelDay(machine[i + 1]!.day!));
    });
  });
});

describe('monthly closing documents', () => {
  test("without the operator's requisites the documents are refused with a clear Russian message naming support", async () => {
    const list = await call(app.url, 'GET', '/api/account/documents', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.requisitesReady).toBe(false);
    const res = await call(app.url, 'POST', '/api/admin/documents/issue', { token: admin.token, body: { month: lastMonth() } });
    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({
      type: 'conflict',
      message: `Документы пока недоступны: оператор сервиса ещё не указал реквизиты своей организации. Обратитесь в поддержку: ${SUPPORT}`,
    });
  });

  test('the operator sets the requisites (checked, admin only, audited)', async () => {
    const bad = await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: { ...REQUISITES, inn: '12345', bik: '04452522' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('ИНН: 10 цифр у организации или 12 у ИП');
    expect(bad.body.error.message).toContain('БИК: 9 цифр');
    expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: user.token, body: REQUISITES })).status).toBe(403);
    expect((await call(app.url, 'GET', '/api/admin/requisites', { token: admin.token })).body).toEqual({ requisites: null });

    const put = await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject(REQUISITES);
    expect((await call(app.url, 'GET', '/api/admin/requisites', { token: admin.token })).body.requisites).toMatchObject(REQUISITES);
    const audit = await call(app.url, 'GET', '/api/admin/audit?limit=5', { token: admin.token });
    const entry = audit.body.data.find((e: { action: string }) => e.action === 'requisites.update');
    expect(entry).toMatchObject({ adminEmail: ADMIN_EMAIL, targetType: 'requisites', before: null, after: { inn: REQUISITES.inn, bik: REQUISITES.bik } });
  });

  test("the customer's own requisites are optional and checked: ИНН 10 or 12 digits, КПП 9 and none for a sole proprietor", async () => {
    expect((await call(app.url, 'GET', '/api/account/requisites', { token: user.token })).body).toEqual({ companyName: '', inn: '', kpp: '', address: '' });
    const bad = await call(app.url, 'PUT', '/api/account/requisites', { token: user.token, body: { companyName: 'ООО «Ромашка»', inn: '77', kpp: '7712' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('ИНН: 10 цифр у организации или 12 у ИП');
    expect(bad.body.error.message).toContain('КПП: 9 цифр');
    const soleProprietor = await call(app.url, 'PUT', '/api/account/requisites', {
      token: user.token,
      body: { companyName: 'ИП Иванов И. И.', inn: '771234567890', kpp: '771201001' },
    });
    expect(soleProprietor.status).toBe(400);
    expect(soleProprietor.body.error.message).toContain('У ИП (ИНН из 12 цифр) нет КПП');
    const full = { companyName: 'ООО «Ромашка»', inn: '7712345678', kpp: '771201001', address: '125009, г. Москва, ул. Тверская, д. 1' };
    const put = await call(app.url, 'PUT', '/api/account/requisites', { token: user.token, body: full });
    expect(put.status).toBe(200);
    expect(put.body).toEqual(full);
    expect((await call(app.url, 'GET', '/api/account/requisites', { token: user.token })).body).toEqual(full);
  });

  test('the month list has the current month (Moscow time), marked as running, with its payments and spending and no document yet', async () => {
    const list = await call(app.url, 'GET', '/api/account/documents', { token: user.token });
    const statement = (await call(app.url, 'GET', `/api/account/statement?from=${today()}&to=${today()}`, { token: user.token })).body;
    expect(list.body.requisitesReady).toBe(true);
    expect(list.body.months[0]).toEqual({
      month: thisMonth(),
      title: `${MONTHS[Number(thisMonth().slice(5)) - 1]} ${thisMonth().slice(0, 4)}`,
      current: true,
      paid: 500,
      spent: list.body.months[0].spent,
      actUrl: null,
      documents: [],
    });
    expect(list.body.current).toEqual({ month: thisMonth(), title: list.body.months[0].title, paid: 500, spent: list.body.months[0].spent });
    expect(list.body.months[0].spent).toBeCloseTo(-statement.lines[3].amount, 9);
  });

  test('the act (PDF), issued once the month has ended: both parties with requisites, unit/qty/price columns, total in words, both signature lines, no «UTC»', async () => {
    const statement = (await call(app.url, 'GET', `/api/account/statement?from=${today()}&to=${today()}`, { token: user.token })).body;
    const spent = -statement.lines[3].amount;
    // The month ends: the monthly job, run as at the next month's first hour in Moscow, issues its акт.
    const [year, month] = [thisMonth().slice(0, 4), thisMonth().slice(5)];
    // 01:00 in Moscow on the next month's first day is 22:00 UTC the day before.
    const nextMonth = new Date(Date.UTC(Number(year), Number(month), 1) - 2 * 3_600_000);
    const run = await app.instance.services.statement.closingJob.runOnce(nextMonth);
    expect(run.issued.map((d) => d.userId)).toContain(user.userId);
    const list = (await call(app.url, 'GET', '/api/account/documents', { token: user.token })).body;
    const act = list.months[0].documents[0];
    expect(list.months[0].actUrl).toBe(act.pdfUrl);
    const text = await pdfText(act.pdfUrl, user.token);
    const lastDay = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
    expect(text).toContain(`Акт № ${act.number} от ${lastDay} ${GENITIVE[Number(month) - 1]} ${year} г.`);
    expect(text).toContain(`об оказании услуг за ${MONTHS[Number(month) - 1]} ${year}`);
    expect(text).toContain(`Период: 01.${month}.${year} — ${lastDay}.${month}.${year}`);
    expect(text).not.toContain('UTC');
    expect(text).toContain(
      `Исполнитель: ООО «Кондуит», ИНН ${REQUISITES.inn}, КПП ${REQUISITES.kpp}, ${REQUISITES.address}, ОГРН ${REQUISITES.ogrn}, ` +
        `р/с ${REQUISITES.account} в ${REQUISITES.bankName}, БИК ${REQUISITES.bik}, к/с ${REQUISITES.correspondentAccount}`,
    );
    expect(text).toContain(`Заказчик: ООО «Ромашка», ИНН 7712345678, КПП 771201001, 125009, г. Москва, ул. Тверская, д. 1, e-mail ${user.email}`);
    expect(text).toContain('№ Наименование работ, услуг Кол-во Ед. Цена Сумма');
    expect(text).toContain(`1 Запросы к моделям через API, ${MONTHS[Number(month) - 1]} ${year} (3 запроса) 1 усл. ${num(spent)} ${num(spent)}`);
    expect(text).toContain(`Итого: ${num(spent)}`);
    expect(text).toContain('Без НДС (УСН)');
    expect(text).toContain(`Всего оказано услуг 1, на сумму ${rub(spent)}`);
    expect(text).toContain(words(spent));
    expect(text).toContain('ИСПОЛНИТЕЛЬ ООО «Кондуит»');
    expect(text).toContain('ЗАКАЗЧИК ООО «Ромашка»');
    expect(text.match(/Руководитель _+ \/ _+ \//g)).toHaveLength(2);
    expect(text.match(/М\.П\./g)).toHaveLength(2);
    // Neither the top-up nor the credit is a service rendered.
    expect(text).not.toContain('500,00');
  });

  test('a month has no счёт of payments already made: invoice.pdf is not found, and says where a счёт is issued', async () => {
    const res = await call(app.url, 'GET', `/api/account/documents/${thisMonth()}/invoice.pdf`, { token: user.token });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain('счёт на оплату выставляется на сумму');
  });

  test('a finished month without activity has no document; bad, future and unknown documents are refused', async () => {
    const none = await call(app.url, 'GET', '/api/account/documents/2025-01/act.pdf', { token: user.token });
    expect(none.status).toBe(404);
    expect(none.body.error).toEqual({
      type: 'not_found',
      message:
        'Акт за январь 2025 ещё не выпущен: закрывающие документы выпускаются после окончания месяца (по московскому времени), ' +
        'список выпущенных — GET /api/account/documents',
    });
    const bad = await call(app.url, 'GET', '/api/account/documents/2025-13/act.pdf', { token: user.token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('ожидается месяц в формате ГГГГ-ММ, например 2026-11');
    const future = await call(app.url, 'GET', '/api/account/documents/2999-01/act.pdf', { token: user.token });
    expect(future.status).toBe(400);
    expect(future.body.error.message).toContain('ещё не начался');
    expect((await call(app.url, 'GET', `/api/account/documents/${thisMonth()}/receipt.pdf`, { token: user.token })).status).toBe(404);
    expect((await call(app.url, 'GET', `/api/account/documents/${thisMonth()}/act.pdf`)).status).toBe(401);
  });
});

describe('support contact and the site root', () => {
  test('the contact is public: GET /api/support and the information document', async () => {
    expect((await call(app.url, 'GET', '/api/support')).body).toEqual({ contact: SUPPORT });
    expect((await call(app.url, 'GET', '/', { headers: { accept: 'application/json' } })).body.supportContact).toBe(SUPPORT);
  });

  test('a blocked user is told whom to contact: at login, with a session, and on /v1', async () => {
    const blocked = await registerUser(app.url);
    const { key } = await createApiKey(app.url, blocked.token);
    expect((await call(app.url, 'POST', `/api/admin/users/${blocked.userId}/block`, { token: admin.token })).status).toBe(200);
    const expected = `Учётная запись заблокирована: обратитесь в поддержку — ${SUPPORT}`;
    const login = await call(app.url, 'POST', '/api/auth/login', { body: { email: blocked.email, password: blocked.password } });
    expect(login.status).toBe(403);
    expect(login.body.error.message).toBe(expected);
    const balance = await call(app.url, 'GET', '/api/balance', { token: key });
    expect(balance.body.error.message).toBe(expected);
    const v1 = await call(app.url, 'POST', '/v1/chat/completions', { token: key, body: { model: 'fake/chat', messages: [{ role: 'user', content: 'привет' }] } });
    expect(v1.status).toBe(403);
    expect(v1.body.error.message).toBe(expected);
  });

  test('without SUPPORT_CONTACT the message stays general and the contact is null', async () => {
    const plain = await startTestApp({ env: { ADMIN_EMAILS: 'plain-admin@example.com' } });
    try {
      expect((await call(plain.url, 'GET', '/api/support')).body).toEqual({ contact: null });
      const operator = await registerAdmin(plain, 'plain-admin@example.com');
      const blocked = await registerUser(plain.url);
      await call(plain.url, 'POST', `/api/admin/users/${blocked.userId}/block`, { token: operator.token });
      const login = await call(plain.url, 'POST', '/api/auth/login', { body: { email: blocked.email, password: blocked.password } });
      expect(login.body.error.message).toBe('Учётная запись заблокирована: обратитесь в поддержку');
    } finally {
      await plain.close();
    }
  });

  test('GET / shows a browser the service and the way in, with the support contact; API clients still get the information document', async () => {
    const chrome = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    for (const accept of [chrome, 'text/html']) {
      const res = await fetch(`${app.url}/`, { headers: { accept }, redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('vary')).toBe('Accept');
      const page = await res.text();
      expect(page).toContain('href="/app/login"');
      expect(page).toContain(SUPPORT);
    }
    for (const accept of ['application/json', '*/*', 'text/html;q=0, application/json', undefined]) {
      const res = await fetch(`${app.url}/`, { headers: accept ? { accept } : {}, redirect: 'manual' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(((await res.json()) as { name: string }).name).toBe('Conduit');
    }
  });
});
