// Auto top-up (issue 45 point 5), over HTTP against a fake YooKassa, a fake upstream and the suite's SMTP
// server: a card saved on a top-up (sealed, never shown), the settings and their refusals, the charge that
// fires once when fifty parallel /v1 requests cross the threshold (and once across two instances), the latch
// that waits for the credit, the monthly limit, three failures that switch it off with mails, a card YooKassa
// no longer keeps, removing the card — and the books: Σ ledger = balance + leases after each.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createLogger } from '../../src/logger';
import { startInstance } from '../../src/server';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeYookassa, type FakeYookassa } from '../fakes/yookassa';
import { call, createApiKey, registerUser, startTestApp, testConfig, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { openaiClient, setBalanceNano, settleAll, unbalancedUsers } from '../helpers/gateway';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const SHOP_ID = '506751';
const SECRET_KEY = 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0';
const PUBLIC = 'https://conduit.example';
const RUB = 1_000_000_000n;
/** One request with max_tokens 5: 12 prompt + 5 completion tokens at 125 nano-units. */
const REQUEST_NANO = 2125n;

let yk: FakeYookassa;
let smtp: FakeSmtp;
let upstream: FakeUpstream;
let app: TestApp;
/** Every log line the app wrote, and the text of every answer the tests read: the card's id must be in none. */
const logLines: string[] = [];
const answers: string[] = [];
const methodIds: string[] = [];

const env = () => ({
  YOOKASSA_SHOP_ID: SHOP_ID,
  YOOKASSA_SECRET_KEY: SECRET_KEY,
  YOOKASSA_API_BASE_URL: yk.url,
  YOOKASSA_RECEIPT_VAT_CODE: '1',
  PUBLIC_BASE_URL: PUBLIC,
  UPSTREAM_BASE_URL: upstream.url,
  SMTP_URL: smtp.url,
  SMTP_FROM: 'Conduit <no-reply@conduit.example>',
  OUTBOX_POLL_INTERVAL_MS: '100',
  OUTBOX_RETRY_BASE_MS: '200',
});

beforeAll(async () => {
  yk = await startFakeYookassa();
  smtp = await startFakeSmtp();
  upstream = await startFakeUpstream();
  // As startTestApp, with a logger that keeps every line (debug and up) for the last test.
  const database = await createTestDatabase();
  const config = testConfig(database, env());
  const instance = await startInstance(config, { logger: createLogger('debug', {}, (line) => logLines.push(line)) });
  app = {
    url: instance.url,
    instance,
    config,
    database,
    sql: (text, params) => instance.services.database.query(text, params),
    stop: () => instance.stop(1000),
    async close() {
      await instance.stop(1000);
      await database.drop();
    },
  };
});
afterAll(async () => {
  await app?.close();
  await yk?.close();
  await smtp?.close();
  await upstream?.close();
});
beforeEach(() => {
  yk.reset();
  // A shop that sends receipts: a payment without one is refused, as YooKassa does.
  yk.addShop(SHOP_ID, SECRET_KEY, { requireReceipt: true });
});

async function api(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, token: string, body?: unknown, target: TestApp = app) {
  const res = await call(target.url, method, path, { token, ...(body !== undefined ? { body } : {}) });
  answers.push(res.text);
  return res;
}

const autopayments = () => yk.calls.filter((c) => c.method === 'POST' && c.path === '/payments' && (c.body as { payment_method_id?: string }).payment_method_id);

/** A customer who paid 100 ₽ with «Сохранить карту»; their saved card's YooKassa id. */
async function customerWithCard() {
  const user = await registerUser(app.url);
  const key = await createApiKey(app.url, user.token);
  const made = await api('POST', '/api/billing/topups', user.token, { amount: 100, saveCard: true });
  expect(made.status).toBe(201);
  const payment = yk.payments.at(-1)!;
  yk.succeed(payment.id);
  const notified = await yk.notify(`${app.url}/api/billing/yookassa/notifications`, payment.id);
  expect(notified.status).toBe(200);
  const methodId = yk.payment(payment.id)!.methodId!;
  expect(methodId).toBeDefined();
  methodIds.push(methodId);
  return { ...user, key: key.key, client: openaiClient(app, key.key), methodId, topupId: made.body.id as string };
}

async function configure(token: string, settings: { enabled?: boolean; amount?: number; threshold?: number; monthlyLimit?: number } = {}) {
  const res = await api('PUT', '/api/billing/auto-topup', token, { enabled: true, amount: 10, threshold: 50, monthlyLimit: 1000, ...settings });
  expect(res.status).toBe(200);
  return res.body;
}

/** `n` requests at once, each 2125 nano-units. */
async function spend(client: ReturnType<typeof openaiClient>, n: number) {
  await Promise.all(
    Array.from({ length: n }, () => client.chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 })),
  );
}

