// Balance top-ups through YooKassa, over HTTP against a fake YooKassa: creating a payment (limits,
// credentials, idempotent repeats), notifications exactly as YooKassa posts them (valid, forged,
// redelivered, canceled, mismatched, while YooKassa is down), the periodic re-check that catches a lost
// notification, the buyer's return page, and the books: Σ ledger = balance + leases after every credit.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createYookassaClient, YookassaApiError } from '../../src/payments/yookassa';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { unbalancedUsers, waitFor } from '../helpers/gateway';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const PUBLIC = 'https://conduit.example';

let yk: FakeYookassa;
let app: TestApp;

const env = (extra: Record<string, string> = {}) => ({
  YOOKASSA_SHOP_ID: SHOP_ID,
  YOOKASSA_SECRET_KEY: SECRET_KEY,
  YOOKASSA_API_BASE_URL: yk.url,
  PUBLIC_BASE_URL: PUBLIC,
  ...extra,
});

beforeAll(async () => {
  yk = await startFakeYookassa();
  app = await startTestApp({ env: env() });
});
afterAll(async () => {
  await app?.close();
  await yk?.close();
});
beforeEach(() => {
  yk.reset();
  yk.addShop(SHOP_ID, SECRET_KEY);
});

const notificationsUrl = (a: TestApp = app) => `${a.url}/api/billing/yookassa/notifications`;
const balanceOf = async (token: string, a: TestApp = app) => (await call(a.url, 'GET', '/api/balance', { token })).body.balance as number;
const topupRow = async (id: string, a: TestApp = app) =>
  (
    await a.sql<{ status: string; payment_id: string | null; cancellation_reason: string | null; credited_at: unknown }>('select * from topups where id = $1', [id])
  )[0]!;

async function topUp(token: string, amount = 500, a: TestApp = app) {
  const res = await call(a.url, 'POST', '/api/billing/topups', { token, body: { amount } });
  expect(res.status).toBe(201);
  const paymentId = (await topupRow(res.body.id, a)).payment_id!;
  return { ...(res.body as { id: string; confirmationUrl: string; amount: number }), paymentId };
}

