// Alert webhook delivery that cannot stall or bloat the server (issue 38 rows 3 and 14): at most a few KB of
// any answer is read, a receiver that never answers is cut off and holds up neither another account's
// webhook nor a VK reply, an account keeps at most ALERT_WEBHOOK_MAX_QUEUED waiting events, every IPv6 form
// that carries or reaches an IPv4 address is refused, and the connection goes to the address that was
// checked. Spending goes through /v1 with the OpenAI SDK (as alerts.test.ts), the webhooks reach small
// servers here, the VK reply the fake VK.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { DROPPED_EVENT_ERROR } from '../../src/alerts/checker';
import { createAlertWebhookHandler } from '../../src/alerts/delivery';
import { createLogger } from '../../src/logger';
import { startInstance } from '../../src/server';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, createApiKey, registerUser, startTestApp, testConfig, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { openaiClient, setBalanceNano } from '../helpers/gateway';
import { waitFor } from '../helpers/messenger';
import { CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(60_000);

let fake: FakeUpstream;
let vk: FakeVk;
let app: TestApp;

beforeAll(async () => {
  [fake, vk] = await Promise.all([startFakeUpstream(), startFakeVk()]);
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  app = await startTestApp({
    env: { UPSTREAM_BASE_URL: fake.url, VK_API_BASE_URL: vk.url, OUTBOX_POLL_INTERVAL_MS: '50', OUTBOX_RETRY_BASE_MS: '200' },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([fake?.close(), vk?.close()]);
});

/** One request of 12 + 5 tokens: 2125 nano-units. */
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

async function settled(target: TestApp) {
  await target.instance.services.billing.flush();
  await target.instance.services.alerts.checker.idle();
}

/** A user whose next request takes the balance under the threshold of 1, with `webhookUrl` set. */
async function accountWithWebhook(target: TestApp, webhookUrl: string) {
  const user = await registerUser(target.url);
  const put = await call(target.url, 'PUT', '/api/account/alerts', { token: user.token, body: { lowBalanceThreshold: 1, webhookUrl } });
  expect(put.status).toBe(200);
  await setBalanceNano(target, user.userId, 1_000_001_000n);
  const { key } = await createApiKey(target.url, user.token);
  return { ...user, key };
}

/** Fires the account's low-balance alert: one request, settled, the check run. */
async function fireAlert(target: TestApp, account: { key: string }) {
  await spend(target, account.key, 1);
  await settled(target);
}

const rowsOf = (target: TestApp, userId: string) =>
  target.sql<{ id: number; status: string; last_error: string | null }>(
    `select id::int as id, status, last_error from outbox where kind = 'alerts.webhook' and payload->>'userId' = $1 order by id`,
    [userId],
  );

/**
 * A receiver that takes the request and never answers. `log` is shared with the test, so the order of what
 * happened elsewhere (another delivery, a VK reply) against its requests can be read.
 */
function startSilentReceiver(log: string[], name: string) {
  let open = 0;
  let opened = 0;
  let mostOpen = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    // Counted from the connection: an SMTP client sends nothing before the server's greeting.
    open += 1;
    opened += 1;
    mostOpen = Math.max(mostOpen, open);
    log.push(`${name} open`);
    socket.on('close', () => {
      sockets.delete(socket);
      open -= 1;
      log.push(`${name} closed`);
    });
    socket.on('error', () => {});
    // Read and dropped, so the client's closing is seen.
    socket.resume();
  });
  return new Promise<{ url: string; open(): number; opened(): number; mostOpen(): number; stop(): void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/conduit`,
        open: () => open,
        opened: () => opened,
        mostOpen: () => mostOpen,
        stop() {
          for (const s of sockets) s.destroy();
          server.close();
        },
      }),
    ),
  );
}

/** A receiver that answers every call 200 at once, noting it in `log`. */
function startReceiver(log: string[], name: string, hostname = '127.0.0.1', port = 0) {
  const bodies: string[] = [];
  const server = Bun.serve({
    port,
    hostname,
    async fetch(req) {
      bodies.push(await req.text());
      log.push(name);
      return new Response('ok');
    },
  });
  return { url: `http://${hostname}:${server.port}/hooks/conduit`, port: server.port!, bodies, stop: () => server.stop(true) };
}

describe('what a webhook answers', () => {
  test('an answer of 128 MB is not read past a few KB: the socket is closed long before the receiver could send it, and the event counts as delivered', async () => {
    const TOTAL = 128 * 1024 * 1024;
    let written = 0;
    let finished = false;
    let closed = false;
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.on('close', () => {
        closed = true;
      });
      socket.once('data', () => {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${TOTAL}\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        // Writes as fast as the reader takes it: past what the socket buffers hold, only reading makes room.
        const pump = () => {
          while (written < TOTAL) {
            written += chunk.length;
            if (!socket.write(chunk)) {
              socket.once('drain', pump);
              return;
            }
          }
          finished = true;
        };
        pump();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const account = await accountWithWebhook(app, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
      await fireAlert(app, account);
      const [row] = await waitFor(
        async () => {
          const rows = await rowsOf(app, account.userId);
          return rows[0]?.status === 'sent' ? rows : null;
        },
        15_000,
        'the event to be recorded as sent',
      );
      expect(row!.last_error).toBeNull();
      await waitFor(() => closed, 15_000, 'the server to close the connection');
      // The kernel's socket buffers hold a few MB at most; the rest was never asked for.
      expect(finished).toBe(false);
      expect(written).toBeLessThan(32 * 1024 * 1024);
    } finally {
      server.close();
    }
  });
});

describe('a receiver that never answers', () => {
  test('is cut off after its time, and meanwhile another account’s webhook and a VK reply are delivered', async () => {
    const log: string[] = [];
    const silent = await startSilentReceiver(log, 'silent');
    const working = startReceiver(log, 'working');
    const { sendAndWait, messageNew } = createSocialDriver(
      () => app,
      () => vk,
    );
    try {
      const dead = await accountWithWebhook(app, silent.url);
      const alive = await accountWithWebhook(app, working.url);
      await fireAlert(app, dead);
      await waitFor(() => silent.open() > 0, 10_000, 'the silent receiver to get its call');

      // Another account's event goes out while the first call still hangs.
      await fireAlert(app, alive);
      await waitFor(() => working.bodies.length > 0, 10_000, 'the other account’s webhook');
      log.push(`working seen, silent open ${silent.open()}`);

      // A client's VK message is answered while it still hangs.
      const owner = await registerUser(app.url);
      const agent = await call(app.url, 'POST', '/api/agents', {
        token: owner.token,
        body: { name: 'Салон «Лён»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — вежливый администратор салона.' },
      });
      expect(agent.status).toBe(201);
      const saved = await call(app.url, 'PUT', `/api/v1/social/${agent.body.id}/settings`, {
        token: owner.token,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);
      const [reply] = await sendAndWait(agent.body.id, messageNew('Помощь'));
      expect(reply!.message).toContain('Что я умею');
      log.push(`vk seen, silent open ${silent.open()}`);

      // Both happened inside the silent call, not after it was given up.
      const firstClose = log.indexOf('silent closed');
      expect(log.slice(0, firstClose < 0 ? log.length : firstClose)).toEqual(['silent open', 'working', 'working seen, silent open 1', 'vk seen, silent open 1']);

      // The silent call is cut off by the server (not by the receiver) and retried later.
      await waitFor(() => log.includes('silent closed'), 20_000, 'the server to give up the silent call');
      const [row] = await waitFor(
        async () => {
          const rows = await rowsOf(app, dead.userId);
          return rows[0]?.last_error ? rows : null;
        },
        5_000,
        'the failed attempt to be recorded',
      );
      expect(row!.status).toBe('pending');
      expect(row!.last_error).toBe('webhook did not answer in time');
    } finally {
      silent.stop();
      working.stop();
    }
  });
});

describe('many receivers that never answer', () => {
  test('take at most 16 delivery slots: a VK reply still goes out while they all hang', async () => {
    const log: string[] = [];
    const silent = await startSilentReceiver(log, 'silent');
    const { sendAndWait, messageNew } = createSocialDriver(
      () => app,
      () => vk,
    );
    try {
      const accounts = [];
      for (let i = 0; i < 20; i++) accounts.push(await accountWithWebhook(app, silent.url));
      const owner = await registerUser(app.url);
      const agent = await call(app.url, 'POST', '/api/agents', {
        token: owner.token,
        body: { name: 'Салон «Лён»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — вежливый администратор салона.' },
      });
      const saved = await call(app.url, 'PUT', `/api/v1/social/${agent.body.id}/settings`, {
        token: owner.token,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);

      // Twenty accounts' alerts at once, each to a receiver that never answers.
      await Promise.all(accounts.map((a) => spend(app, a.key, 1)));
      await settled(app);
      await waitFor(() => silent.open() >= 16, 10_000, 'sixteen calls to hang');
      const peerId = 40911377;
      const [reply] = await sendAndWait(agent.body.id, messageNew('Помощь', { peerId }), 1, peerId);
      expect(reply!.message).toContain('Что я умею');
      // Answered while the webhook calls hung; never more than 16 of them at once, though 20 were due.
      expect(silent.open()).toBeGreaterThan(0);
      expect(silent.mostOpen()).toBe(16);
    } finally {
      silent.stop();
    }
  });
});

describe('a mail server that never answers', () => {
  test('holds up neither a VK reply nor another account’s webhook while the alert mail waits for it', async () => {
    const log: string[] = [];
    const silentSmtp = await startSilentReceiver(log, 'smtp');
    const mailing = await startTestApp({
      env: {
        UPSTREAM_BASE_URL: fake.url,
        VK_API_BASE_URL: vk.url,
        SMTP_URL: `smtp://127.0.0.1:${new URL(silentSmtp.url).port}`,
        SMTP_FROM: 'Conduit <no-reply@conduit.example>',
        OUTBOX_POLL_INTERVAL_MS: '50',
      },
    });
    const working = startReceiver(log, 'working');
    const { sendAndWait, messageNew } = createSocialDriver(
      () => mailing,
      () => vk,
    );
    try {
      // A threshold without a webhook: the alert is a mail only, to a server that takes the connection and never greets.
      const mailed = await registerUser(mailing.url);
      expect((await call(mailing.url, 'PUT', '/api/account/alerts', { token: mailed.token, body: { lowBalanceThreshold: 1 } })).status).toBe(200);
      await setBalanceNano(mailing, mailed.userId, 1_000_001_000n);
      await fireAlert(mailing, { key: (await createApiKey(mailing.url, mailed.token)).key });
      await waitFor(() => silentSmtp.open() > 0, 10_000, 'the mail to reach the silent SMTP server');

      const alive = await accountWithWebhook(mailing, working.url);
      await fireAlert(mailing, alive);
      await waitFor(() => working.bodies.length > 0, 10_000, 'the other account’s webhook');
      log.push(`working seen, smtp open ${silentSmtp.open()}`);

      const owner = await registerUser(mailing.url);
      const agent = await call(mailing.url, 'POST', '/api/agents', {
        token: owner.token,
        body: { name: 'Салон «Лён»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — вежливый администратор салона.' },
      });
      const saved = await call(mailing.url, 'PUT', `/api/v1/social/${agent.body.id}/settings`, {
        token: owner.token,
        body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
      });
      expect(saved.status).toBe(200);
      const peerId = 40911299;
      const [reply] = await sendAndWait(agent.body.id, messageNew('Помощь', { peerId }), 1, peerId);
      expect(reply!.message).toContain('Что я умею');
      log.push(`vk seen, smtp open ${silentSmtp.open()}`);

      // Both happened while the mail server held the alert mail (the other account's mail may hold a second connection).
      const firstClose = log.indexOf('smtp closed');
      const before = log.slice(0, firstClose < 0 ? log.length : firstClose);
      expect(before[0]).toBe('smtp open');
      expect(before).toContain('working');
      expect(before.filter((l) => l.includes(' seen, ')).map((l) => l.replace(/open [1-9]$/, 'open ≥ 1'))).toEqual([
        'working seen, smtp open ≥ 1',
        'vk seen, smtp open ≥ 1',
      ]);
    } finally {
      silentSmtp.stop();
      working.stop();
      await mailing.close();
    }
  });
});

describe('waiting events per account', () => {
  test('past ALERT_WEBHOOK_MAX_QUEUED the oldest waiting events are dropped, with a log line; the newest stay', async () => {
    const database = await createTestDatabase();
    const lines: string[] = [];
    const config = testConfig(database, { UPSTREAM_BASE_URL: fake.url, OUTBOX_POLL_INTERVAL_MS: '50', ALERT_WEBHOOK_MAX_QUEUED: '2' });
    const instance = await startInstance(config, { logger: createLogger('warn', {}, (line) => lines.push(line)) });
    const target: TestApp = {
      url: instance.url,
      instance,
      config,
      database,
      sql: (text, params) => instance.services.database.query(text, params),
      stop: () => instance.stop(1000),
      close: async () => {
        await instance.stop(1000);
        await database.drop();
      },
    };
    const log: string[] = [];
    const silent = await startSilentReceiver(log, 'silent');
    try {
      const user = await registerUser(target.url);
      expect((await call(target.url, 'PUT', '/api/account/alerts', { token: user.token, body: { webhookUrl: silent.url } })).status).toBe(200);
      await setBalanceNano(target, user.userId, 1_000_000_000n);
      // Five keys, each past 80 % of its limit after one request: five events for one dead receiver.
      for (let i = 0; i < 5; i++) {
        const created = await call(target.url, 'POST', '/api/keys', { token: user.token, body: { name: `ключ ${i}`, spendLimit: 0.00007 } });
        expect(created.status).toBe(201);
        await spend(target, created.body.key, 1, true);
        await settled(target);
      }
      const rows = await rowsOf(target, user.userId);
      expect(rows).toHaveLength(5);
      const dropped = rows.filter((r) => r.status === 'failed');
      const kept = rows.filter((r) => r.status === 'pending');
      // Two wait; at most one more is the call in delivery now.
      expect(kept.length).toBeGreaterThanOrEqual(2);
      expect(kept.length).toBeLessThanOrEqual(3);
      expect(kept.map((r) => r.id)).toEqual(expect.arrayContaining([rows[3]!.id, rows[4]!.id]));
      for (const r of dropped) expect(r.last_error).toBe(DROPPED_EVENT_ERROR);
      const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'alert webhook events dropped: too many waiting for the account');
      expect(logged.every((l) => l.userId === user.userId && l.max === 2)).toBe(true);
      expect(logged.reduce((sum, l) => sum + l.dropped, 0)).toBe(dropped.length);
      // Only one call of the account is ever open at once.
      expect(silent.opened()).toBeGreaterThan(0);
      expect(silent.mostOpen()).toBe(1);
    } finally {
      silent.stop();
      await target.close();
    }
  });
});

describe('addresses', () => {
  test('every IPv6 form that carries or reaches an IPv4 address, NAT64, 6to4, Teredo and site-local are refused; a public IPv6 is taken', async () => {
    const strict = await startTestApp({ env: { ALERT_WEBHOOK_ALLOW_PRIVATE: 'false' } });
    try {
      const { token } = await registerUser(strict.url);
      for (const url of [
        'http://[::127.0.0.1]/hook',
        'http://[::ffff:0:7f00:1]/hook',
        'http://[2002:7f00:1::]/hook',
        'http://[fec0::1]/hook',
        'http://[64:ff9b:1::a00:1]/hook',
        'http://[64:ff9b::7f00:1]/hook',
        // Carrying a public IPv4 address changes nothing: the form itself is refused.
        'http://[::ffff:93.184.215.14]/hook',
        'http://[::5db8:d70e]/hook',
        'http://[64:ff9b::5db8:d70e]/hook',
        'http://[2002:5db8:d70e::1]/hook',
        'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
        'http://[fec0:1:2::3]/hook',
      ]) {
        const res = await call(strict.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: url } });
        expect({ url, status: res.status }).toEqual({ url, status: 400 });
        expect(res.body.error.type).toBe('invalid_request_error');
        expect(res.body.error.message).toContain('внутреннюю сеть');
      }
      const publicV6 = await call(strict.url, 'PUT', '/api/account/alerts', { token, body: { webhookUrl: 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook' } });
      expect(publicV6.status).toBe(200);
    } finally {
      await strict.close();
    }
  });

  test('a delivery connects to the address its name was checked at: a second, different DNS answer is never asked for', async () => {
    const log: string[] = [];
    // The name's first answer, and where a second answer would lead (127.0.0.2 and 127.0.0.1 are both loopback).
    const checked = startReceiver(log, 'checked', '127.0.0.2');
    const other = startReceiver(log, 'other', '127.0.0.1', checked.port);
    try {
      const user = await registerUser(app.url);
      const url = `http://hooks.rebind.test:${checked.port}/hooks/conduit`;
      expect((await call(app.url, 'PUT', '/api/account/alerts', { token: user.token, body: { webhookUrl: url } })).status).toBe(200);
      const questions: string[] = [];
      const handler = createAlertWebhookHandler({
        settings: app.instance.services.alerts.settings,
        config: app.config,
        logger: createLogger('silent'),
        // A name whose answers change between two questions (DNS rebinding).
        resolve: async (host) => {
          questions.push(host);
          return [{ address: questions.length === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
        },
      });
      const body = JSON.stringify({ id: 'evt_rebind', type: 'balance.low' });
      const outcome = await handler.deliver({
        id: 1,
        kind: 'alerts.webhook',
        agentId: null,
        notificationId: null,
        recipient: url,
        lane: null,
        payload: { userId: user.userId, body },
        attempts: 1,
      });
      expect(outcome.result).toEqual({ status: 200 });
      expect(questions).toEqual(['hooks.rebind.test']);
      expect(log).toEqual(['checked']);
      expect(checked.bodies).toEqual([body]);
    } finally {
      checked.stop();
      other.stop();
    }
  });
});
