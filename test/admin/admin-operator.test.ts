// The operator console's server side (issue 33, point 11): the audit names accounts by e-mail and filters
// by action, e-mail and period; an operator revokes a user's key (refused on /v1 at once, on every
// instance) and sets a key's budget (402 over it), both audited; the daily figures as a CSV file.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, waitFor } from '../helpers/gateway';

setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN_EMAIL = uniqueEmail('operator');
const messages = [{ role: 'user' as const, content: 'Привет!' }];

let fake: FakeUpstream;
let app: TestApp;
let admin: { token: string; userId: string; email: string };

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN_EMAIL, UPSTREAM_BASE_URL: fake.url } });
  admin = await registerAdmin(app, ADMIN_EMAIL);
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

const adminCall = (method: string, path: string, body?: unknown) => call(app.url, method, path, { token: admin.token, body });
const ask = (target: TestApp, key: string) =>
  openaiClient(target, key)
    .chat.completions.create({ model: 'acme/chat', messages, max_tokens: 5 })
    .catch((e) => e);

type AuditRow = { action: string; adminEmail: string; targetId: string | null; targetEmail: string | null; before: any; after: any; createdAt: string };
async function audit(query: string) {
  const res = await adminCall('GET', `/api/admin/audit?${query}`);
  expect(res.status).toBe(200);
  return res.body as { data: AuditRow[]; nextCursor: string | null };
}

