// Issue 16, points 4 and 5, over HTTP. Every form's refusal names the field as the form labels it
// («ID сообщества», «Ключ доступа сообщества»…), never by its English key, on REST and /trpc alike, and
// /trpc also says which field (English path) so the page can show the message under it. The VK status
// is «connected» only after VK answered a check with the saved token, and the check uses that saved
// (sealed) token, so the owner need not type it again.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

let vk: FakeVk;
let app: TestApp;
let owner: Awaited<ReturnType<typeof registerUser>>;
const agents: Record<'creator' | 'service' | 'ecommerce', string> = { creator: '', service: '', ecommerce: '' };

beforeAll(async () => {
  vk = await startFakeVk();
  app = await startTestApp({ env: { VK_API_BASE_URL: vk.url } });
  owner = await registerUser(app.url);
  for (const type of ['creator', 'service', 'ecommerce'] as const) {
    const res = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: `Агент ${type}`, type } });
    expect(res.status).toBe(201);
    agents[type] = res.body.id;
  }
});
afterAll(async () => {
  await app?.close();
  await vk?.close();
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: 'a1b2c3d4' });
});

/** The English key as a word of its own (not inside another word such as nextCursor). */
const namesKey = (message: string, key: string) => new RegExp(`(^|[^A-Za-z])${key}([^A-Za-z]|$)`).test(message);

/** The refusals the issue lists, one per form, each with the label its form shows. */
const cases: { what: string; method: string; path: () => string; body: Record<string, unknown>; key: string; label: string }[] = [
  { what: 'VK group id', method: 'PUT', path: () => `/api/v1/social/${agents.creator}/settings`, body: { groupId: '12ab' }, key: 'groupId', label: 'ID сообщества' },
  {
    what: 'VK access token',
    method: 'PUT',
    path: () => `/api/v1/social/${agents.creator}/settings`,
    body: { groupId: GROUP, accessToken: 'not-a-token' },
    key: 'accessToken',
    label: 'Ключ доступа сообщества',
  },
  {
    what: 'VK secret key',
    method: 'PUT',
    path: () => `/api/v1/social/${agents.creator}/settings`,
    body: { groupId: GROUP, accessToken: TOKEN, secretKey: 'short' },
    key: 'secretKey',
    label: 'Секретный ключ',
  },
  {
    what: 'Telegram user id',
    method: 'PUT',
    path: () => `/api/v1/messenger/${agents.creator}/settings`,
    body: { userId: 'abc' },
    key: 'userId',
    label: 'ID пользователя для уведомлений',
  },
  {
    what: 'Telegram bot token',
    method: 'PUT',
    path: () => `/api/v1/messenger/${agents.creator}/settings`,
    body: { userId: 42, botToken: 5 },
    key: 'botToken',
    label: 'Токен бота',
  },
  {
    what: 'YCLIENTS company',
    method: 'PUT',
    path: () => `/api/v1/booking/${agents.service}/settings`,
    body: { companyId: 'x' },
    key: 'companyId',
    label: 'ID компании в YCLIENTS',
  },
  {
    what: 'YCLIENTS slot cache',
    method: 'PUT',
    path: () => `/api/v1/booking/${agents.service}/settings`,
    body: { companyId: 4564, slotCacheTtlMinutes: 1 },
    key: 'slotCacheTtlMinutes',
    label: 'Кэш свободного времени, минут',
  },
  {
    what: 'product title',
    method: 'POST',
    path: () => `/api/v1/commerce/${agents.ecommerce}/products`,
    body: { title: '', priceMinor: 100 },
    key: 'title',
    label: 'Название товара',
  },
  {
    what: 'product price',
    method: 'POST',
    path: () => `/api/v1/commerce/${agents.ecommerce}/products`,
    body: { title: 'Скатерть', priceMinor: -1 },
    key: 'priceMinor',
    label: 'Цена',
  },
  { what: 'agent model', method: 'POST', path: () => '/api/agents', body: { name: 'Агент', type: 'creator', model: 'gpt' }, key: 'model', label: 'Модель' },
  { what: 'agent name', method: 'POST', path: () => '/api/agents', body: { name: '', type: 'creator' }, key: 'name', label: 'Имя' },
  { what: 'key name', method: 'POST', path: () => '/api/keys', body: { name: '' }, key: 'name', label: 'Название ключа' },
  { what: 'top-up amount', method: 'POST', path: () => '/api/billing/topups', body: { amount: 'много' }, key: 'amount', label: 'Сумма пополнения' },
];

