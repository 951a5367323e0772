// A model turn that takes long, and a claim that finds nothing to answer (issue 39 row 9, point 6): with
// bursts on, a worker claims a client's owed answer for ASSISTANT_TURN_LEASE_SECONDS and renews the claim
// while its turn runs, so the periodic sweep never answers the same burst a second time (twice billed,
// tools run twice); a claim with no client message after the last answer is skipped.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startScriptedModelHost, type ScriptedModelHost } from '../fakes/scripted-model';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

/** Long enough that a loaded machine's pause (seconds, on two shared cores) is not taken for a lapse. */
const LEASE_SECONDS = 8;

let host: ScriptedModelHost;
let vk: FakeVk;
let app: TestApp;

beforeAll(async () => {
  [host, vk] = await Promise.all([startScriptedModelHost(), startFakeVk()]);
  app = await startTestApp({
    env: {
      VK_API_BASE_URL: vk.url,
      UPSTREAM_BASE_URL: host.url,
      ASSISTANT_DEBOUNCE_MS: '50',
      ASSISTANT_TURN_LEASE_SECONDS: String(LEASE_SECONDS),
      // The sweep (every 5 polls) looks for lapsed claims often.
      OUTBOX_POLL_INTERVAL_MS: '50',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([host?.close(), vk?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
});

const { messageNew, post, processed } = createSocialDriver(
  () => app,
  () => vk,
);
let modelCounter = 0;

async function agentWith(script: Parameters<ScriptedModelHost['script']>[1]) {
  const model = `lease/m${++modelCounter}`;
  host.script(model, script);
  const owner = await registerUser(app.url);
  const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Лён»', type: 'creator', model } });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  return { agentId, sent: () => host.requestsFor(model) };
}

const toClient = () => vk.sentMessages.filter((m) => m.peerId === CLIENT).map((m) => m.message);

describe('a turn longer than its lease (row 9)', () => {
  test('the model thinks past ASSISTANT_TURN_LEASE_SECONDS: the claim is renewed, the burst is answered once, the model asked once', async () => {
    let open!: () => void;
    const thinking = new Promise<void>((resolve) => (open = resolve));
    const agent = await agentWith(async (_body, index) => {
      if (index > 0) return { text: 'второй ответ на тот же вопрос' };
      await thinking;
      return { text: 'Работаем каждый день с 10 до 20.' };
    });
    const body = messageNew('Когда вы работаете?') as { event_id: string };
    expect((await post(agent.agentId, body)).status).toBe(200);
    expect(await processed(agent.agentId, body.event_id)).toBe('answer_deferred');
    await waitFor(() => agent.sent().length === 1, 5000, 'the model to be asked');
    try {
      // Well past the lease: a claim not renewed would have lapsed and been answered again by the sweep.
      await Bun.sleep(LEASE_SECONDS * 1000 + 2000);
      expect(agent.sent()).toHaveLength(1);
    } finally {
      open();
    }
    await waitFor(() => toClient().length === 1, 5000, 'the answer');
    await Bun.sleep(500);
    expect(toClient()).toEqual(['Работаем каждый день с 10 до 20.']);
    expect(agent.sent()).toHaveLength(1);
  });

  test('a claim of a burst whose turn already answered (a lapsed lease after the answer went out) is skipped: no second answer, no model call', async () => {
    const agent = await agentWith(() => ({ text: 'ответ модели' }));
    const [dialogue] = await app.sql<{ id: string }>(`insert into dialogues (agent_id, channel, peer_id) values ($1, 'social', $2) returning id`, [
      agent.agentId,
      String(CLIENT),
    ]);
    await app.sql(`insert into dialogue_messages (dialogue_id, role, content) values ($1, 'user', 'Вы работаете в воскресенье?')`, [dialogue!.id]);
    // The model's answer to that burst (request vk-old) went out...
    await app.sql(`insert into dialogue_messages (dialogue_id, role, content, request_id) values ($1, 'assistant', 'Да, с 11 до 18.', 'vk-old')`, [dialogue!.id]);
    // ...and its worker lost the claim before releasing it.
    await app.sql(
      `update dialogues set answer_due_at = now() - interval '1 second', answer_locked_until = now() - interval '1 second', answer_request_id = 'vk-old' where id = $1`,
      [dialogue!.id],
    );
    await waitFor(
      async () => {
        const [row] = await app.sql<{ answer_due_at: unknown; answer_locked_until: unknown }>(
          'select answer_due_at, answer_locked_until from dialogues where id = $1',
          [dialogue!.id],
        );
        return row!.answer_due_at === null && row!.answer_locked_until === null;
      },
      5000,
      'the sweep to claim and release it',
    );
    await Bun.sleep(300);
    expect(agent.sent()).toHaveLength(0);
    expect(toClient()).toEqual([]);
  });
});