describe('the audit', () => {
  test('names the operator and the target account by e-mail and filters by action, e-mail and period, paged', async () => {
    const alice = await registerUser(app.url, uniqueEmail('alice'));
    const bob = await registerUser(app.url, uniqueEmail('bob'));
    for (const [user, n] of [
      [alice, 1],
      [alice, 2],
      [bob, 3],
    ] as const) {
      const res = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, {
        amount: 10 * n,
        reason: 'Компенсация',
        reference: `audit-${user.userId}-${n}`,
      });
      expect(res.status).toBe(200);
    }
    expect((await adminCall('POST', `/api/admin/users/${bob.userId}/block`)).status).toBe(200);

    const aliceRows = await audit(`email=${encodeURIComponent(alice.email.slice(0, 12).toUpperCase())}`);
    expect(aliceRows.data.map((r) => [r.action, r.targetEmail, r.adminEmail])).toEqual([
      ['user.credit', alice.email, ADMIN_EMAIL],
      ['user.credit', alice.email, ADMIN_EMAIL],
    ]);
    expect(aliceRows.data[0]!.after.amount).toBe('20');

    const bobCredits = await audit(`email=${encodeURIComponent(bob.email)}&action=user.credit`);
    expect(bobCredits.data.map((r) => r.targetEmail)).toEqual([bob.email]);
    const blocks = await audit(`action=user.block&email=${encodeURIComponent(bob.email)}`);
    expect(blocks.data.map((r) => r.action)).toEqual(['user.block']);

    // The operator's own e-mail finds what the operator did.
    const byOperator = await audit(`email=${encodeURIComponent(ADMIN_EMAIL)}&limit=100`);
    expect(byOperator.data.length).toBeGreaterThanOrEqual(4);

    // Paging under a filter: two pages of one row each hold alice's two credits.
    const first = await audit(`email=${encodeURIComponent(alice.email)}&limit=1`);
    expect(first.data).toHaveLength(1);
    const second = await audit(`email=${encodeURIComponent(alice.email)}&limit=1&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(second.data).toHaveLength(1);
    expect(second.data[0]!.after.amount).toBe('10');

    // A period: today holds them, yesterday nothing.
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await audit(`email=${encodeURIComponent(alice.email)}&from=${today}&to=${today}`)).data).toHaveLength(2);
    expect((await audit(`email=${encodeURIComponent(alice.email)}&to=${yesterday}`)).data).toHaveLength(0);
    expect((await audit('email=nobody-like-this@nowhere.example')).data).toEqual([]);

    for (const bad of ['action=user.delete', `from=${today}&to=${yesterday}`, 'from=31.12.2026']) {
      const res = await adminCall('GET', `/api/admin/audit?${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
  });

  test('the filters are served by the audit’s indexes', async () => {
    const indexes = await app.sql<{ indexname: string }>(`select indexname from pg_indexes where tablename = 'admin_audit' order by indexname`);
    expect(indexes.map((i) => i.indexname)).toEqual(
      expect.arrayContaining(['admin_audit_action_idx', 'admin_audit_admin_idx', 'admin_audit_created_idx', 'admin_audit_target_idx']),
    );
  });
});

describe("an operator and a user's keys", () => {
  test('revoking a user’s key refuses it on /v1 at once (403), shows it revoked and writes the audit; other keys serve on', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token, 'Сайт');
    const spare = await createApiKey(app.url, user.token, 'Бот');
    expect((await ask(app, key.key)).object).toBe('chat.completion');

    const revoked = await adminCall('POST', `/api/admin/users/${user.userId}/keys/${key.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ success: true, message: 'Ключ пользователя отозван' });
    const refused = await ask(app, key.key);
    expect(refused.status).toBe(403);
    expect((await ask(app, spare.key)).object).toBe('chat.completion');

    const detail = await adminCall('GET', `/api/admin/users/${user.userId}`);
    expect(detail.body.keys.find((k: { id: string }) => k.id === key.id).isActive).toBe(false);
    const rows = await audit(`targetId=${user.userId}&action=key.revoke`);
    expect(rows.data).toHaveLength(1);
    expect(rows.data[0]).toMatchObject({ targetEmail: user.email, adminEmail: ADMIN_EMAIL, after: { keyId: key.id, keyName: 'Сайт', active: false } });

    // A second revoke changes nothing and writes nothing; another user's key is 404.
    expect((await adminCall('POST', `/api/admin/users/${user.userId}/keys/${key.id}/revoke`)).status).toBe(200);
    expect((await audit(`targetId=${user.userId}&action=key.revoke`)).data).toHaveLength(1);
    const stranger = await registerUser(app.url);
    expect((await adminCall('POST', `/api/admin/users/${stranger.userId}/keys/${spare.id}/revoke`)).status).toBe(404);
    // Only operators.
    expect((await call(app.url, 'POST', `/api/admin/users/${user.userId}/keys/${spare.id}/revoke`, { token: user.token })).status).toBe(403);
  });

  test.skipIf(!onPostgres)('a revoke on one instance reaches the key cache of another', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url } });
    try {
      const user = await registerUser(app.url);
      const key = await createApiKey(app.url, user.token);
      // The other instance has the key in its cache.
      expect((await ask(other, key.key)).object).toBe('chat.completion');
      expect((await adminCall('POST', `/api/admin/users/${user.userId}/keys/${key.id}/revoke`)).status).toBe(200);
      let status = 0;
      await waitFor(
        async () => {
          status = (await ask(other, key.key)).status ?? 200;
          return status === 403;
        },
        5000,
        50,
      );
      expect(status).toBe(403);
    } finally {
      await other.stop();
    }
  });

  test('a budget set by the operator is enforced (402 over it), shown in the user’s keys and audited; null lifts it', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    const path = `/api/admin/users/${user.userId}/keys/${key.id}/budget`;
    const set = await adminCall('PUT', path, { spendLimit: 0.000003, limitReset: 'day' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: key.id, spendLimit: 0.000003, limitReset: 'day' });

    // One request costs 17 × 125 nano: the second one goes over 3000 nano.
    let refused: any = null;
    for (let i = 0; i < 5 && !refused; i++) {
      const res = await ask(app, key.key);
      if (res.object !== 'chat.completion') refused = res;
    }
    expect(refused?.status).toBe(402);
    expect(refused.error?.type ?? refused.type).toBe('insufficient_balance');

    await settleAll(app);
    const listed = (await call(app.url, 'GET', '/api/keys', { token: user.token })).body.keys[0];
    expect(listed).toMatchObject({ spendLimit: 0.000003, limitReset: 'day' });
    const detail = await adminCall('GET', `/api/admin/users/${user.userId}`);
    expect(detail.body.keys[0]).toMatchObject({ spendLimit: 0.000003, limitReset: 'day' });

    const rows = await audit(`targetId=${user.userId}&action=key.limit`);
    expect(rows.data[0]).toMatchObject({
      targetEmail: user.email,
      before: { keyId: key.id, spendLimit: null, limitReset: 'none' },
      after: { keyId: key.id, spendLimit: '0.000003', limitReset: 'day' },
    });

    expect((await adminCall('PUT', path, { spendLimit: null, limitReset: 'none' })).status).toBe(200);
    expect((await ask(app, key.key)).object).toBe('chat.completion');

    for (const body of [{ spendLimit: -1, limitReset: 'day' }, { spendLimit: 1, limitReset: 'year' }, { spendLimit: 1 }]) {
      const res = await adminCall('PUT', path, body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
  });
});

describe('daily figures as CSV', () => {
  test('the file holds the JSON view’s numbers, every digit, one UTC day a line; operators only', async () => {
    const user = await registerUser(app.url);
    const credited = await adminCall('POST', `/api/admin/users/${user.userId}/credit`, { amount: 12.345678901, reason: 'Тест', reference: `csv-${user.userId}` });
    expect(credited.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);

    const json = await adminCall('GET', `/api/admin/stats/daily?from=${from}&to=${today}`);
    const res = await fetch(`${app.url}/api/admin/stats/daily/export?from=${from}&to=${today}`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="conduit-daily-${from}-${today}.csv"`);
    const lines = (await res.text())
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('day,revenue,credits,spend,provider_cost,margin,requests,currency');
    expect(lines).toHaveLength(8);
    const rows = lines.slice(1).map((l) => l.split(','));
    expect(rows.map((r) => r[0])).toEqual(json.body.days.map((d: { day: string }) => d.day));
    rows.forEach((r, i) => {
      const d = json.body.days[i];
      expect([Number(r[1]), Number(r[2]), Number(r[3]), Number(r[6]), r[7]]).toEqual([d.revenue, d.credits, d.spend, d.requests, 'RUB']);
    });
    expect(rows.at(-1)![2]).toMatch(/^\d+\.\d{9}$/);
    expect(Number(rows.at(-1)![2])).toBeGreaterThanOrEqual(12.345678901);

    // For a Russian Excel: semicolons, a decimal comma, Russian headers, days as «28.11.2026»; the same numbers.
    const ru = await fetch(`${app.url}/api/admin/stats/daily/export?from=${from}&to=${today}&format=excel-ru`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(ru.status).toBe(200);
    const ruRows: Record<string, string>[] = parse((await ru.text()).replace(/^\uFEFF/, ''), { columns: true, delimiter: ';' });
    expect(Object.keys(ruRows[0]!)).toEqual(['Дата (сутки по Гринвичу)', 'Выручка', 'Начисления', 'Расход', 'Затраты на провайдеров', 'Маржа', 'Запросов', 'Валюта']);
    expect(ruRows.map((r) => r['Дата (сутки по Гринвичу)'])).toEqual(rows.map((r) => `${r[0]!.slice(8, 10)}.${r[0]!.slice(5, 7)}.${r[0]!.slice(0, 4)}`));
    expect(ruRows.map((r) => r.Начисления)).toEqual(rows.map((r) => r[2]!.replace('.', ',')));
    expect(ruRows.at(-1)!.Начисления).toMatch(/^\d+,\d{9}$/);
    const badFormat = await fetch(`${app.url}/api/admin/stats/daily/export?format=xlsx`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(badFormat.status).toBe(400);

    const stranger = await registerUser(app.url);
    const forbidden = await fetch(`${app.url}/api/admin/stats/daily/export`, { headers: { authorization: `Bearer ${stranger.token}` } });
    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).error.type).toBe('forbidden');
    const bad = await fetch(`${app.url}/api/admin/stats/daily/export?from=${today}&to=${from}`, { headers: { authorization: `Bearer ${admin.token}` } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.type).toBe('invalid_request_error');
  });
});
