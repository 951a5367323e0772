// Balance and key-limit alerts (issue 32 point 5): GET|PUT /api/account/alerts, one e-mail per crossing
// of the low-balance threshold (again only after a credit lifted the balance to it and it fell again),
// one per key reaching 80 % of its limit, the same events as signed webhooks retried through the outbox,
// and one mail from two instances on PostgreSQL. Spending goes through /v1 with the OpenAI SDK; the mail
// reaches the suite's SMTP server and the webhook a small HTTP server here that checks the signature.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { nanoToDecimalString } from '../../src/money';
import { openaiClient, setBalanceNano } from '../helpers/gateway';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const PUBLIC_BASE_URL = 'https://conduit.example';
const ADMIN_EMAIL = uniqueEmail('alerts-admin');
/** One request with max_tokens 5 costs 12 prompt + 5 completion tokens at 125 nano-units. */
const REQUEST_NANO = 2125n;
/** One with max_tokens 500 from fake/long-500: 12 + 500 tokens, 64 000 nano-units (its reservation is close to it). */
const LARGE_NANO = 64_000n;

interface Delivery {
  body: string;
  headers: Headers;
}

/** A customer's webhook endpoint: records every call, answers the queued statuses first, then 200. */
function startReceiver() {
  const deliveries: Delivery[] = [];
  const statuses: number[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      deliveries.push({ body: await req.text(), headers: req.headers });
      return new Response('ok', { status: statuses.shift() ?? 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hooks/conduit`,
    deliveries,
    statuses,
    async waitFor(count: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (deliveries.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook calls, got ${deliveries.length}`);
        await Bun.sleep(25);
      }
    },
    stop: () => server.stop(true),
  };
}

