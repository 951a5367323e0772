// Broadcasts (issue 42 point 7), over HTTP with a fake VK: only clients who allowed messages (message_allow,
// no message_deny since) get one, through the outbox, once each, with «Отписаться» under it; a tap records
// the denial and confirms it, and that client gets no later broadcast; a send VK refuses is counted failed;
// queued messages survive a restart and are delivered once.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { buttonsOf, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const ANNA = 40911233;
const BORIS = 40911234;
const VERA = 40911235;
const GLEB = 40911236;
/** Retries come soon, so a test waits for them in seconds. */
const RETRY_MS = '100';
const UNSUBSCRIBED = 'Вы отписались от рассылок: больше их не пришлём. Если напишете нам, ответим как обычно.';

let vk: FakeVk;
let app: TestApp;

beforeAll(async () => {
  vk = await startFakeVk();
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, OUTBOX_RETRY_BASE_MS: RETRY_MS } });
});
afterAll(async () => {
  await app?.close();
  await vk?.close();
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

const driver = createSocialDriver(
  () => app,
  () => vk,
);

async function connectedAgent() {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Лён»', type: 'service', model: 'acme/chat' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return { token: owner.token, agentId };
}

/** Posts a consent event as VK does and waits until it is handled; the fake VK follows the client's choice. */
async function consent(agentId: string, peerId: number, allowed: boolean) {
  const event = driver.consent(allowed, peerId);
  const res = await driver.post(agentId, event);
  expect(await res.text()).toBe('ok');
  expect(await driver.processed(agentId, event.event_id)).toBe(allowed ? 'allowed' : 'denied');
  if (allowed) vk.allowMessages(GROUP, peerId);
  else vk.denyMessages(GROUP, peerId);
}

const base = (agentId: string) => `/api/v1/agents/${agentId}/broadcasts`;
const send = (token: string, agentId: string, text: string, requestId = crypto.randomUUID()) =>
  call(app.url, 'POST', base(agentId), { token, body: { text, requestId } });
const broadcast = (token: string, agentId: string, id: string) => call(app.url, 'GET', `${base(agentId)}/${id}`, { token });
const to = (peerId: number) => vk.sentMessages.filter((m) => m.peerId === peerId);

/** Waits until both of the agent's queued messages have failed at least twice and wait for a retry. */
async function bothRetrying(agentId: string) {
  await waitFor(
    async () =>
      (await app.sql<{ n: number }>(`select count(*)::int as n from outbox where agent_id = $1 and attempts >= 2 and status = 'pending'`, [agentId]))[0]?.n === 2,
    5000,
    'both messages to be retried',
  );
}

/** VK answers again (its queued failures dropped), the clients' consent as it was. */
function vkBackUp(allowed: number[]) {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  for (const peer of allowed) vk.allowMessages(GROUP, peer);
}

/** Waits until the broadcast has nothing left in the queue, and returns its counts. */
async function settled(token: string, agentId: string, id: string) {
  return waitFor(
    async () => {
      const res = await broadcast(token, agentId, id);
      return res.body.pending === 0 ? res.body : null;
    },
    8000,
    'the broadcast to be delivered',
  );
}

describe('broadcasts', () => {
  test('three clients, one denied: two get it once with «Отписаться»; counts 2/0; a tap unsubscribes from later ones', async () => {
    const { token, agentId } = await connectedAgent();
    await consent(agentId, ANNA, true);
    await consent(agentId, BORIS, true);
    await consent(agentId, VERA, true);
    await consent(agentId, VERA, false);
    // Gleb wrote to the community but never allowed messages: a reply is fine, a broadcast is not.
    vk.allowMessages(GROUP, GLEB);

    const text = '  Скидка 20% на стрижки до воскресенья!\nЗапишитесь в сообщениях.  ';
    const preview = await call(app.url, 'POST', `${base(agentId)}/preview`, { token, body: { text } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ text: text.trim(), button: 'Отписаться', recipients: 2 });
    expect(vk.sentMessages).toHaveLength(0);

    const requestId = crypto.randomUUID();
    const sent = await send(token, agentId, text, requestId);
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ text: text.trim(), recipients: 2 });
    const counts = await settled(token, agentId, sent.body.id);
    expect(counts).toMatchObject({ recipients: 2, delivered: 2, failed: 0, skipped: 0, pending: 0 });
    for (const peer of [ANNA, BORIS]) {
      expect(to(peer).map((m) => m.message)).toEqual([text.trim()]);
      expect(buttonsOf(to(peer)[0]!).map((b) => [b.action.type, b.action.label, JSON.parse(b.action.payload)])).toEqual([
        ['callback', 'Отписаться', { action: 'unsubscribe' }],
      ]);
    }
    expect(to(VERA)).toHaveLength(0);
    expect(to(GLEB)).toHaveLength(0);

    // The page retried its POST: the same broadcast, nobody gets it twice.
    const again = await send(token, agentId, text, requestId);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(sent.body.id);
    await Bun.sleep(300);
    expect(vk.sentMessages).toHaveLength(2);
    const list = await call(app.url, 'GET', base(agentId), { token });
    expect(list.body.audience).toBe(2);
    expect(list.body.broadcasts.map((b: { id: string; delivered: number }) => [b.id, b.delivered])).toEqual([[sent.body.id, 2]]);

    // Anna taps «Отписаться»: the press is answered, she is told, the transcript shows it.
    const tap = await driver.sendAndWait(agentId, driver.messageEvent({ action: 'unsubscribe' }, ANNA), 1, ANNA);
    expect(tap.map((m) => m.message)).toEqual([UNSUBSCRIBED]);
    expect(vk.eventAnswers.length).toBeGreaterThanOrEqual(1);

    const later = await send(token, agentId, 'Новые мастера в салоне — приходите знакомиться');
    expect(later.body.recipients).toBe(1);
    expect(await settled(token, agentId, later.body.id)).toMatchObject({ recipients: 1, delivered: 1, failed: 0 });
    expect(to(BORIS).map((m) => m.message)).toEqual([text.trim(), 'Новые мастера в салоне — приходите знакомиться']);
    expect(to(ANNA).map((m) => m.message)).toEqual([text.trim(), UNSUBSCRIBED]);

    // The owner sees both in Anna's transcript: the broadcast, her tap, the confirmation.
    const dialogues = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token });
    const anna = dialogues.body.dialogues.find((d: { client: { vkUserId: number } }) => d.client.vkUserId === ANNA);
    const turns = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues/${anna.id}/messages`, { token });
    type Turn = { author: string; text: string; operatorName: string | null; buttons: string[][] | null; tap: boolean };
    expect(turns.body.messages.map((m: Turn) => [m.author, m.text, m.operatorName, m.buttons, m.tap]).reverse()).toEqual([
      ['operator', text.trim(), 'Рассылка', [['Отписаться']], false],
      ['client', 'Отписаться', null, null, true],
      ['assistant', UNSUBSCRIBED, null, null, false],
    ]);
  });

  test('«Отписаться» typed under a broadcast acts as the button', async () => {
    const { token, agentId } = await connectedAgent();
    await consent(agentId, ANNA, true);
    const sent = await send(token, agentId, 'Акция недели');
    await settled(token, agentId, sent.body.id);
    const told = await driver.sendAndWait(agentId, driver.messageNew('отписаться!', { peerId: ANNA }), 1, ANNA);
    expect(told.map((m) => m.message)).toEqual([UNSUBSCRIBED]);
    const list = await call(app.url, 'GET', base(agentId), { token });
    expect(list.body.audience).toBe(0);
  });

  test('a send VK refuses is counted failed; a client who denies while queued is skipped', async () => {
    const { token, agentId } = await connectedAgent();
    for (const peer of [ANNA, BORIS]) await consent(agentId, peer, true);
    vk.failNext('messages.send', { error_code: 902, error_msg: "Can't send messages to this user due to their privacy settings" });
    const sent = await send(token, agentId, 'Мы открылись после ремонта');
    const counts = await settled(token, agentId, sent.body.id);
    expect(counts).toMatchObject({ recipients: 2, delivered: 1, failed: 1, skipped: 0, pending: 0 });
    expect(vk.sentMessages).toHaveLength(1);

    // Boris denies messages after the next broadcast is queued, before VK takes it: skipped, not sent.
    vk.failNext('messages.send', { error_code: 10, error_msg: 'Internal server error' }, 1000);
    const next = await send(token, agentId, 'Последний день акции');
    await bothRetrying(agentId);
    await consent(agentId, BORIS, false);
    // VK still refuses: Boris's message comes round again, reads his denial and is dropped; then VK is back.
    await waitFor(async () => (await broadcast(token, agentId, next.body.id)).body.skipped === 1, 5000, 'the denied client to be skipped');
    vkBackUp([ANNA]);
    expect(await settled(token, agentId, next.body.id)).toMatchObject({ recipients: 2, delivered: 1, failed: 0, skipped: 1, pending: 0 });
    expect(vk.sentMessages.map((m) => [m.peerId, m.message])).toEqual([[ANNA, 'Последний день акции']]);
  });

  test('queued messages are delivered once after a restart', async () => {
    const { token, agentId } = await connectedAgent();
    for (const peer of [ANNA, BORIS]) await consent(agentId, peer, true);
    // VK fails every send: the rows wait for their retries while the instance stops.
    vk.failNext('messages.send', { error_code: 10, error_msg: 'Internal server error' }, 1000);
    const sent = await send(token, agentId, 'Приглашаем на день открытых дверей');
    await bothRetrying(agentId);
    await app.stop();
    vkBackUp([ANNA, BORIS]);
    app = await startTestApp({ database: app.database, env: { VK_API_BASE_URL: vk.url, OUTBOX_RETRY_BASE_MS: RETRY_MS } });
    expect(await settled(token, agentId, sent.body.id)).toMatchObject({ recipients: 2, delivered: 2, failed: 0 });
    expect(to(ANNA)).toHaveLength(1);
    expect(to(BORIS)).toHaveLength(1);
  });

  test('validation, ownership, an agent without a community', async () => {
    const { token, agentId } = await connectedAgent();
    expect((await send(token, agentId, '   ')).status).toBe(400);
    expect((await send(token, agentId, 'а'.repeat(4097))).status).toBe(400);
    const nul = await send(token, agentId, 'текст\u0000');
    expect(nul.status).toBe(400);
    expect(nul.body.error.type).toBe('invalid_request_error');
    expect((await call(app.url, 'POST', base(agentId), { token, body: { text: 'ok', requestId: 'x' } })).status).toBe(400);
    expect((await send(token, agentId, 'а'.repeat(4096))).status).toBe(201);

    const stranger = await registerUser(app.url);
    const foreign = await send(stranger.token, agentId, 'чужая рассылка');
    expect(foreign.status).toBe(403);
    expect((await call(app.url, 'GET', base(agentId), { token: stranger.token })).status).toBe(403);
    expect((await call(app.url, 'GET', base(crypto.randomUUID()), { token })).status).toBe(404);
    expect((await broadcast(token, agentId, crypto.randomUUID())).status).toBe(404);
    expect((await broadcast(token, agentId, 'nope')).status).toBe(404);

    const bare = await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Без ВК', type: 'creator', model: 'acme/chat' } });
    const refused = await call(app.url, 'POST', `${base(bare.body.id)}/preview`, { token, body: { text: 'привет' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('Сообщество ВКонтакте не подключено');
  });
});
