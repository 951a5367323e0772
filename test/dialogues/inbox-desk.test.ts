// The inbox as a chat desk over HTTP (issue 41 point 2): one list across all the owner's agents with the
// clients waiting for a person pinned on top, internal notes the client (and the model) never get, the
// text «Вернуть ассистенту» will send shown beforehand — the very text VK then receives — and the owner's
// quick replies. Another user's agent or dialogue is refused as decisions.md says (403, unknown 404).
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

let vk: FakeVk;
let upstream: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  [vk, upstream] = await Promise.all([startFakeVk(), startFakeUpstream()]);
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url, OUTBOX_POLL_INTERVAL_MS: '50' } });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), upstream?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

const { messageNew, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

async function connectedAgent(token: string, name: string) {
  const created = await call(app.url, 'POST', '/api/agents', {
    token,
    body: { name, type: 'service', model: 'acme/chat', systemPrompt: 'Ты — администратор.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return agentId;
}

/** A client of `agentId` who asks for a person and gives a phone: handed over, held by nobody. */
async function waitingClient(agentId: string, peerId: number) {
  await sendAndWait(agentId, messageNew('оператор', { peerId }), 1, peerId);
  await sendAndWait(agentId, messageNew('+7 916 123-45-67', { peerId }), 1, peerId);
}

type Item = { id: string; state: string; waitingSince: string | null; agent: { id: string; name: string }; client: { vkUserId: number } };

describe('one inbox across the owner’s agents', () => {
  test('every agent’s dialogues, each naming its agent; the waiting one pinned with its waiting time; filters by agent, state and search', async () => {
    const owner = await registerUser(app.url);
    const salon = await connectedAgent(owner.token, 'Салон «Лён»');
    const barber = await connectedAgent(owner.token, 'Барбершоп');
    await sendAndWait(salon, messageNew('Сколько стоит стрижка?'));
    await sendAndWait(barber, messageNew('Есть запись на субботу?', { peerId: CLIENT + 1 }), 1, CLIENT + 1);
    const escalatedAt = Date.now();
    await waitingClient(barber, CLIENT + 2);
    // The newest activity is not the waiting client's: it is still on top, apart from the rest.
    await sendAndWait(salon, messageNew('А окрашивание?'));

    const all = await call(app.url, 'GET', '/api/v1/dialogues', { token: owner.token });
    expect(all.status).toBe(200);
    const waiting = all.body.waiting as Item[];
    const rest = all.body.dialogues as Item[];
    expect(waiting.map((d) => [d.agent.name, d.client.vkUserId, d.state])).toEqual([['Барбершоп', CLIENT + 2, 'escalated']]);
    const since = Date.parse(waiting[0]!.waitingSince!);
    expect(since).toBeGreaterThanOrEqual(escalatedAt - 1000);
    expect(since).toBeLessThanOrEqual(Date.now());
    expect(rest.map((d) => [d.agent.name, d.client.vkUserId])).toEqual([
      ['Салон «Лён»', CLIENT],
      ['Барбершоп', CLIENT + 1],
    ]);
    expect(rest.every((d) => d.waitingSince === null && d.state === 'bot')).toBe(true);
    expect(rest.map((d) => d.agent.id)).toEqual([salon, barber]);

    // By agent, by state, and the search as in an agent's list.
    const barberOnly = await call(app.url, 'GET', `/api/v1/dialogues?agentId=${barber}`, { token: owner.token });
    expect(barberOnly.body.waiting.map((d: Item) => d.client.vkUserId)).toEqual([CLIENT + 2]);
    expect(barberOnly.body.dialogues.map((d: Item) => d.client.vkUserId)).toEqual([CLIENT + 1]);
    const bots = await call(app.url, 'GET', '/api/v1/dialogues?state=bot', { token: owner.token });
    expect(bots.body.waiting).toEqual([]);
    expect(bots.body.dialogues).toHaveLength(2);
    const onlyWaiting = await call(app.url, 'GET', '/api/v1/dialogues?state=escalated', { token: owner.token });
    expect(onlyWaiting.body.waiting).toHaveLength(1);
    expect(onlyWaiting.body.dialogues).toEqual([]);
    const found = await call(app.url, 'GET', `/api/v1/dialogues?q=${encodeURIComponent('субботу')}`, { token: owner.token });
    expect(found.body.waiting).toEqual([]);
    expect(found.body.dialogues.map((d: Item) => d.client.vkUserId)).toEqual([CLIENT + 1]);
    // Paged: the waiting one stays on the first page; the next page holds the rest.
    const first = await call(app.url, 'GET', '/api/v1/dialogues?limit=1', { token: owner.token });
    expect(first.body.waiting).toHaveLength(1);
    expect(first.body.dialogues).toHaveLength(1);
    const second = await call(app.url, 'GET', `/api/v1/dialogues?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, { token: owner.token });
    expect(second.body.waiting).toEqual([]);
    expect(second.body.dialogues.map((d: Item) => d.client.vkUserId)).toEqual([CLIENT + 1]);
    expect(second.body.nextCursor).toBeNull();

    // The waiting time is in an agent's own list and dialogue too; taken over, nothing waits.
    const one = await call(app.url, 'GET', `/api/v1/agents/${barber}/dialogues/${waiting[0]!.id}`, { token: owner.token });
    expect(one.body.waitingSince).toBe(waiting[0]!.waitingSince);
    await call(app.url, 'POST', `/api/v1/agents/${barber}/dialogues/${waiting[0]!.id}/takeover`, { token: owner.token });
    const taken = await call(app.url, 'GET', '/api/v1/dialogues', { token: owner.token });
    expect(taken.body.waiting).toEqual([]);
    expect(taken.body.dialogues.find((d: Item) => d.id === waiting[0]!.id)).toMatchObject({ state: 'operator', waitingSince: null });

    // Only the owner's own: another user sees an empty inbox, and is refused the owner's agent.
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/v1/dialogues', { token: stranger.token })).body).toEqual({ waiting: [], dialogues: [], nextCursor: null });
    const foreign = await call(app.url, 'GET', `/api/v1/dialogues?agentId=${salon}`, { token: stranger.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.type).toBe('forbidden');
    const unknown = await call(app.url, 'GET', '/api/v1/dialogues?agentId=00000000-0000-4000-8000-000000000000', { token: owner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.type).toBe('not_found');
    expect((await call(app.url, 'GET', '/api/v1/dialogues')).status).toBe(401);
    const badState = await call(app.url, 'GET', '/api/v1/dialogues?state=waiting', { token: owner.token });
    expect(badState.status).toBe(400);
    expect(badState.body.error.type).toBe('invalid_request_error');
  });
});

describe('internal notes', () => {
  test('a note is in the transcript as a note, never reaches VK nor the model, and counts as no message', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token, 'Салон «Лён»');
    await sendAndWait(agentId, messageNew('Подскажите цены'));
    const [dialogue] = (await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token: owner.token })).body.dialogues;
    const sentBefore = vk.sentMessages.length;
    const outboxBefore = await app.sql<{ n: string }>('select count(*)::text as n from outbox where agent_id = $1', [agentId]);

    const NOTE = 'Постоянная клиентка, скидка 10% по карте';
    const added = await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/notes`, { token: owner.token, body: { text: `  ${NOTE} ` } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ author: 'note', text: NOTE, operatorName: owner.email });

    // Nothing queued, nothing sent: the outbox has no new row and VK gets nothing while the outbox keeps polling.
    const outboxAfter = await app.sql<{ n: string }>('select count(*)::text as n from outbox where agent_id = $1', [agentId]);
    expect(outboxAfter[0]!.n).toBe(outboxBefore[0]!.n);
    await Bun.sleep(400);
    expect(vk.sentMessages.length).toBe(sentBefore);

    // The transcript shows it as a note; the list's preview and the dialogue's state are as before.
    const turns = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/messages`, { token: owner.token });
    expect(turns.body.messages[0]).toMatchObject({ author: 'note', text: NOTE });
    const listed = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}`, { token: owner.token });
    expect(listed.body).toMatchObject({ state: 'bot', lastMessage: { author: 'assistant', text: 'Echo: Подскажите цены' } });

    // The client writes again: the model's context has no note, and what VK gets is the model's answer alone.
    upstream.requests.length = 0;
    const [answer] = await sendAndWait(agentId, messageNew('Сколько стоит стрижка?'));
    expect(answer!.message).toBe('Echo: Сколько стоит стрижка?');
    const asked = upstream.requests.filter((r) => r.path.endsWith('/chat/completions'));
    expect(asked.length).toBeGreaterThan(0);
    expect(JSON.stringify(asked.map((r) => r.body))).not.toContain(NOTE);
    expect(vk.sentMessages.some((m) => m.message.includes(NOTE))).toBe(false);

    // Notes are not messages in the agent's results.
    const results = await call(app.url, 'GET', `/api/v1/agents/${agentId}/results`, { token: owner.token });
    expect(results.body.messages).toMatchObject({ total: 4, client: 2, assistant: 2, operator: 0 });

    // Empty, too long, another user's dialogue, an unknown one.
    const empty = await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/notes`, { token: owner.token, body: { text: '   ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.type).toBe('invalid_request_error');
    const long = await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/notes`, { token: owner.token, body: { text: 'я'.repeat(4001) } });
    expect(long.status).toBe(400);
    const stranger = await registerUser(app.url);
    const foreign = await call(app.url, 'POST', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/notes`, { token: stranger.token, body: { text: 'чужая' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.type).toBe('forbidden');
    const other = await connectedAgent(owner.token, 'Барбершоп');
    const elsewhere = await call(app.url, 'POST', `/api/v1/agents/${other}/dialogues/${dialogue.id}/notes`, { token: owner.token, body: { text: 'не туда' } });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.type).toBe('not_found');
    const count = await app.sql<{ n: string }>("select count(*)::text as n from dialogue_messages where role = 'note' and dialogue_id = $1", [dialogue.id]);
    expect(count[0]!.n).toBe('1');
  });
});

describe('«Вернуть ассистенту» says beforehand what the client will get', () => {
  test('the preview is the text VK then receives; nothing is previewed for a dialogue the assistant already has', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token, 'Салон «Лён»');
    await waitingClient(agentId, CLIENT);
    const [dialogue] = (await call(app.url, 'GET', '/api/v1/dialogues', { token: owner.token })).body.waiting;
    const path = `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/release`;

    const preview = await call(app.url, 'GET', path, { token: owner.token });
    expect(preview.status).toBe(200);
    expect(typeof preview.body.text).toBe('string');
    expect(preview.body.text.length).toBeGreaterThan(10);
    // Asking changes nothing: the client still waits and VK got nothing more.
    const sentBefore = vk.sentMessages.length;
    expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues/${dialogue.id}`, { token: owner.token })).body.state).toBe('escalated');

    expect((await call(app.url, 'POST', path, { token: owner.token })).status).toBe(200);
    await waitFor(() => vk.sentMessages.length > sentBefore, 5000, 'the release notice in VK');
    expect(vk.sentMessages.slice(sentBefore).map((m) => [m.peerId, m.message])).toEqual([[CLIENT, preview.body.text]]);

    // Back with the assistant: releasing again sends nothing, and the preview says so.
    expect((await call(app.url, 'GET', path, { token: owner.token })).body).toEqual({ text: null });

    const stranger = await registerUser(app.url);
    const foreign = await call(app.url, 'GET', path, { token: stranger.token });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.type).toBe('forbidden');
  });

  test('a client who forbade messages gets nothing, and the preview says nothing will be sent', async () => {
    const owner = await registerUser(app.url);
    const agentId = await connectedAgent(owner.token, 'Салон «Лён»');
    const peer = CLIENT + 5;
    await waitingClient(agentId, peer);
    const [dialogue] = (await call(app.url, 'GET', '/api/v1/dialogues', { token: owner.token })).body.waiting;
    await app.sql('update dialogues set messaging_allowed = false where id = $1', [dialogue.id]);
    const path = `/api/v1/agents/${agentId}/dialogues/${dialogue.id}/release`;
    expect((await call(app.url, 'GET', path, { token: owner.token })).body).toEqual({ text: null });
    const sentBefore = vk.sentMessages.length;
    expect((await call(app.url, 'POST', path, { token: owner.token })).status).toBe(200);
    await Bun.sleep(400);
    expect(vk.sentMessages.length).toBe(sentBefore);
  });
});

