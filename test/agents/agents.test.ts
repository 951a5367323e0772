import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/config';
import { call, createApiKey, registerUser, startTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from '../helpers/app';
import { errorOf, okBody, rest, type RestInput } from '../helpers/rest';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { DEFAULT_AGENT_MODEL: 'acme/helper-1' } });
});
afterAll(() => app?.close());

async function createAgent(token: string, body: RestInput<'agents', 'create'> = { name: 'Салон', type: 'service' }) {
  const res = await rest(app.url, token).agents.create(body);
  if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${res.text}`);
  return okBody(res);
}

describe('agents', () => {
  test('creation returns the agent with the configured default model; listing shows it', async () => {
    const { token } = await registerUser(app.url);
    const res = await rest(app.url, token).agents.create({ name: '  Магазин  ', type: 'ecommerce' });
    expect(res.status).toBe(201);
    const first = okBody(res);
    expect(first).toEqual({
      id: expect.any(String),
      name: 'Магазин',
      type: 'ecommerce',
      // No prompt sent: the shop's Russian template, which names the shop tools.
      systemPrompt: expect.stringContaining('search_products'),
      model: 'acme/helper-1',
      // Clients' photos are not shown to the model until the owner says its model takes images.
      acceptsImages: false,
      // Voice messages are not transcribed until the owner switches it on.
      transcribeVoice: false,
      transcriptionModel: null,
      // No working hours said: clients are promised no time when handed to a person.
      workingHours: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      // The assistant answers clients: nothing for the agent page to explain.
      unavailableReason: null,
    });
    expect(new Date(first.createdAt).toISOString()).toBe(first.createdAt);

    const second = await createAgent(token, {
      name: 'Автор',
      type: 'creator',
      systemPrompt: 'Ты помогаешь автору курса',
      model: 'openai/gpt-4o',
    });
    expect(second).toMatchObject({ type: 'creator', systemPrompt: 'Ты помогаешь автору курса', model: 'openai/gpt-4o' });

    const list = await rest(app.url, token).agents.list();
    expect(list.status).toBe(200);
    const { count, agents } = okBody(list);
    expect(count).toBe(2);
    expect(agents.map((a) => a.id)).toEqual([second.id, first.id]);
  });

  test('validation: name, type and model id', async () => {
    const { token } = await registerUser(app.url);
    // Bodies the input type refuses go through `call`: the typed client would not let them be written.
    const bad = [
      {},
      { name: 'x' },
      { name: '', type: 'service' },
      { name: 'x'.repeat(101), type: 'service' },
      { name: 'x', type: 'robot' },
      { name: 'x', type: 'service', model: 'no-owner' },
      { name: 'x', type: 'service', systemPrompt: 5 },
    ];
    for (const body of bad) {
      const res = await call(app.url, 'POST', '/api/agents', { token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
    const malformed = await call(app.url, 'POST', '/api/agents', { token, rawBody: '{"name":' });
    expect(malformed.status).toBe(400);
  });

  test('get, patch and delete by the owner', async () => {
    const { token } = await registerUser(app.url);
    const agent = await createAgent(token);
    const api = rest(app.url, token);
    const got = await api.agents.get({ id: agent.id });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(agent);

    await Bun.sleep(5);
    const patched = await api.agents.update({ id: agent.id, name: 'Салон «Лён»', systemPrompt: 'Отвечай вежливо', model: 'anthropic/claude-3.5-sonnet' });
    expect(patched.status).toBe(200);
    const updated = okBody(patched);
    expect(updated).toMatchObject({
      id: agent.id,
      name: 'Салон «Лён»',
      type: 'service',
      systemPrompt: 'Отвечай вежливо',
      model: 'anthropic/claude-3.5-sonnet',
      createdAt: agent.createdAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThan(Date.parse(agent.updatedAt));

    const sameType = await api.agents.update({ id: agent.id, type: 'service' });
    expect(sameType.status).toBe(200);
    const typeChange = await api.agents.update({ id: agent.id, type: 'creator' });
    expect(typeChange.status).toBe(400);
    expect(errorOf(typeChange).type).toBe('invalid_request_error');
    const badModel = await api.agents.update({ id: agent.id, model: 'gpt' });
    expect(badModel.status).toBe(400);

    const removed = await api.agents.remove({ id: agent.id });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.stringMatching(/[А-Яа-я]/) });
    const gone = await api.agents.get({ id: agent.id });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).type).toBe('not_found');
    expect(okBody(await api.agents.list()).count).toBe(0);
  });

  test("another user's agent is 403 forbidden on every route; an unknown agent is 404", async () => {
    const alice = await registerUser(app.url);
    const bob = await registerUser(app.url);
    const agent = await createAgent(alice.token);
    const asBob = rest(app.url, bob.token);
    const attempts = [asBob.agents.get({ id: agent.id }), asBob.agents.update({ id: agent.id, name: 'чужой' }), asBob.agents.remove({ id: agent.id })];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(errorOf(res).type).toBe('forbidden');
      expect(errorOf(res).message).toMatch(/[А-Яа-я]/);
    }
    // Nothing changed, and bob's list is empty.
    expect(okBody(await rest(app.url, alice.token).agents.get({ id: agent.id })).name).toBe(agent.name);
    expect(okBody(await asBob.agents.list()).count).toBe(0);

    // Raw paths, not the typed client: a malformed id must reach the route as sent, unencoded.

    for (const missing of ['00000000-0000-4000-8000-000000000000', 'nope', '1%27%20or%20%271%27=%271']) {
      for (const method of ['GET', 'PATCH', 'DELETE']) {
        const res = await call(app.url, method, `/api/agents/${missing}`, {
          token: alice.token,
          body: method === 'PATCH' ? { name: 'x' } : undefined,
        });
        expect(res.status).toBe(404);
        expect(res.body.error.type).toBe('not_found');
      }
    }
  });

  test('agent routes need a JWT; an API key or nothing is 401', async () => {
    const { token } = await registerUser(app.url);
    const { key } = await createApiKey(app.url, token);
    for (const credential of [key, undefined, 'garbage']) {
      const res = await call(app.url, 'GET', '/api/agents', { token: credential });
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe('unauthorized');
    }
  });
});

describe('agents per user (issue 38 row 16)', () => {
  test('by default a user owns at most 20 agents: parallel creations stop exactly there with a Russian 400, and deleting one frees a place', async () => {
    const { token } = await registerUser(app.url);
    const other = await registerUser(app.url);
    const api = rest(app.url, token);
    const results = await Promise.all(Array.from({ length: 26 }, (_, i) => api.agents.create({ name: `Агент ${i}`, type: i % 2 ? 'service' : 'creator' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(6);
    for (const r of refused) {
      expect(errorOf(r)).toEqual({ type: 'invalid_request_error', message: 'Достигнут лимит агентов (20); удалите ненужного агента, чтобы создать нового' });
    }
    const list = okBody(await api.agents.list());
    expect(list.count).toBe(20);

    // The cap is per user: another account still creates its own.
    expect((await rest(app.url, other.token).agents.create({ name: 'Свой', type: 'creator' })).status).toBe(201);

    const victim = list.agents[0]!.id;
    expect((await api.agents.remove({ id: victim })).status).toBe(200);
    expect((await api.agents.create({ name: 'Замена', type: 'ecommerce' })).status).toBe(201);
    expect((await api.agents.create({ name: 'Лишний', type: 'ecommerce' })).status).toBe(400);
  });

  test('MAX_AGENTS_PER_USER sets the cap; a value that is not a whole number from 1 is a start-up error', async () => {
    const small = await startTestApp({ env: { MAX_AGENTS_PER_USER: '2' } });
    try {
      const { token } = await registerUser(small.url);
      for (const name of ['Первый', 'Второй']) expect((await call(small.url, 'POST', '/api/agents', { token, body: { name, type: 'creator' } })).status).toBe(201);
      const over = await call(small.url, 'POST', '/api/agents', { token, body: { name: 'Третий', type: 'creator' } });
      expect(over.status).toBe(400);
      expect(over.body.error.message).toBe('Достигнут лимит агентов (2); удалите ненужного агента, чтобы создать нового');
    } finally {
      await small.close();
    }
    for (const bad of ['0', '-1', 'many', '2.5']) {
      const env = { NODE_ENV: 'test', JWT_SECRET: TEST_JWT_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, DATA_DIR: tmpdir(), MAX_AGENTS_PER_USER: bad };
      expect(() => loadConfig(env)).toThrow('MAX_AGENTS_PER_USER');
    }
  });
});
