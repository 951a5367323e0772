// Price groups and the assistants (issue 45, point 1): an agent's model calls are billed to its owner in the
// owner's price group — at the group's prices, and refused for a model outside the group's list before
// anything is reserved or sent. A VK client writes to a Creator agent; a fake model host answers.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { balanceNanoInDb, settleAll, START_NANO, unbalancedUsers } from '../helpers/gateway';
import { CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const ADMIN = uniqueEmail('groups-assistant-admin');

let vk: FakeVk;
let upstream: FakeUpstream;
let app: TestApp;
let admin: string;

beforeAll(async () => {
  [vk, upstream] = await Promise.all([startFakeVk(), startFakeUpstream()]);
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: upstream.url, ADMIN_EMAILS: ADMIN, ASSISTANT_DEBOUNCE_MS: '0' } });
  admin = (await registerAdmin(app, ADMIN)).token;
  const put = await call(app.url, 'PUT', '/api/admin/prices', { token: admin, body: { pattern: 'acme/*', promptPerMillion: 1, completionPerMillion: 2 } });
  expect(put.status).toBe(200);
  for (const body of [
    { name: 'double', title: 'Двойная', multiplier: 2 },
    { name: 'narrow', title: 'Только large', allowedModels: ['acme/large'] },
  ]) {
    expect((await call(app.url, 'POST', '/api/admin/price-groups', { token: admin, body })).status).toBe(201);
  }
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), upstream?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  upstream.reset();
});

const { messageNew, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

/** A Creator agent on acme/chat whose owner is in `group`, connected to the VK community. */
async function agentOwnedIn(group: string) {
  const owner = await registerUser(app.url);
  expect((await call(app.url, 'PUT', `/api/admin/users/${owner.userId}/price-group`, { token: admin, body: { group } })).status).toBe(200);
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: 'creator', model: 'acme/chat', systemPrompt: 'Ты — вежливый администратор салона.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const social = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(social.status).toBe(200);
  // The first message is greeted with the menu, without the model.
  await sendAndWait(agentId, messageNew('Привет'));
  return { owner, agentId };
}

const modelCalls = () => upstream.requests.filter((r) => r.path === '/v1/chat/completions');

describe('an agent’s model calls', () => {
  test('are priced in the owner’s group, exact to the nano-unit', async () => {
    const { owner, agentId } = await agentOwnedIn('double');
    const [answer] = await sendAndWait(agentId, messageNew('Сколько стоит стрижка?'));
    expect(answer!.message).toBe('Echo: Сколько стоит стрижка?');
    expect(modelCalls()).toHaveLength(1);
    await settleAll(app);
    const rows = await app.sql<{ agent_id: string; prompt_tokens: unknown; completion_tokens: unknown; cost_nano: unknown }>(
      'select agent_id, prompt_tokens, completion_tokens, cost_nano from usage_records where user_id = $1',
      [owner.userId],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.agent_id).toBe(agentId);
    // acme/* lists at 1000 and 2000 nano a token; the group pays twice that.
    const cost = BigInt(String(row.prompt_tokens)) * 2000n + BigInt(String(row.completion_tokens)) * 4000n;
    expect(BigInt(String(row.cost_nano))).toBe(cost);
    expect(await balanceNanoInDb(app, owner.userId)).toBe(START_NANO - cost);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('are refused for a model outside the owner’s group: no model asked, nothing billed', async () => {
    const { owner, agentId } = await agentOwnedIn('narrow');
    const [reply] = await sendAndWait(agentId, messageNew('Сколько стоит стрижка?'));
    expect(reply!.message).not.toContain('Echo:');
    expect(modelCalls()).toHaveLength(0);
    await settleAll(app);
    expect(await app.sql('select id from usage_records where user_id = $1', [owner.userId])).toHaveLength(0);
    expect(await balanceNanoInDb(app, owner.userId)).toBe(START_NANO);
  });
});