describe('creating a top-up', () => {
  test('201 with YooKassa’s payment page; the payment is created with Basic auth, the top-up id as Idempotence-Key, and our metadata', async () => {
    const user = await registerUser(app.url);
    const res = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 1500.5 } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      amount: 1500.5,
      currency: 'RUB',
      status: 'pending',
      confirmationUrl: expect.stringMatching(/^https:\/\/yoomoney\.ru\/checkout\//),
    });
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();
    const id = res.body.id as string;

    const posts = yk.calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.headers.authorization).toBe(`Basic ${Buffer.from(`${SHOP_ID}:${SECRET_KEY}`).toString('base64')}`);
    expect(post.headers['idempotence-key']).toBe(id);
    expect(post.body).toEqual({
      amount: { value: '1500.50', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: `${PUBLIC}/app/topups/${id}` },
      description: expect.stringContaining('1\u202f500,50\u00a0₽'),
      metadata: { topupId: id, userId: user.userId },
    });
    const payment = yk.payments[0]!;
    expect(res.body.confirmationUrl).toEqual(payment.confirmationUrl);
    expect((await topupRow(id)).payment_id).toBe(payment.id);
  });

  test('amount limits: below the minimum, above the maximum, three decimals, a string, zero → 400 in Russian naming the limits; nothing is created', async () => {
    const user = await registerUser(app.url);
    for (const amount of [9.99, 100_000.01, 10.555, '500', 0, -20, null]) {
      const res = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount } });
      expect({ amount, status: res.status }).toEqual({ amount, status: 400 });
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[а-яё]/i);
    }
    const below = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 9.99 } });
    expect(below.body.error.message).toContain('от 10,00\u00a0₽ до 100\u202f000,00\u00a0₽');
    expect(yk.count('POST')).toBe(0);
    expect(await app.sql('select id from topups where user_id = $1', [user.userId])).toEqual([]);
    // The limits themselves are accepted.
    await topUp(user.token, 10);
    await topUp(user.token, 100_000);
  });

  test('a JWT is required: no credential or an API key → 401', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    for (const token of [undefined, key.key, 'not-a-token']) {
      for (const [method, path, body] of [
        ['POST', '/api/billing/topups', { amount: 100 }],
        ['GET', '/api/billing/topups', undefined],
      ] as const) {
        const res = await call(app.url, method, path, { ...(token ? { token } : {}), ...(body ? { body } : {}) });
        expect(res.status).toBe(401);
        expect(res.body.error.type).toBe('unauthorized');
      }
    }
    // The settings are public: the dashboard reads them before anyone signs in.
    const config = await call(app.url, 'GET', '/api/billing/config');
    expect(config.status).toBe(200);
    expect(config.body).toEqual({ enabled: true, currency: 'RUB', minAmount: 10, maxAmount: 100000, registrationBonus: 3 });
  });

  test('an answer lost in a 5xx is repeated with the same Idempotence-Key and body: YooKassa returns the same payment, one payment exists', async () => {
    const user = await registerUser(app.url);
    yk.failNext({ method: 'POST', path: '/payments', status: 500, afterProcessing: true });
    const created = await topUp(user.token, 700);
    const posts = yk.calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotence-key']).toBe(created.id);
    expect(posts[1]!.headers['idempotence-key']).toBe(created.id);
    expect(posts[1]!.body).toEqual(posts[0]!.body);
    expect(yk.payments).toHaveLength(1);
    expect(created.paymentId).toBe(yk.payments[0]!.id);
  });

  test('YooKassa down (5xx on every repeat) → 502 upstream_error in Russian; the top-up is closed as payment_not_created', async () => {
    const user = await registerUser(app.url);
    yk.failNext({ method: 'POST', status: 503, times: 3 });
    const res = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 100 } });
    expect(res.status).toBe(502);
    expect(res.body.error).toEqual({ type: 'upstream_error', message: expect.stringContaining('ЮKassa') });
    expect(yk.count('POST')).toBe(3);
    const [row] = await app.sql<{ status: string; cancellation_reason: string }>('select * from topups where user_id = $1', [user.userId]);
    expect(row).toMatchObject({ status: 'canceled', cancellation_reason: 'payment_not_created' });
  });

  test('wrong shop credentials: YooKassa answers 401 with its error body, the call is not repeated, the user gets 502', async () => {
    const user = await registerUser(app.url);
    yk.addShop(SHOP_ID, 'test_rotated-secret-key-0000000000');
    const res = await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 100 } });
    expect(res.status).toBe(502);
    expect(res.body.error.type).toBe('upstream_error');
    expect(res.text).not.toContain(SECRET_KEY);
    expect(yk.calls).toHaveLength(1);
    expect(yk.calls[0]!.status).toBe(401);
  });
});

