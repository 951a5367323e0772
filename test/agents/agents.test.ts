import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { tmpdir } from 'node:os';
import { loadConfig } from '../../src/config';
import { call, createApiKey, registerUser, startTestApp, TEST_ENCRYPTION_KEY, TEST_JWT_SECRET, type TestApp } from '../helpers/app';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { DEFAULT_AGENT_MODEL: 'acme/helper-1' } });
});
afterAll(() => app?.close());

async function createAgent(token: string, body: Record<string, unknown> = { name: 'Салон', type: 'service' }) {
  const res = await call(app.url, 'POST', '/api/agents', { token, body });
  if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${res.text}`);
  return res.body;
}

describe('agents', () => {
  test('creation returns the agent with the configured default model; listing shows it', async () => {
    const { token } = await registerUser(app.url);
    const res = await call(app.url, 'POST', '/api/agents', { token, body: { name: '  Магазин  ', type: 'ecommerce' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Магазин',
      type: 'ecommerce',
      // No prompt sent: the shop's Russian template, which names the shop tools.
      systemPrompt: expect.stringContaining('search_products'),
      model: 'acme/helper-1',
      // Clients' photos are not shown to the model until the owner says its model takes images.
      acceptsImages: false,
      // No working hours said: clients are promised no time when handed to a person.
      workingHours: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      // The assistant answers clients: nothing for the agent page to explain.
      unavailableReason: null,
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);

    const second = await createAgent(token, {
      name: 'Автор',
      type: 'creator',
      systemPrompt: 'Ты помогаешь автору курса',
      model: 'openai/gpt-4o',
    });
    expect(second).toMatchObject({ type: 'creator', systemPrompt: 'Ты помогаешь автору курса', model: 'openai/gpt-4o' });

    const list = await call(app.url, 'GET', '/api/agents', { token });
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.agents.map((a: { id: string }) => a.id)).toEqual([second.id, res.body.id]);
  });

  test('validation: name, type and model id', async () => {
    const { token } = await registerUser(app.url);
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
    const got = await call(app.url, 'GET', `/api/agents/${agent.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(agent);

    await Bun.sleep(5);
    const patched = await call(app.url, 'PATCH', `/api/agents/${agent.id}`, {
      token,
      body: { name: 'Салон «Лён»', systemPrompt: 'Отвечай вежливо', model: 'anthropic/claude-3.5-sonnet' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: agent.id,
      name: 'Салон «Лён»',
      type: 'service',
      systemPrompt: 'Отвечай вежливо',
      model: 'anthropic/claude-3.5-sonnet',
      createdAt: agent.createdAt,
    });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThan(Date.parse(agent.updatedAt));

    const sameType = await call(app.url, 'PATCH', `/api/agents/${agent.id}`, { token, body: { type: 'service' } });
    expect(sameType.status).toBe(200);
    const typeChange = await call(app.url, 'PATCH', `/api/agents/${agent.id}`, { token, body: { type: 'creator' } });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.error.type).toBe('invalid_request_error');
    const badModel = await call(app.url, 'PATCH', `/api/agents/${agent.id}`, { token, body: { model: 'gpt' } });
    expect(badModel.status).toBe(400);

    const removed = await call(app.url, 'DELETE', `/api/agents/${agent.id}`, { token });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: expect.stringMatching(/[А-Яа-я]/) });
    const gone = await call(app.url, 'GET', `/api/agents/${agent.id}`, { token });
    expect(gone.status).toBe(404);
    expect(gone.body.error.type).toBe('not_found');
    expect((await call(app.url, 'GET', '/api/agents', { token })).body.count).toBe(0);
  });

  test("another user's agent is 403 forbidden on every route; an unknown agent is 404", async () => {
    const alice = await registerUser(app.url);
    const bob = await registerUser(app.url);
    const agent = await createAgent(alice.token);
    const attempts = [
      call(app.url, 'GET', `/api/agents/${agent.id}`, { token: bob.token }),
      call(app.url, 'PATCH', `/api/agents/${agent.id}`, { token: bob.token, body: { name: 'чужой' } }),
      call(app.url, 'DELETE', `/api/agents/${agent.id}`, { token: bob.token }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
    }
    // Nothing changed, and bob's list is empty.
    expect((await call(app.url, 'GET', `/api/agents/${agent.id}`, { token: alice.token })).body.name).toBe(agent.name);
    expect((await call(app.url, 'GET', '/api/agents', { token: bob.token })).body.count).toBe(0);

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
    const results = await Promise.all(
      Array.from({ length: 26 }, (_, i) => call(app.url, 'POST', '/api/agents', { token, body: { name: `Агент ${i}`, type: i % 2 ? 'service' : 'creator' } })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.status === 400);
    expect(refused).toHaveLength(6);
    for (const r of refused) {
      expect(r.body.error).toEqual({ type: 'invalid_request_error', message: 'Достигнут лимит агентов (20); удалите ненужного агента, чтобы создать нового' });
    }
    const list = await call(app.url, 'GET', '/api/agents', { token });
    expect(list.body.count).toBe(20);

    // The cap is per user: another account still creates its own.
    expect((await call(app.url, 'POST', '/api/agents', { token: other.token, body: { name: 'Свой', type: 'creator' } })).status).toBe(201);

    const victim = list.body.agents[0].id;
    expect((await call(app.url, 'DELETE', `/api/agents/${victim}`, { token })).status).toBe(200);
    expect((await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Замена', type: 'ecommerce' } })).status).toBe(201);
    expect((await call(app.url, 'POST', '/api/agents', { token, body: { name: 'Лишний', type: 'ecommerce' } })).status).toBe(400);
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