/** Writes every settlement and waits for the auto top-up checks they started (and the payments they made). */
async function settled(target: TestApp = app) {
  await settleAll(target);
  await target.instance.services.topups.autoTopup.idle();
}

const moneyOf = async (token: string) => (await api('GET', '/api/balance', token)).body.balance as number;
const autoRows = (userId: string) =>
  app.sql<{ id: string; status: string; payment_id: string | null; amount_nano: string; cancellation_reason: string | null }>(
    `select id, status, payment_id, amount_nano::text, cancellation_reason from topups where user_id = $1 and auto order by created_at, id`,
    [userId],
  );
const topupLedger = (userId: string) =>
  app.sql<{ amount_nano: string; reference: string }>(`select amount_nano::text, reference from ledger_entries where user_id = $1 and kind = 'topup' order by id`, [
    userId,
  ]);
const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));

/** Brings the money to the threshold plus `requests` requests' worth (a positive adjustment re-arms a latch that is down). */
async function justAbove(userId: string, requests: number, threshold = 50n * RUB) {
  await setBalanceNano(app, userId, threshold + BigInt(requests) * REQUEST_NANO);
}

describe('saving a card', () => {
  test('a top-up with saveCard asks YooKassa to save the method; once paid, the card is shown by name and last digits, its id sealed', async () => {
    const user = await customerWithCard();
    const post = yk.calls.find((c) => c.method === 'POST' && c.path === '/payments')!;
    expect((post.body as Record<string, unknown>).save_payment_method).toBe(true);

    const view = await api('GET', '/api/billing/auto-topup', user.token);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({
      available: true,
      enabled: false,
      amount: null,
      currency: 'RUB',
      card: { title: 'Bank card *4477', cardType: 'Mir', last4: '4477', expiryMonth: '09', expiryYear: '2029' },
      consecutiveFailures: 0,
      monthSpent: 0,
      attempts: [],
    });
    const [stored] = await app.sql<{ method_id_sealed: string }>('select method_id_sealed from saved_cards where user_id = $1', [user.userId]);
    expect(stored!.method_id_sealed).not.toContain(user.methodId);
    // The top-up itself was credited as any other.
    expect(await moneyOf(user.token)).toBe(103);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('without saveCard nothing is saved, and the payment does not ask for it', async () => {
    const user = await registerUser(app.url);
    const made = await api('POST', '/api/billing/topups', user.token, { amount: 100 });
    expect(made.status).toBe(201);
    expect((yk.calls.at(-1)!.body as Record<string, unknown>).save_payment_method).toBeUndefined();
    const payment = yk.payments.at(-1)!;
    yk.succeed(payment.id);
    await yk.notify(`${app.url}/api/billing/yookassa/notifications`, payment.id);
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body.card).toBeNull();
  });
});

/** The fields as the form names them (http/field-labels.ts). */
const LABELS = { amount: 'Сумма пополнения', threshold: 'Порог баланса', monthlyLimit: 'Лимит в месяц', enabled: 'Включён' } as const;

describe('settings', () => {
  test('bad input is 400 in Russian naming the field, and changes nothing', async () => {
    const user = await customerWithCard();
    const good = { enabled: true, amount: 10, threshold: 50, monthlyLimit: 1000 };
    for (const [body, field] of [
      [{ ...good, amount: 0 }, 'amount'],
      [{ ...good, amount: -10 }, 'amount'],
      [{ ...good, amount: 10.001 }, 'amount'],
      [{ ...good, amount: '10' }, 'amount'],
      [{ ...good, amount: 5 }, 'amount'], // below TOPUP_MIN_AMOUNT
      [{ ...good, threshold: -1 }, 'threshold'],
      [{ ...good, threshold: 0.001 }, 'threshold'],
      [{ ...good, monthlyLimit: 5 }, 'monthlyLimit'],
      [{ ...good, enabled: 'yes' }, 'enabled'],
      [{ amount: 10, threshold: 50, monthlyLimit: 1000 }, 'enabled'],
    ] as const) {
      const res = await api('PUT', '/api/billing/auto-topup', user.token, body);
      expect({ body, status: res.status, type: res.body.error?.type }).toEqual({ body, status: 400, type: 'invalid_request_error' });
      expect(res.body.error.message).toMatch(/[а-яё]/i);
      expect(res.body.error.message).toContain(LABELS[field]);
    }
    const bad = await api('POST', '/api/billing/topups', user.token, { amount: 100, saveCard: 'yes' });
    expect(bad.status).toBe(400);
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body).toMatchObject({ enabled: false, amount: null });
  });

  test('switching on needs a saved card; switched off it may be saved without one; a threshold of zero is allowed', async () => {
    const user = await registerUser(app.url);
    const on = await api('PUT', '/api/billing/auto-topup', user.token, { enabled: true, amount: 10, threshold: 50, monthlyLimit: 100 });
    expect(on.status).toBe(400);
    expect(on.body.error.message).toContain('Сохранить карту');
    const off = await api('PUT', '/api/billing/auto-topup', user.token, { enabled: false, amount: 10, threshold: 0, monthlyLimit: 10 });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, amount: 10, threshold: 0, monthlyLimit: 10, card: null });
  });

  test('a JWT is required', async () => {
    for (const [method, path] of [
      ['GET', '/api/billing/auto-topup'],
      ['PUT', '/api/billing/auto-topup'],
      ['DELETE', '/api/billing/card'],
    ] as const) {
      const res = await call(app.url, method, path, method === 'PUT' ? { body: { enabled: false, amount: 10, threshold: 0, monthlyLimit: 10 } } : {});
      expect(res.status).toBe(401);
    }
  });
});