describe('the YooKassa client against the fake', () => {
  const client = (secretKey = SECRET_KEY) => createYookassaClient({ baseUrl: yk.url, credentials: { shopId: SHOP_ID, secretKey }, retryDelayMs: 10 });
  const input = { amountNano: 250_000_000_000n, currency: 'RUB', description: 'Проверка', returnUrl: `${PUBLIC}/back`, metadata: { topupId: 'x' } };

  test('the same Idempotence-Key and body → the same payment; the same key with another body → YooKassa’s invalid_request', async () => {
    const first = await client().createPayment(input, 'key-0001');
    const again = await client().createPayment(input, 'key-0001');
    expect(again.id).toBe(first.id);
    expect(yk.payments).toHaveLength(1);
    const error = await client()
      .createPayment({ ...input, amountNano: 260_000_000_000n }, 'key-0001')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(YookassaApiError);
    expect(error).toMatchObject({ kind: 'invalid_request', status: 400, code: 'invalid_request', parameter: 'Idempotence-Key' });
    expect((error as YookassaApiError).resultUnknown).toBe(false);
  });

  test('wrong credentials → invalid_credentials, and the secret appears in no error', async () => {
    const wrong = 'test_wrong-secret-key-1234567890';
    const error = await client(wrong)
      .getPayment('2f3b588d-000f-5000-8000-1d6e87c7fbde')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(YookassaApiError);
    expect(error).toMatchObject({ kind: 'invalid_credentials', status: 401, code: 'invalid_credentials', parameter: 'Authorization' });
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain(wrong);
    expect(yk.calls).toHaveLength(1);
  });

  test('a hang past the timeout is a network error after the repeats; an unknown payment is not_found', async () => {
    yk.failNext({ method: 'GET', status: 500, delayMs: 2000, times: 2 });
    const slow = createYookassaClient({ baseUrl: yk.url, credentials: { shopId: SHOP_ID, secretKey: SECRET_KEY }, timeoutMs: 150, retries: 1, retryDelayMs: 10 });
    const error = await slow.getPayment('2f3b588d-000f-5000-8000-1d6e87c7fbd0').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'YookassaNetworkError', timedOut: true });
    const missing = await client()
      .getPayment('2f3b588d-000f-5000-8000-1d6e87c7fbde')
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ kind: 'not_found', status: 404 });
    // What is no YooKassa payment id is not asked about at all: `..` would have read GET /v3/.
    const asked = yk.count();
    for (const id of ['..', 'whatever', '2f3b588d-000f-5000-8000-1d6e87c7fbd', '2f3b588d-000f-5000-8000-1d6e87c7fbdz', '2f3b588d0000f500080001d6e87c7fbdeaa']) {
      expect(
        await client()
          .getPayment(id)
          .catch((e: unknown) => e),
      ).toMatchObject({ kind: 'not_found' });
    }
    expect(yk.count()).toBe(asked);
  });
});

