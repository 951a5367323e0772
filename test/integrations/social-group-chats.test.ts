// VK group chats (issue 38 row 12): a chat (peer_id ≥ 2,000,000,000) is one peer for all its members, and the
// assistant keys a client by peer, so one member could book and another list and cancel it. Chats are not
// served: their messages and button presses reach no assistant; the same person is served in private messages.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { actionsOf, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const CHAT = 2_000_000_007;
const MEMBER_A = 40911501;
const MEMBER_B = 40911502;

let vk: FakeVk;
let app: TestApp;

beforeAll(async () => {
  vk = await startFakeVk();
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url } });
});
afterAll(async () => {
  await app?.close();
  await vk?.close();
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

const { post, messageNew, sendAndWait, processed } = createSocialDriver(
  () => app,
  () => vk,
);

async function connectedServiceAgent() {
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Лён»', type: 'service' } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  return { owner, agentId };
}

/** A message of a chat member, as VK posts it: the chat's peer_id, the member's from_id. */
function chatMessage(text: string, member: number) {
  const body = messageNew(text, { peerId: CHAT }) as { event_id: string; object: { message: Record<string, unknown> } };
  body.object.message.from_id = member;
  return body;
}

/** A callback-button press in the chat: the chat's peer_id, the member's user_id. */
function chatPress(payload: Record<string, unknown>, member: number) {
  const eventId = `chat-btn-${Math.random().toString(36).slice(2, 10)}`;
  vk.addMessageEvent({ groupId: GROUP, eventId, userId: member, peerId: CHAT });
  return {
    type: 'message_event',
    event_id: `evt-chat-btn-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
    v: '5.199',
    group_id: GROUP,
    secret: SECRET,
    object: { user_id: member, peer_id: CHAT, event_id: eventId, payload, conversation_message_id: 700 },
  };
}

describe('VK group chats (row 12)', () => {
  test('messages and button presses in a group chat reach no assistant: acknowledged to VK, nothing sent to the chat, no dialogue', async () => {
    const { owner, agentId } = await connectedServiceAgent();
    const events = [
      chatMessage('Привет', MEMBER_A),
      chatMessage('Мои записи', MEMBER_B),
      chatPress({ action: 'book' }, MEMBER_B),
      chatPress({ action: 'menu' }, MEMBER_A),
    ];
    for (const event of events) {
      const res = await post(agentId, event);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
    }
    for (const event of events) expect(await processed(agentId, event.event_id)).toBe('group_chat');
    // The presses were answered, so the buttons stop spinning; nothing else went to VK for the chat.
    await waitFor(() => vk.eventAnswers.length >= 2, 5000, 'the presses to be acknowledged');
    expect(vk.eventAnswers.map((a) => a.peerId)).toEqual([CHAT, CHAT]);
    expect(vk.sentMessages.filter((m) => m.peerId === CHAT)).toEqual([]);
    const dialogues = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token: owner.token });
    expect(dialogues.status).toBe(200);
    expect(dialogues.body.dialogues).toEqual([]);
  });

  test('the same member writing to the community privately is served as a client of their own', async () => {
    const { owner, agentId } = await connectedServiceAgent();
    await post(agentId, chatMessage('Привет', MEMBER_A));
    const [menu] = await sendAndWait(agentId, messageNew('Привет', { peerId: MEMBER_A }), 1, MEMBER_A);
    expect(actionsOf(menu!)).toContain('book');
    expect(vk.sentMessages.filter((m) => m.peerId === CHAT)).toEqual([]);
    const dialogues = await call(app.url, 'GET', `/api/v1/agents/${agentId}/dialogues`, { token: owner.token });
    expect(dialogues.body.dialogues.map((d: { client: { vkUserId: number | null } }) => d.client.vkUserId)).toEqual([MEMBER_A]);
  });
});