describe('the charge', () => {
  test('fifty parallel requests cross the threshold: one payment with the saved card and a receipt, credited once; the books balance', async () => {
    const user = await customerWithCard();
    await configure(user.token, { amount: 10, threshold: 50, monthlyLimit: 1000 });
    await justAbove(user.userId, 20);
    await spend(user.client, 50);
    await settled();

    const charges = autopayments();
    expect(charges).toHaveLength(1);
    const [auto] = await autoRows(user.userId);
    expect(auto).toMatchObject({ status: 'succeeded', amount_nano: (10n * RUB).toString() });
    const charge = charges[0]!;
    expect(charge.headers['idempotence-key']).toBe(auto!.id);
    expect(charge.body).toMatchObject({
      amount: { value: '10.00', currency: 'RUB' },
      capture: true,
      payment_method_id: user.methodId,
      metadata: { topupId: auto!.id, userId: user.userId },
      receipt: {
        customer: { email: user.email },
        items: [{ quantity: '1.00', amount: { value: '10.00', currency: 'RUB' }, vat_code: 1, payment_subject: 'service', payment_mode: 'full_payment' }],
      },
    });
    expect((charge.body as Record<string, unknown>).confirmation).toBeUndefined();
    // YooKassa's notification of the same payment credits nothing more.
    expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, auto!.payment_id!)).status).toBe(200);
    await settled();
    expect((await topupLedger(user.userId)).filter((l) => l.reference === `yookassa:${auto!.payment_id}`)).toHaveLength(1);
    expect(await moneyOf(user.token)).toBe(Number(50n * RUB + 20n * REQUEST_NANO - 50n * REQUEST_NANO + 10n * RUB) / 1e9);
    expect(await unbalancedUsers(app)).toEqual([]);
    const view = (await api('GET', '/api/billing/auto-topup', user.token)).body;
    expect(view).toMatchObject({ enabled: true, monthSpent: 10, consecutiveFailures: 0, attempts: [{ amount: 10, status: 'succeeded', cancellationReason: null }] });
  });

  test('the latch waits for the credit: no second payment while the first is pending; after its credit the next crossing fires again', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    yk.scriptCharges({ pending: true });
    await justAbove(user.userId, 2);
    await spend(user.client, 3);
    await settled();
    expect(autopayments()).toHaveLength(1);
    const [first] = await autoRows(user.userId);
    expect(first!.status).toBe('pending');

    // Further below, twice: nothing more while the payment is pending.
    await spend(user.client, 3);
    await settled();
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(1);

    yk.succeed(first!.payment_id!);
    expect((await yk.notify(`${app.url}/api/billing/yookassa/notifications`, first!.payment_id!)).status).toBe(200);
    expect((await autoRows(user.userId))[0]!.status).toBe('succeeded');
    // Credited and above the threshold: spending below it is a new crossing.
    await setBalanceNano(app, user.userId, 50n * RUB + 2n * REQUEST_NANO);
    await spend(user.client, 3);
    await settled();
    expect(autopayments()).toHaveLength(2);
    expect((await autoRows(user.userId)).map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('switched on with the balance already below the threshold (even empty: no request settles), it tops up at once', async () => {
    const user = await customerWithCard();
    await setBalanceNano(app, user.userId, 0n);
    await configure(user.token, { amount: 10, threshold: 50 });
    await settled();
    expect(autopayments()).toHaveLength(1);
    expect(await moneyOf(user.token)).toBe(10);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the monthly limit stops it: with room for one, the second crossing pays nothing', async () => {
    const user = await customerWithCard();
    await configure(user.token, { amount: 10, monthlyLimit: 15 });
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(1);
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(1);
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body).toMatchObject({ enabled: true, monthSpent: 10, monthlyLimit: 15 });
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('three failed payments in a row: a mail each, then auto top-up is off and says so', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    yk.scriptCharges({ cancel: 'insufficient_funds' }, { cancel: 'card_expired' }, { cancel: 'insufficient_funds' });
    for (let i = 1; i <= 3; i++) {
      await justAbove(user.userId, 1);
      await spend(user.client, 2);
      await settled();
      expect(autopayments()).toHaveLength(i);
      const mail = await smtp.waitFor(user.email, i - 1);
      expect(mail.subject).toContain('Автопополнение на 10,00');
      expect(mail.text).toContain('Bank card *4477');
      if (i < 3) expect(mail.text).toContain('остаётся включённым');
      else expect(mail.text).toContain('3-я неудача подряд, поэтому автопополнение выключено');
    }
    expect(mailsTo(user.email)[0]!.text).toContain('на карте недостаточно средств');
    expect(mailsTo(user.email)[1]!.text).toContain('истёк срок действия карты');
    const view = (await api('GET', '/api/billing/auto-topup', user.token)).body;
    expect(view).toMatchObject({ enabled: false, consecutiveFailures: 3, monthSpent: 0 });
    expect(view.card).not.toBeNull();
    expect(view.attempts.map((a: { status: string; cancellationReason: string }) => [a.status, a.cancellationReason])).toEqual([
      ['canceled', 'insufficient_funds'],
      ['canceled', 'card_expired'],
      ['canceled', 'insufficient_funds'],
    ]);
    // Off: a further crossing pays nothing.
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(3);
    // Switched on again, the count starts afresh; the balance is below the threshold, so it pays at once.
    expect((await configure(user.token)).consecutiveFailures).toBe(0);
    await settled();
    expect(autopayments()).toHaveLength(4);
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body).toMatchObject({ enabled: true, consecutiveFailures: 0, monthSpent: 10 });
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a success resets the failure count', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    yk.scriptCharges({ cancel: 'insufficient_funds' });
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body.consecutiveFailures).toBe(1);
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect((await api('GET', '/api/billing/auto-topup', user.token)).body).toMatchObject({ enabled: true, consecutiveFailures: 0, monthSpent: 10 });
  });

  test('a card YooKassa no longer keeps (saved: false): the card is forgotten and auto top-up is off, with a mail', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    yk.revokeMethod(user.methodId);
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(1);
    const view = (await api('GET', '/api/billing/auto-topup', user.token)).body;
    expect(view).toMatchObject({ enabled: false, card: null, attempts: [{ status: 'canceled', cancellationReason: 'permission_revoked' }] });
    expect(await app.sql('select 1 from saved_cards where user_id = $1', [user.userId])).toEqual([]);
    const mail = await smtp.waitFor(user.email);
    expect(mail.text).toContain('мы удалили её, автопополнение выключено');
  });

  test('removing the card switches auto top-up off; it cannot be switched on again without a card, and nothing is charged', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    const removed = await api('DELETE', '/api/billing/card', user.token);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ enabled: false, card: null, amount: 10, threshold: 50 });
    expect((await api('PUT', '/api/billing/auto-topup', user.token, { enabled: true, amount: 10, threshold: 50, monthlyLimit: 1000 })).status).toBe(400);
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(0);
  });

  test.skipIf(!onPostgres)('two instances on one database: both cross at once, one payment', async () => {
    const second = await startTestApp({ env: env(), database: app.database });
    try {
      const user = await customerWithCard();
      await configure(user.token);
      await justAbove(user.userId, 10);
      await Promise.all([spend(user.client, 15), spend(openaiClient(second, user.key), 15)]);
      await Promise.all([settleAll(app), settleAll(second)]);
      // Both check the same user at the same moment: the latch lets one through.
      await Promise.all([app.instance.services.topups.autoTopup.check([user.userId]), second.instance.services.topups.autoTopup.check([user.userId])]);
      await Promise.all([settled(app), settled(second)]);
      expect(autopayments()).toHaveLength(1);
      expect((await autoRows(user.userId)).map((r) => r.status)).toEqual(['succeeded']);
      expect(await unbalancedUsers(app)).toEqual([]);
    } finally {
      await second.stop();
    }
  });
});

describe('the card id stays secret', () => {
  test('no answer read in this file and no log line the app wrote holds a saved card’s YooKassa id', async () => {
    const user = await customerWithCard();
    await configure(user.token);
    await justAbove(user.userId, 1);
    await spend(user.client, 2);
    await settled();
    expect(autopayments()).toHaveLength(1);
    for (const path of ['/api/billing/auto-topup', '/api/billing/topups', `/api/billing/topups/${user.topupId}`, '/api/balance']) {
      expect((await api('GET', path, user.token)).status).toBe(200);
    }
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.some((l) => l.includes('auto top-up charged'))).toBe(true);
    expect(methodIds.length).toBeGreaterThan(5);
    for (const id of methodIds) {
      expect(answers.filter((a) => a.includes(id))).toEqual([]);
      expect(logLines.filter((l) => l.includes(id))).toEqual([]);
    }
  });
});