describe('notifications', () => {
  test('payment.succeeded credits the balance once; redeliveries change nothing; the books balance', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 500);
    yk.succeed(t.paymentId);
    const body = yk.notificationBody(t.paymentId, 'payment.succeeded');
    expect(body).toMatchObject({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: t.paymentId, status: 'succeeded', paid: true, amount: { value: '500.00', currency: 'RUB' }, metadata: { topupId: t.id } },
    });

    const res = await yk.notify(notificationsUrl(), t.paymentId, 'payment.succeeded');
    expect(res.status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before + 500);
    // Verified by re-reading, not by believing the body.
    expect(yk.count('GET', `/payments/${t.paymentId}`)).toBe(1);

    for (let i = 0; i < 3; i++) expect((await yk.notify(notificationsUrl(), t.paymentId, 'payment.succeeded')).status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before + 500);
    const ledger = await app.sql<{ amount_nano: unknown }>(`select amount_nano from ledger_entries where kind = 'topup' and reference = $1`, [
      `yookassa:${t.paymentId}`,
    ]);
    expect(ledger.map((r) => String(r.amount_nano))).toEqual(['500000000000']);

    const listed = await call(app.url, 'GET', '/api/billing/topups', { token: user.token });
    expect(listed.body.topups[0]).toMatchObject({ id: t.id, status: 'succeeded', amount: 500, creditedAt: expect.any(String) });
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('concurrent deliveries of one success credit once', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 250);
    yk.succeed(t.paymentId);
    const answers = await Promise.all(Array.from({ length: 6 }, () => yk.notify(notificationsUrl(), t.paymentId, 'payment.succeeded')));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await balanceOf(user.token)).toBe(before + 250);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a forged notification (the body says succeeded, YooKassa says pending) credits nothing; a later real success does', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 900);
    const forged = await yk.notify(notificationsUrl(), t.paymentId, 'payment.succeeded', { status: 'succeeded', paid: true });
    expect(forged.status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before);
    expect((await topupRow(t.id)).status).toBe('pending');

    // A body naming a payment YooKassa does not know at all, with our metadata copied in.
    const invented = await fetch(notificationsUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        type: 'notification',
        event: 'payment.succeeded',
        object: { ...yk.paymentObject(t.paymentId), id: '2f3b588d-000f-5000-8000-000000000000', status: 'succeeded', paid: true },
      }),
    });
    expect(invented.status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before);

    yk.succeed(t.paymentId);
    expect((await yk.notify(notificationsUrl(), t.paymentId)).status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before + 900);
  });

  test('payment.canceled marks the top-up canceled with YooKassa’s reason; a forged success afterwards changes nothing', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 300);
    yk.cancel(t.paymentId, 'insufficient_funds', 'payment_network');
    expect(yk.notificationBody(t.paymentId).object).toMatchObject({
      status: 'canceled',
      cancellation_details: { party: 'payment_network', reason: 'insufficient_funds' },
    });
    expect((await yk.notify(notificationsUrl(), t.paymentId, 'payment.canceled')).status).toBe(200);
    expect(await topupRow(t.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'insufficient_funds' });
    const listed = await call(app.url, 'GET', '/api/billing/topups', { token: user.token });
    expect(listed.body.topups[0]).toMatchObject({ id: t.id, status: 'canceled', cancellationReason: 'insufficient_funds', creditedAt: null });

    expect((await yk.notify(notificationsUrl(), t.paymentId, 'payment.succeeded', { status: 'succeeded', paid: true })).status).toBe(200);
    expect((await topupRow(t.id)).status).toBe('canceled');
    expect(await balanceOf(user.token)).toBe(before);
  });

  test('a succeeded payment whose amount or currency differs from the top-up credits nothing', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const byAmount = await topUp(user.token, 400);
    yk.payment(byAmount.paymentId)!.amount = { value: '4.00', currency: 'RUB' };
    yk.succeed(byAmount.paymentId);
    expect((await yk.notify(notificationsUrl(), byAmount.paymentId)).status).toBe(200);

    const byCurrency = await topUp(user.token, 400);
    yk.payment(byCurrency.paymentId)!.amount = { value: '400.00', currency: 'USD' };
    yk.succeed(byCurrency.paymentId);
    expect((await yk.notify(notificationsUrl(), byCurrency.paymentId)).status).toBe(200);

    expect(await balanceOf(user.token)).toBe(before);
    expect((await topupRow(byAmount.id)).status).toBe('pending');
    expect((await topupRow(byCurrency.id)).status).toBe('pending');
    expect(await app.sql(`select * from ledger_entries where user_id = $1 and kind = 'topup'`, [user.userId])).toEqual([]);
  });

  test('YooKassa unreachable on the re-read → 502 so YooKassa redelivers; the redelivery credits', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 120);
    yk.succeed(t.paymentId);
    yk.failNext({ method: 'GET', status: 500, times: 3 });
    const res = await yk.notify(notificationsUrl(), t.paymentId);
    expect(res.status).toBe(502);
    expect((await res.json()).error.type).toBe('upstream_error');
    expect(await balanceOf(user.token)).toBe(before);
    expect((await yk.notify(notificationsUrl(), t.paymentId)).status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before + 120);
  });

  test('malformed bodies: not JSON or not a notification → 400; over 64 KiB → 413; other events are acknowledged and ignored', async () => {
    const post = (body: string) => fetch(notificationsUrl(), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const notJson = await post('{"type": "notification",');
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.type).toBe('invalid_request_error');
    for (const body of [{ hello: 'world' }, { type: 'notification', event: 'payment.succeeded', object: {} }, { type: 'notification', object: { id: 'x' } }]) {
      expect((await post(JSON.stringify(body))).status).toBe(400);
    }
    const huge = await post(JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: 'x', description: 'я'.repeat(40_000) } }));
    expect(huge.status).toBe(413);
    const refund = await post(
      JSON.stringify({
        type: 'notification',
        event: 'refund.succeeded',
        object: { id: '216749f7-0016-50be-b000-078d43a63ae4', payment_id: 'x', status: 'succeeded' },
      }),
    );
    expect(refund.status).toBe(200);
    expect(yk.count('GET')).toBe(0);
  });
});

