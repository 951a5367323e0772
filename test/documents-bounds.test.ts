// The closing documents' and the statement's edges (issue 38): month and day inputs outside the years the
// database takes are a Russian 400, not a 500 (row 11).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from './helpers/app';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('documents-admin');
const REQUISITES = {
  companyName: 'ООО «Кондуит»',
  inn: '7701234567',
  kpp: '770101001',
  ogrn: '1027700132195',
  address: '123112, г. Москва, Пресненская наб., д. 10',
  bankName: 'АО «Тестбанк»',
  bik: '044525225',
  account: '40702810400000012345',
  correspondentAccount: '30101810400000000225',
  vatNote: '',
};

let app: TestApp;
let user: { token: string };

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  const admin = await registerAdmin(app, ADMIN_EMAIL);
  expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
  user = await registerUser(app.url);
});

afterAll(async () => {
  await app?.close();
});

describe('month and day inputs outside the database\'s years (row 11)', () => {
  test('year 0000 in a document\'s month is a Russian 400 invalid_request_error for both files, not a 500', async () => {
    for (const path of ['0000-01/act.pdf', '0000-01/invoice.pdf', '0000-12/act.pdf', '0000-12/invoice.pdf']) {
      const res = await call(app.url, 'GET', `/api/account/documents/${path}`, { token: user.token });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ type: 'invalid_request_error', message: 'ожидается месяц в формате ГГГГ-ММ (год от 0001), например 2026-11' });
    }
  });

  test('the first month the database takes still has its documents', async () => {
    for (const file of ['act.pdf', 'invoice.pdf']) {
      const res = await fetch(`${app.url}/api/account/documents/0001-01/${file}`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(0, 5))).toBe('%PDF-');
    }
  });

  test('the statement and its file refuse year 0000 and answer the first and last days the database takes, in any time zone', async () => {
    for (const query of ['from=0000-01-01&to=0000-01-31', 'from=0000-12-31&to=0001-01-01']) {
      const res = await call(app.url, 'GET', `/api/account/statement?${query}`, { token: user.token });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      const file = await fetch(`${app.url}/api/account/statement/export?${query}`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(file.status).toBe(400);
    }
    const edges = [
      'from=0001-01-01&to=0001-01-31&timeZone=Pacific/Kiritimati',
      'from=0001-01-01&to=0001-01-31&timeZone=Pacific/Pago_Pago',
      'from=9999-12-01&to=9999-12-30&timeZone=Pacific/Kiritimati',
      'from=9999-12-01&to=9999-12-30&timeZone=Pacific/Pago_Pago',
    ];
    for (const query of edges) {
      const res = await call(app.url, 'GET', `/api/account/statement?${query}`, { token: user.token });
      expect(res.status).toBe(200);
      expect(res.body.lines).toEqual([]);
      const file = await fetch(`${app.url}/api/account/statement/export?${query}`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(file.status).toBe(200);
    }
  });
});
