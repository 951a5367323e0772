// The closing documents' and the statement's edges (issue 38): month and day inputs outside the years the
// database takes are a Russian 400, not a 500 (row 11); documents requested all at once are built a few at
// a time, so the rest of the server keeps answering (row 10), and a line past PDF_QUEUE_MAX_WAITING is refused
// with 503 and Retry-After rather than left to grow (review of row 10). Since issue 44 a month's акт is a
// document issued once the month has ended: the months are given spending and issued first (issueMonths), and
// the month's address serves the issued PDF.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { PDF_RENDERS_AT_ONCE } from '../../src/statement/render-queue';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/gateway';
import { OPERATOR_REQUISITES } from '../helpers/requisites';

setDefaultTimeout(30_000);

const ADMIN_EMAIL = uniqueEmail('documents-admin');
const REQUISITES = {
  ...OPERATOR_REQUISITES,
  vatNote: '',
};

let app: TestApp;
let user: { token: string; userId: string };
/** Has spending in the first month the database takes (0001-01) alone: the statement tests read `user`'s empty years. */
let early: { token: string; userId: string };

/**
 * Gives `userId` spending in each month (a ledger row as the gateway's settlement writes it) and has the operator
 * issue the months' documents (POST /api/admin/documents/issue).
 */
async function issueMonths(on: TestApp, adminToken: string, userId: string, months: string[]) {
  for (const month of months) {
    await on.sql(`insert into ledger_entries (user_id, amount_nano, kind, reference, created_at) values ($1, -1000000000, 'usage', $2, $3)`, [
      userId,
      `seed-${month}:1`,
      `${month}-15T12:00:00Z`,
    ]);
    const res = await call(on.url, 'POST', '/api/admin/documents/issue', { token: adminToken, body: { month } });
    expect(res.status).toBe(200);
    expect(res.body.issued).toHaveLength(1);
  }
}

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL } });
  const admin = await registerAdmin(app, ADMIN_EMAIL);
  expect((await call(app.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
  user = await registerUser(app.url);
  early = await registerUser(app.url);
  await issueMonths(app, admin.token, early.userId, ['0001-01']);
  await issueMonths(app, admin.token, user.userId, ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06']);
});

afterAll(async () => {
  await app?.close();
});

describe("month and day inputs outside the database's years (row 11)", () => {
  test("year 0000 in a document's month is a Russian 400 invalid_request_error for both files, not a 500", async () => {
    for (const path of ['0000-01/act.pdf', '0000-12/act.pdf']) {
      const res = await call(app.url, 'GET', `/api/account/documents/${path}`, { token: user.token });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ type: 'invalid_request_error', message: 'ожидается месяц в формате ГГГГ-ММ (год от 0001), например 2026-11' });
    }
  });

  test('the first month the database takes still has its act', async () => {
    const res = await fetch(`${app.url}/api/account/documents/0001-01/act.pdf`, { headers: { authorization: `Bearer ${early.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(0, 5))).toBe('%PDF-');
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

describe('documents requested all at once (row 10)', () => {
  const queue = () => app.instance.services.statement.renderQueue;
  const getPdf = async (path: string) => {
    const res = await fetch(`${app.url}/api/account/documents/${path}`, { headers: { authorization: `Bearer ${user.token}` } });
    return { status: res.status, head: new TextDecoder().decode(new Uint8Array(await res.arrayBuffer()).slice(0, 5)) };
  };

  test(`every one of 24 parallel requests gets its PDF, built at most ${PDF_RENDERS_AT_ONCE} at a time; /health answers meanwhile`, async () => {
    const before = queue().stats();
    const months = ['2025-01', '2025-02', '2025-03', '2025-04', '2025-05', '2025-06'];
    const paths = Array.from({ length: 24 }, (_, i) => `${months[i % months.length]}/act.pdf`);
    const documents = Promise.all(paths.map(getPdf));
    // /health is not queued behind the documents: when it answers, most are still to be built.
    const health = await fetch(`${app.url}/health`);
    const builtWhenHealthAnswered = queue().stats().rendered - before.rendered;
    expect(health.status).toBe(200);
    const results = await documents;
    expect(results).toEqual(paths.map(() => ({ status: 200, head: '%PDF-' })));
    expect(builtWhenHealthAnswered).toBeLessThan(paths.length);

    const after = queue().stats();
    expect(after.rendered - before.rendered).toBe(paths.length);
    // The bound held, and was reached: requests did wait for their turn.
    expect(after.peakRendering).toBe(PDF_RENDERS_AT_ONCE);
    expect(after.peakWaiting).toBeGreaterThan(0);
    // Every place was given back.
    expect(after).toMatchObject({ rendering: 0, waiting: 0 });
  });

  test('a request refused before its turn (bad or future month) takes no place; the queue stays usable', async () => {
    const before = queue().stats();
    const refused = await Promise.all(['0000-01/act.pdf', '2999-01/act.pdf', '2025-13/act.pdf'].map(getPdf));
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(queue().stats().rendered).toBe(before.rendered);
    expect(await getPdf('2025-01/act.pdf')).toEqual({ status: 200, head: '%PDF-' });
    expect(queue().stats()).toMatchObject({ rendering: 0, waiting: 0, rendered: before.rendered + 1 });
  });
});

describe('a full line of documents (PDF_QUEUE_MAX_WAITING)', () => {
  const adminEmail = uniqueEmail('documents-line-admin');
  let small: TestApp;
  let client: { token: string; userId: string };
  beforeAll(async () => {
    small = await startTestApp({ env: { ADMIN_EMAILS: adminEmail, PDF_QUEUE_MAX_WAITING: '2' } });
    const admin = await registerAdmin(small, adminEmail);
    expect((await call(small.url, 'PUT', '/api/admin/requisites', { token: admin.token, body: REQUISITES })).status).toBe(200);
    client = await registerUser(small.url);
    await issueMonths(small, admin.token, client.userId, ['2024-12', '2025-01', '2025-02']);
  });
  afterAll(async () => {
    await small?.close();
  });

  test('past 2 waiting requests the next is answered at once: 503 service_unavailable in Russian with Retry-After; the waiting ones still get their PDFs', async () => {
    const queue = small.instance.services.statement.renderQueue;
    const getPdf = (path: string) => fetch(`${small.url}/api/account/documents/${path}`, { headers: { authorization: `Bearer ${client.token}` } });
    // Both places are taken by builds the test holds (as two slow documents would), so the line cannot move.
    let letGo!: () => void;
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const held = Array.from({ length: PDF_RENDERS_AT_ONCE }, () => queue.run(() => gate));
    expect(queue.stats()).toMatchObject({ rendering: PDF_RENDERS_AT_ONCE, waiting: 0 });

    const waiting = [getPdf('2025-01/act.pdf'), getPdf('2024-12/act.pdf')];
    await waitFor(() => queue.stats().waiting === 2, 20_000);

    const refused = await getPdf('2025-02/act.pdf');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toEqual({
      error: { type: 'service_unavailable', message: 'Сейчас формируется слишком много документов: повторите запрос через несколько секунд' },
    });
    expect(queue.stats()).toMatchObject({ waiting: 2, refused: 1 });

    letGo();
    await Promise.all(held);
    for (const answer of await Promise.all(waiting)) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/pdf');
    }
    // The line moved on: the refused request, asked again, is served.
    expect((await getPdf('2025-02/act.pdf')).status).toBe(200);
    expect(queue.stats()).toMatchObject({ rendering: 0, waiting: 0, refused: 1 });
  });
});