/** What a receiver does with the documented scheme: HMAC-SHA256 over `<t>.<raw body>`, compared in constant time. */
function verifySignature(secret: string, delivery: Delivery): boolean {
  const header = delivery.headers.get('x-conduit-signature') ?? '';
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  if (!parts.t || !parts.v1 || parts.t !== delivery.headers.get('x-conduit-timestamp')) return false;
  const expected = createHmac('sha256', secret).update(`${parts.t}.${delivery.body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

let smtp: FakeSmtp;
let fake: FakeUpstream;
let app: TestApp;
let adminToken: string;

const env = () => ({
  UPSTREAM_BASE_URL: fake.url,
  SMTP_URL: smtp.url,
  SMTP_FROM: 'Conduit <no-reply@conduit.example>',
  PUBLIC_BASE_URL,
  ADMIN_EMAILS: ADMIN_EMAIL,
  OUTBOX_RETRY_BASE_MS: '200',
  OUTBOX_POLL_INTERVAL_MS: '100',
});

beforeAll(async () => {
  smtp = await startFakeSmtp();
  fake = await startFakeUpstream();
  app = await startTestApp({ env: env() });
  adminToken = (await registerAdmin(app, ADMIN_EMAIL)).token;
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
  await smtp?.close();
});

/** `requests` answers one after another; `large`: 12 + 500 tokens each (LARGE_NANO), else 12 + 5 (REQUEST_NANO). */
async function spend(target: TestApp, key: string, requests: number, large = false) {
  const client = openaiClient(target, key);
  for (let i = 0; i < requests; i++) {
    await client.chat.completions.create({
      model: large ? 'fake/long-500' : 'acme/chat',
      messages: [{ role: 'user', content: 'Привет!' }],
      max_tokens: large ? 500 : 5,
    });
  }
}

/** Writes the instance's settlements and waits for the alert checks they started. */
async function settled(target: TestApp = app) {
  await target.instance.services.billing.flush();
  await target.instance.services.alerts.checker.idle();
}

const queued = async (kind: 'alerts.mail' | 'alerts.webhook', recipient: string) =>
  Number((await app.sql<{ n: unknown }>('select count(*)::int as n from outbox where kind = $1 and recipient = $2', [kind, recipient]))[0]!.n);
const mailsTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));

async function credit(userId: string, amount: number) {
  const res = await call(app.url, 'POST', `/api/admin/users/${userId}/credit`, {
    token: adminToken,
    body: { amount, reason: 'test top-up', reference: `alerts-${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(200);
}

async function userAt(balanceNano: bigint, settings: Record<string, unknown>) {
  const user = await registerUser(app.url);
  const put = await call(app.url, 'PUT', '/api/account/alerts', { token: user.token, body: settings });
  expect(put.status).toBe(200);
  await setBalanceNano(app, user.userId, balanceNano);
  const { key } = await createApiKey(app.url, user.token);
  return { ...user, key, put: put.body };
}

describe('settings', () => {
  test('GET shows the defaults; PUT sets the threshold alone and keeps what it does not name', async () => {
    const { token } = await registerUser(app.url);
    const empty = await call(app.url, 'GET', '/api/account/alerts', { token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      lowBalanceThreshold: null,
      keyLimitAlerts: true,
      webhookUrl: null,
      webhookSecret: null,
      webhookSecretShown: false,
      emailEnabled: true,
      currency: 'RUB',
    });
    const put = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { lowBalanceThreshold: 1.5 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ lowBalanceThreshold: 1.5, keyLimitAlerts: true, webhookUrl: null });
    await call(app.url, 'PUT', '/api/account/alerts', { token, body: { keyLimitAlerts: false } });
    expect((await call(app.url, 'GET', '/api/account/alerts', { token })).body).toMatchObject({ lowBalanceThreshold: 1.5, keyLimitAlerts: false });
    const off = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { lowBalanceThreshold: null } });
    expect(off.body.lowBalanceThreshold).toBeNull();
  });

  test('the webhook secret is shown once, masked after, replaced on rotation and dropped with the URL', async () => {
    const { token } = await registerUser(app.url);
    const set = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: 'https://hooks.example.com/conduit' } });
    expect(set.status).toBe(200);
    const secret = set.body.webhookSecret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(set.body.webhookSecretShown).toBe(true);
    const read = await call(app.url, 'GET', '/api/account/alerts', { token });
    expect(read.body.webhookSecretShown).toBe(false);
    expect(read.text).not.toContain(secret.slice(10));
    expect(read.body.webhookSecret).toContain('••••');
    const stored = await app.sql('select * from account_alerts');
    expect(JSON.stringify(stored)).not.toContain(secret.slice(10));
    // Changing only the threshold keeps the secret.
    const same = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { lowBalanceThreshold: 2 } });
    expect(same.body).toMatchObject({ webhookUrl: 'https://hooks.example.com/conduit', webhookSecretShown: false });
    const rotated = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { rotateWebhookSecret: true } });
    expect(rotated.body.webhookSecretShown).toBe(true);
    expect(rotated.body.webhookSecret).not.toBe(secret);
    const removed = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: null } });
    expect(removed.body).toMatchObject({ webhookUrl: null, webhookSecret: null });
  });

  test('bad settings are 400 invalid_request_error with a Russian message naming the field; no JWT is 401', async () => {
    const { token } = await registerUser(app.url);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ lowBalanceThreshold: -1 }, /Порог баланса: должен быть больше нуля/],
      [{ lowBalanceThreshold: 0 }, /Порог баланса: должен быть больше нуля/],
      [{ lowBalanceThreshold: '5' }, /Порог баланса: число/],
      [{ lowBalanceThreshold: 0.0000000001 }, /Порог баланса: не более 9 знаков/],
      [{ lowBalanceThreshold: 2_000_000_000 }, /Порог баланса: не больше/],
      [{ keyLimitAlerts: 'yes' }, /Уведомления о лимитах ключей: true или false/],
      [{ webhookUrl: 'ftp://hooks.example.com/x' }, /Адрес вебхука: укажите адрес http/],
      [{ webhookUrl: 'not a url' }, /Адрес вебхука/],
      [{ webhookUrl: 'https://user:pass@hooks.example.com/x' }, /Адрес вебхука/],
      [{ webhookUrl: `https://example.com/${'a'.repeat(2001)}` }, /Адрес вебхука: адрес не длиннее 2000/],
      [{ rotateWebhookSecret: true }, /сначала укажите адрес вебхука/],
    ];
    for (const [body, message] of cases) {
      const res = await call(app.url, 'PUT', '/api/account/alerts', { token, body });
      expect({ body, status: res.status, type: res.body?.error?.type }).toEqual({ body, status: 400, type: 'invalid_request_error' });
      expect(res.body.error.message).toMatch(message);
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
    expect((await call(app.url, 'GET', '/api/account/alerts', { token })).body.lowBalanceThreshold).toBeNull();
    for (const method of ['GET', 'PUT']) {
      const res = await call(app.url, method, '/api/account/alerts', { body: method === 'PUT' ? { lowBalanceThreshold: 1 } : undefined });
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('unauthorized');
    }
  });

  test('without ALERT_WEBHOOK_ALLOW_PRIVATE, loopback, private and metadata addresses are refused', async () => {
    const strict = await startTestApp({ env: { ALERT_WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const { token } = await registerUser(strict.url);
      for (const url of [
        'http://127.0.0.1:8080/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://192.168.0.10/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[fd00::1]/hook',
      ]) {
        const res = await call(strict.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: url } });
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        expect(res.body.error.message).toContain('внутреннюю сеть');
      }
      const publicAddress = await call(strict.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: 'https://93.184.215.14/hook' } });
      expect(publicAddress.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('low balance', () => {
  test('spending below the threshold mails once; more spending mails nothing more; a credit above and spending below again mails again', async () => {
    // Threshold 1; the balance 1.000003 is above it for one request and below after the second.
    const user = await userAt(1_000_003_000n, { lowBalanceThreshold: 1 });
    await spend(app, user.key, 1);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(0);

    await spend(app, user.key, 1);
    await settled();
    const mail = await smtp.waitFor(user.email);
    const balance = 1_000_003_000n - 2n * REQUEST_NANO;
    expect(mail.subject).toContain('Баланс');
    // 0,99999875 is written as every sum the dashboard shows: two decimals.
    expect(mail.text).toContain('на балансе 1,00\u00a0₽');
    expect(mail.text).not.toContain('0,99999875');
    expect(mail.text).toContain('порог 1,00\u00a0₽');
    expect(mail.text).toContain(`${PUBLIC_BASE_URL}/app/topups`);
    expect(balance).toBe(999_998_750n);

    await spend(app, user.key, 2);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(1);

    // A credit that leaves the balance under the threshold does not arm it again.
    await credit(user.userId, 0.000001);
    await spend(app, user.key, 1);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(1);

    // One that lifts it above does: the next fall below mails again (not before).
    await credit(user.userId, 0.00001);
    await spend(app, user.key, 1);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(1);
    await spend(app, user.key, 1);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(2);
    await smtp.waitFor(user.email, 1);
    expect(mailsTo(user.email)).toHaveLength(2);
  });

  test('a mail the SMTP server refuses for now is sent again later through the outbox', async () => {
    const user = await userAt(1_000_001_000n, { lowBalanceThreshold: 1 });
    smtp.setRefusing(true);
    try {
      await spend(app, user.key, 1);
      await settled();
      const deadline = Date.now() + 10_000;
      let lastError: string | null = null;
      while (!lastError && Date.now() < deadline) {
        const [row] = await app.sql<{ last_error: string | null }>(`select last_error from outbox where kind = 'alerts.mail' and recipient = $1`, [user.email]);
        lastError = row?.last_error ?? null;
        await Bun.sleep(25);
      }
      expect(lastError).toContain('SMTP');
      expect(mailsTo(user.email)).toHaveLength(0);
    } finally {
      smtp.setRefusing(false);
    }
    const mail = await smtp.waitFor(user.email);
    expect(mail.text).toContain(`${PUBLIC_BASE_URL}/app/topups`);
    expect(await queued('alerts.mail', user.email)).toBe(1);
  });

  test('the mail writes the balance as the dashboard does: «1 599,50 ₽», not every nano-unit', async () => {
    const user = await userAt(1_599_499_970_375n + REQUEST_NANO, { lowBalanceThreshold: 1600 });
    await spend(app, user.key, 1);
    await settled();
    const mail = await smtp.waitFor(user.email);
    expect(mail.text).toContain('1\u202f599,50\u00a0₽');
    expect(mail.text).toContain('порог 1\u202f600,00\u00a0₽');
    expect(mail.text).not.toContain('599,49');
  });

  test('without a threshold nothing is mailed however low the balance goes', async () => {
    const user = await userAt(1_000n * REQUEST_NANO, {});
    await spend(app, user.key, 2);
    await settled();
    expect(await queued('alerts.mail', user.email)).toBe(0);
  });
});

describe('key limit', () => {
  test('a key reaching 80 % of its limit mails once; spending on mails nothing more', async () => {
    const { token, email } = await registerUser(app.url);
    // 0.001 = 1 000 000 nano-units: 80 % is passed by the 13th request (13 × 64 000 = 832 000), not the 12th.
    const created = await call(app.url, 'POST', '/api/keys', { token, body: { name: 'Продакшн', spendLimit: 0.001, limitReset: 'day' } });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    await spend(app, key, 12, true);
    await settled();
    expect(await queued('alerts.mail', email)).toBe(0);
    await spend(app, key, 1, true);
    await settled();
    const mail = await smtp.waitFor(email);
    expect(mail.subject).toContain('Продакшн');
    expect(mail.subject).toContain('80 %');
    expect(mail.text).toContain(`${nanoToDecimalString(13n * LARGE_NANO).replace('.', ',')}\u00a0₽`);
    expect(mail.text).toContain('0,001\u00a0₽ в сутки');
    expect(mail.text).toContain(`${PUBLIC_BASE_URL}/app/keys`);
    await spend(app, key, 1, true);
    await settled();
    expect(await queued('alerts.mail', email)).toBe(1);

    // A new limit value is a new alert once the key is past 80 % of it (14 × 64 000 = 896 000 = 80 % of 0.00112).
    const raised = await call(app.url, 'PATCH', `/api/keys/${created.body.id}`, { token, body: { spendLimit: 0.00112 } });
    expect(raised.status).toBe(200);
    await spend(app, key, 1, true);
    await settled();
    expect(await queued('alerts.mail', email)).toBe(2);
  });

  test('keyLimitAlerts: false mails nothing for keys', async () => {
    const { token, email } = await registerUser(app.url);
    await call(app.url, 'PUT', '/api/account/alerts', { token, body: { keyLimitAlerts: false } });
    const created = await call(app.url, 'POST', '/api/keys', { token, body: { name: 'тихий', spendLimit: 0.00007 } });
    await spend(app, created.body.key, 1, true);
    await settled();
    expect(await queued('alerts.mail', email)).toBe(0);
  });
});

describe('webhook', () => {
  test('delivered signed with the account secret, retried after a 500 with the same body', async () => {
    const receiver = startReceiver();
    try {
      const user = await userAt(1_000_003_000n, { lowBalanceThreshold: 1, webhookUrl: receiver.url });
      const secret = user.put.webhookSecret as string;
      receiver.statuses.push(500);
      await spend(app, user.key, 2);
      await settled();
      await receiver.waitFor(2);
      const [first, second] = receiver.deliveries as [Delivery, Delivery];
      expect(first.body).toBe(second.body);
      for (const d of [first, second]) {
        expect(d.headers.get('content-type')).toBe('application/json');
        expect(verifySignature(secret, d)).toBe(true);
        expect(verifySignature('whsec_wrong', d)).toBe(false);
      }
      const event = JSON.parse(first.body);
      expect(event).toMatchObject({
        type: 'balance.low',
        balance: 0.99999875,
        threshold: 1,
        currency: 'RUB',
        topupUrl: `${PUBLIC_BASE_URL}/app/topups`,
      });
      expect(event.id).toMatch(/^evt_/);
      expect(Math.abs(event.created - Date.now() / 1000)).toBeLessThan(60);
      // Signed over the exact bytes: a body changed in transit fails the check.
      expect(verifySignature(secret, { ...second, body: second.body.replace('balance.low', 'balance.lox') })).toBe(false);
      const deadline = Date.now() + 5_000;
      let row: { status: string; attempts: number } | undefined;
      while (Date.now() < deadline) {
        [row] = await app.sql<{ status: string; attempts: number }>(`select status, attempts from outbox where kind = 'alerts.webhook' and recipient = $1`, [
          receiver.url,
        ]);
        if (row?.status === 'sent') break;
        await Bun.sleep(50);
      }
      expect(row).toEqual({ status: 'sent', attempts: 2 });
      // The mail went too, once.
      await smtp.waitFor(user.email);
      expect(await queued('alerts.mail', user.email)).toBe(1);
    } finally {
      receiver.stop();
    }
  });

  test('an event whose delivery failed goes to the new URL once the user moves the webhook; none once removed', async () => {
    const [before, after] = [startReceiver(), startReceiver()];
    try {
      const user = await userAt(1_000_001_000n, { lowBalanceThreshold: 1, webhookUrl: before.url });
      const secret = user.put.webhookSecret as string;
      before.statuses.push(500);
      await spend(app, user.key, 1);
      await settled();
      await before.waitFor(1);
      const moved = await call(app.url, 'PUT', '/api/account/alerts', { token: user.token, body: { webhookUrl: after.url } });
      expect(moved.body).toMatchObject({ webhookUrl: after.url, webhookSecretShown: false });
      await after.waitFor(1);
      expect(after.deliveries[0]!.body).toBe(before.deliveries[0]!.body);
      expect(verifySignature(secret, after.deliveries[0]!)).toBe(true);
      expect(before.deliveries).toHaveLength(1);

      // Removed: a queued event is dropped, not sent anywhere. The credit lifts the balance (re-arming the
      // alert), the balance is set to the threshold, and one request takes it below again.
      await credit(user.userId, 1);
      await setBalanceNano(app, user.userId, 1_000_000_000n);
      // Two failures, so that a retry slipping in before the removal still fails.
      after.statuses.push(500, 500);
      await spend(app, user.key, 1);
      await settled();
      await after.waitFor(2);
      await call(app.url, 'PUT', '/api/account/alerts', { token: user.token, body: { webhookUrl: null } });
      const deadline = Date.now() + 5_000;
      let status = 'pending';
      while (Date.now() < deadline && status === 'pending') {
        const rows = await app.sql<{ status: string }>(
          `select status from outbox where kind = 'alerts.webhook' and payload->>'userId' = $1 order by id desc limit 1`,
          [user.userId],
        );
        status = rows[0]?.status ?? 'missing';
        await Bun.sleep(50);
      }
      expect(status).toBe('failed');
      expect(after.deliveries.length).toBeLessThanOrEqual(3);
      expect(after.deliveries.slice(1).every((d) => JSON.parse(d.body).type === 'balance.low')).toBe(true);
    } finally {
      before.stop();
      after.stop();
    }
  });

  test('a key alert reaches the webhook as key.limit_near', async () => {
    const receiver = startReceiver();
    try {
      const { token } = await registerUser(app.url);
      const put = await call(app.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: receiver.url } });
      // 80 % of 150 000 is 120 000: passed by the second request (128 000).
      const created = await call(app.url, 'POST', '/api/keys', { token, body: { name: 'бот', spendLimit: 0.00015, limitReset: 'month' } });
      await spend(app, created.body.key, 2, true);
      await settled();
      await receiver.waitFor(1);
      const delivery = receiver.deliveries[0]!;
      expect(verifySignature(put.body.webhookSecret, delivery)).toBe(true);
      expect(JSON.parse(delivery.body)).toMatchObject({
        type: 'key.limit_near',
        keyId: created.body.id,
        keyName: 'бот',
        spent: 0.000128,
        limit: 0.00015,
        limitReset: 'month',
      });
    } finally {
      receiver.stop();
    }
  });
});

describe.skipIf(!onPostgres)('two instances on PostgreSQL', () => {
  test('spending on both below the threshold sends one mail', async () => {
    const second = await startTestApp({ env: env(), database: app.database });
    try {
      const user = await userAt(1_000_000_000n + 3n * REQUEST_NANO, { lowBalanceThreshold: 1 });
      await Promise.all([spend(app, user.key, 3), spend(second, user.key, 3)]);
      await Promise.all([settled(app), settled(second)]);
      // Both check the same user at the same moment: the claim lets one through.
      await Promise.all([app.instance.services.alerts.checker.check([user.userId]), second.instance.services.alerts.checker.check([user.userId])]);
      expect(await queued('alerts.mail', user.email)).toBe(1);
      await smtp.waitFor(user.email);
      await Bun.sleep(500);
      expect(mailsTo(user.email)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