describe('quick replies', () => {
  test('the owner saves, lists, edits and deletes them; another user can neither see nor touch them', async () => {
    const owner = await registerUser(app.url);
    const empty = await call(app.url, 'GET', '/api/v1/quick-replies', { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ quickReplies: [] });

    const hours = await call(app.url, 'POST', '/api/v1/quick-replies', {
      token: owner.token,
      body: { title: ' Часы работы ', text: 'Мы работаем с 10 до 21 без выходных.' },
    });
    expect(hours.status).toBe(201);
    expect(hours.body).toMatchObject({ title: 'Часы работы', text: 'Мы работаем с 10 до 21 без выходных.' });
    const address = await call(app.url, 'POST', '/api/v1/quick-replies', { token: owner.token, body: { title: 'Адрес', text: 'Тверская, 7, вход со двора.' } });
    expect(address.status).toBe(201);
    const listed = await call(app.url, 'GET', '/api/v1/quick-replies', { token: owner.token });
    expect(listed.body.quickReplies.map((r: { title: string }) => r.title)).toEqual(['Адрес', 'Часы работы']);

    const edited = await call(app.url, 'PATCH', `/api/v1/quick-replies/${hours.body.id}`, { token: owner.token, body: { text: 'С 9 до 21.' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: hours.body.id, title: 'Часы работы', text: 'С 9 до 21.' });

    // Another user's: as unknown as a missing one.
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', '/api/v1/quick-replies', { token: stranger.token })).body).toEqual({ quickReplies: [] });
    const foreignEdit = await call(app.url, 'PATCH', `/api/v1/quick-replies/${hours.body.id}`, { token: stranger.token, body: { text: 'взлом' } });
    expect(foreignEdit.status).toBe(404);
    expect(foreignEdit.body.error.type).toBe('not_found');
    const foreignDelete = await call(app.url, 'DELETE', `/api/v1/quick-replies/${hours.body.id}`, { token: stranger.token });
    expect(foreignDelete.status).toBe(404);
    expect((await call(app.url, 'PATCH', '/api/v1/quick-replies/not-a-uuid', { token: owner.token, body: { text: 'x' } })).status).toBe(404);

    // Validation: empty title, too long a text, a NUL character; no credential.
    for (const body of [{ title: '  ', text: 'текст' }, { title: 'Длинный', text: 'я'.repeat(4001) }, { title: 'NUL', text: 'a\u0000b' }, { title: 'Без текста' }]) {
      const refused = await call(app.url, 'POST', '/api/v1/quick-replies', { token: owner.token, body });
      expect(refused.status).toBe(400);
      expect(refused.body.error.type).toBe('invalid_request_error');
    }
    expect((await call(app.url, 'GET', '/api/v1/quick-replies')).status).toBe(401);

    const removed = await call(app.url, 'DELETE', `/api/v1/quick-replies/${address.body.id}`, { token: owner.token });
    expect(removed.status).toBe(200);
    expect((await call(app.url, 'DELETE', `/api/v1/quick-replies/${address.body.id}`, { token: owner.token })).status).toBe(404);
    const left = await call(app.url, 'GET', '/api/v1/quick-replies', { token: owner.token });
    expect(left.body.quickReplies.map((r: { id: string; text: string }) => [r.id, r.text])).toEqual([[hours.body.id, 'С 9 до 21.']]);
  });
});