describe('the periodic re-check and the return page', () => {
  test('a success whose notification was lost is credited by the re-check; a cancellation is recorded; the next pass has nothing to do', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const paid = await topUp(user.token, 640);
    const dropped = await topUp(user.token, 50);
    const waiting = await topUp(user.token, 75);
    yk.succeed(paid.paymentId);
    yk.cancel(dropped.paymentId);
    // Not due yet: younger than TOPUP_RECHECK_SECONDS (300 s by default).
    expect(await app.instance.services.topups.recheck.runOnce()).toMatchObject({ ran: true, checked: 0 });
    await app.sql(`update topups set created_at = now() - interval '10 minutes' where user_id = $1`, [user.userId]);

    const pass = await app.instance.services.topups.recheck.runOnce();
    expect(pass).toMatchObject({ ran: true, checked: 3, credited: 1, canceled: 1, failed: 0 });
    expect(await balanceOf(user.token)).toBe(before + 640);
    expect(await topupRow(dropped.id)).toMatchObject({ status: 'canceled', cancellation_reason: 'expired_on_confirmation' });
    expect((await topupRow(waiting.id)).status).toBe('pending');

    // The pending one was just checked: it waits for the next interval.
    expect(await app.instance.services.topups.recheck.runOnce()).toMatchObject({ checked: 0, credited: 0 });
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the re-check runs on its own timer (TOPUP_RECHECK_SECONDS)', async () => {
    const fast = await startTestApp({ env: env({ TOPUP_RECHECK_SECONDS: '1' }) });
    try {
      const user = await registerUser(fast.url);
      const before = await balanceOf(user.token, fast);
      const t = await topUp(user.token, 333, fast);
      yk.succeed(t.paymentId);
      await waitFor(async () => (await balanceOf(user.token, fast)) === before + 333, 8000, 50);
      expect((await topupRow(t.id, fast)).status).toBe('succeeded');
      expect(await unbalancedUsers(fast)).toEqual([]);
    } finally {
      await fast.close();
    }
  });

  test('the return page (GET /api/billing/topups/:id) re-reads a pending top-up and shows the credit before any notification', async () => {
    const user = await registerUser(app.url);
    const before = await balanceOf(user.token);
    const t = await topUp(user.token, 210);
    const pending = await call(app.url, 'GET', `/api/billing/topups/${t.id}`, { token: user.token });
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ id: t.id, status: 'pending', confirmationUrl: t.confirmationUrl });
    yk.succeed(t.paymentId);
    await app.sql('update topups set checked_at = null where id = $1', [t.id]);
    const done = await call(app.url, 'GET', `/api/billing/topups/${t.id}`, { token: user.token });
    expect(done.body).toMatchObject({ status: 'succeeded', creditedAt: expect.any(String) });
    expect(await balanceOf(user.token)).toBe(before + 210);
    // The notification arriving afterwards changes nothing.
    expect((await yk.notify(notificationsUrl(), t.paymentId)).status).toBe(200);
    expect(await balanceOf(user.token)).toBe(before + 210);

    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `/api/billing/topups/${t.id}`, { token: stranger.token })).status).toBe(404);
    expect((await call(app.url, 'GET', '/api/billing/topups/not-an-id', { token: user.token })).status).toBe(404);
  });

  test('at most TOPUP_MAX_PENDING (5) unpaid top-ups per user: the next is a 400 in Russian and creates nothing; a paid one frees a place', async () => {
    const user = await registerUser(app.url);
    const other = await registerUser(app.url);
    // In parallel: the cap holds when every request counts at once.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 100_000 } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 201, 201, 400, 400, 400]);
    const refused = answers.find((a) => a.status === 400)!;
    expect(refused.body.error).toEqual({
      type: 'invalid_request_error',
      message: 'Достигнут лимит неоплаченных пополнений (5): оплатите одно из них или дождитесь, пока ЮKassa отменит неоплаченные',
    });
    expect(await app.sql('select id from topups where user_id = $1', [user.userId])).toHaveLength(5);
    expect(yk.count('POST', '/payments')).toBe(5);
    // Another user's cap is their own.
    expect((await call(app.url, 'POST', '/api/billing/topups', { token: other.token, body: { amount: 10 } })).status).toBe(201);

    // Paid (or canceled), a top-up no longer counts.
    const [first] = await app.sql<{ payment_id: string }>('select payment_id from topups where user_id = $1 limit 1', [user.userId]);
    yk.succeed(first!.payment_id);
    expect((await yk.notify(notificationsUrl(), first!.payment_id)).status).toBe(200);
    expect((await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 10 } })).status).toBe(201);
    expect((await call(app.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 10 } })).status).toBe(400);
  });

  test('TOPUP_MAX_PENDING sets the cap', async () => {
    const one = await startTestApp({ env: env({ TOPUP_MAX_PENDING: '1' }) });
    try {
      const user = await registerUser(one.url);
      expect((await call(one.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 10 } })).status).toBe(201);
      const second = await call(one.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 10 } });
      expect(second.status).toBe(400);
      expect(second.body.error.message).toStartWith('Достигнут лимит неоплаченных пополнений (1)');
    } finally {
      await one.close();
    }
  });

  test('the list is the user’s own, newest first, in pages', async () => {
    const user = await registerUser(app.url);
    const other = await registerUser(app.url);
    await topUp(other.token, 11);
    const ids: string[] = [];
    for (const amount of [10, 20, 30]) ids.push((await topUp(user.token, amount)).id);
    const first = await call(app.url, 'GET', '/api/billing/topups?limit=2', { token: user.token });
    expect(first.status).toBe(200);
    expect(first.body.topups.map((t: { amount: number }) => t.amount)).toEqual([30, 20]);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call(app.url, 'GET', `/api/billing/topups?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: user.token });
    expect(second.body.topups.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect(second.body.nextCursor).toBeNull();
    expect((await call(app.url, 'GET', '/api/billing/topups?cursor=garbage', { token: user.token })).status).toBe(400);
  });
});

describe('configuration', () => {
  test('without YooKassa credentials: config says enabled: false and both top-up endpoints answer 400 in Russian', async () => {
    const off = await startTestApp({ env: { PUBLIC_BASE_URL: PUBLIC } });
    try {
      const config = await call(off.url, 'GET', '/api/billing/config');
      expect(config.body).toEqual({ enabled: false, currency: 'RUB', minAmount: 10, maxAmount: 100000, registrationBonus: 3 });
      const user = await registerUser(off.url);
      for (const [method, body] of [
        ['POST', { amount: 100 }],
        ['GET', undefined],
      ] as const) {
        const res = await call(off.url, method, '/api/billing/topups', { token: user.token, ...(body ? { body } : {}) });
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({ type: 'invalid_request_error', message: expect.stringContaining('Пополнение баланса не настроено') });
      }
      const notification = await fetch(`${off.url}/api/billing/yookassa/notifications`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: 'x' } }),
      });
      expect(notification.status).toBe(400);
      expect(yk.calls).toHaveLength(0);
    } finally {
      await off.close();
    }
  });

  test('with YOOKASSA_RECEIPT_VAT_CODE every payment carries a 54-FZ receipt for the user’s e-mail; other limits and currency apply', async () => {
    yk.addShop(SHOP_ID, SECRET_KEY, { requireReceipt: true });
    const withReceipts = await startTestApp({
      env: env({ YOOKASSA_RECEIPT_VAT_CODE: '1', TOPUP_MIN_AMOUNT: '100', TOPUP_MAX_AMOUNT: '5000.50', BALANCE_CURRENCY: 'RUB' }),
    });
    try {
      expect((await call(withReceipts.url, 'GET', '/api/billing/config')).body).toEqual({
        enabled: true,
        currency: 'RUB',
        minAmount: 100,
        maxAmount: 5000.5,
        registrationBonus: 3,
      });
      const user = await registerUser(withReceipts.url);
      const tooMuch = await call(withReceipts.url, 'POST', '/api/billing/topups', { token: user.token, body: { amount: 5000.51 } });
      expect(tooMuch.status).toBe(400);
      expect(tooMuch.body.error.message).toContain('от 100,00\u00a0₽ до 5\u202f000,50\u00a0₽');
      const t = await topUp(user.token, 1234.56, withReceipts);
      expect(yk.payment(t.paymentId)!.receipt).toEqual({
        customer: { email: user.email },
        items: [
          {
            description: expect.stringMatching(/[а-яё]/i),
            quantity: '1.00',
            amount: { value: '1234.56', currency: 'RUB' },
            vat_code: 1,
            payment_subject: 'service',
            payment_mode: 'full_payment',
          },
        ],
      });
    } finally {
      await withReceipts.close();
    }
  });
});