describe('validation messages name fields by their Russian labels (issue 16, point 4)', () => {
  test.each(cases.map((c) => [c.what, c] as const))('REST: %s', async (_what, c) => {
    const res = await call(app.url, c.method, c.path(), { token: owner.token, body: c.body });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error).sort()).toEqual(['message', 'type']);
    const message: string = res.body.error.message;
    expect(message).toContain(`${c.label}:`);
    expect({ message, english: namesKey(message, c.key) }).toEqual({ message, english: false });
  });

  test('/trpc: the same Russian message, and the field at fault by its English path for the form', async () => {
    const res = await call(app.url, 'POST', '/trpc/social.putSettings', {
      token: owner.token,
      body: { agentId: agents.creator, groupId: '12ab', accessToken: 'not-a-token' },
    });
    expect(res.status).toBe(400);
    const error = res.body.error;
    expect(error.message).toContain('ID сообщества: только цифры');
    expect(error.message).toContain('Ключ доступа сообщества: ');
    expect(namesKey(error.message, 'groupId')).toBe(false);
    expect(error.data.field).toBe('groupId');
    // Under each field, its own message without the label: the field's label is beside it already.
    expect(error.data.fields).toEqual({
      groupId: 'только цифры — числовой id сообщества ВКонтакте',
      accessToken: 'ожидается ключ доступа сообщества ВКонтакте, он начинается с vk1.a.',
    });
  });

  test('a refusal the service decides (not the schema) names its field too', async () => {
    // A first save needs the token and the secret; only the group id was sent.
    const res = await call(app.url, 'POST', '/trpc/social.putSettings', { token: owner.token, body: { agentId: agents.service, groupId: GROUP } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('Укажите ключ доступа сообщества и секретный ключ: без них сообщество не подключить');
    expect(res.body.error.data.field).toBe('accessToken');
    expect(Object.keys(res.body.error.data.fields)).toEqual(['accessToken']);
  });
});

describe('the VK status is what VK said about the saved token (issue 16, point 5)', () => {
  const settingsOf = async (agentId: string) => (await call(app.url, 'GET', `/api/v1/social/${agentId}/settings`, { token: owner.token })).body;

  test('saved while VK is unreachable: not «connected»; the check with the saved token then connects', async () => {
    const agent = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон', type: 'creator' } });
    const agentId: string = agent.body.id;
    expect((await settingsOf(agentId)).connection).toEqual({ status: 'unchecked', groupName: null, reason: null, checkedAt: null });

    vk.failNextHttp('groups.getById', 503, 5);
    const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
      token: owner.token,
      body: { groupId: GROUP, accessToken: TOKEN, secretKey: SECRET },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.configured).toBe(true);
    expect(saved.body.connection.status).toBe('failed');
    expect(saved.body.connection.reason).toBe('ВКонтакте сейчас недоступен, попробуйте позже');
    // Read again within the minute: still what VK last said, not «connected».
    expect((await settingsOf(agentId)).connection.status).toBe('failed');

    // VK is back. The check names only the agent: the server opens the sealed token itself.
    vk.reset();
    vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: 'a1b2c3d4' });
    const check = await call(app.url, 'POST', '/api/v1/social/check-connection', { token: owner.token, body: { agentId } });
    expect(check.status).toBe(200);
    expect(check.body).toEqual({ ok: true, groupName: 'Салон «Лён»' });
    const checkedWith = vk.calls.filter((c) => c.method === 'groups.getById');
    expect(checkedWith.length).toBeGreaterThan(0);
    expect(checkedWith.every((c) => c.token === TOKEN)).toBe(true);
    const after = (await settingsOf(agentId)).connection;
    expect(after).toMatchObject({ status: 'connected', groupName: 'Салон «Лён»', reason: null });
    expect(Date.parse(after.checkedAt)).not.toBeNaN();
  });

  test("a saved token VK refuses is «failed» with VK's reason in Russian", async () => {
    const agent = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон', type: 'creator' } });
    const wrong = 'vk1.a.revoked-community-token-0123456789';
    const saved = await call(app.url, 'PUT', `/api/v1/social/${agent.body.id}/settings`, {
      token: owner.token,
      body: { groupId: GROUP, accessToken: wrong, secretKey: SECRET },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.connection.status).toBe('failed');
    expect(saved.body.connection.reason).toMatch(/^[А-ЯЁ]/);
  });

  test("the saved-token check is for the owner's configured agents only", async () => {
    const stranger = await registerUser(app.url);
    const other = await call(app.url, 'POST', '/api/agents', { token: stranger.token, body: { name: 'Чужой', type: 'creator' } });
    const foreign = await call(app.url, 'POST', '/api/v1/social/check-connection', { token: owner.token, body: { agentId: other.body.id } });
    expect(foreign.status).toBe(403);
    const unsaved = await call(app.url, 'POST', '/api/v1/social/check-connection', { token: stranger.token, body: { agentId: other.body.id } });
    expect(unsaved.status).toBe(400);
    expect(unsaved.body.error.message).toBe('Сообщество ВКонтакте не подключено: сохраните настройки агента');
    const unknown = await call(app.url, 'POST', '/api/v1/social/check-connection', { token: owner.token, body: { agentId: crypto.randomUUID() } });
    expect(unknown.status).toBe(404);
    const nothing = await call(app.url, 'POST', '/api/v1/social/check-connection', { token: owner.token, body: {} });
    expect(nothing.status).toBe(400);
    expect(vk.calls.filter((c) => c.method === 'groups.getById')).toHaveLength(0);
  });
});
