// GET /v1/models/{id}: the SDK's models.retrieve() served from the catalog (with its prices), a 404 in
// OpenAI's shape for an id the catalog does not have.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient } from '../helpers/gateway';

setDefaultTimeout(30_000);

let fake: FakeUpstream;
let app: TestApp;
let client: OpenAI;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: 'upstream-secret' });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret' } });
  const user = await registerUser(app.url);
  client = openaiClient(app, (await createApiKey(app.url, user.token)).key);
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe('GET /v1/models/{id}', () => {
  test('the SDK retrieves a model whose id holds a slash, with the price it is billed at', async () => {
    const model = await client.models.retrieve('acme/chat');
    expect(model).toMatchObject({ id: 'acme/chat', object: 'model', created: 1_700_000_000, owned_by: 'acme' });
    // 1.25e-7 per token both ways: the TOKEN_PRICE default.
    expect((model as unknown as { pricing: unknown }).pricing).toEqual({
      prompt: '0.000000125',
      completion: '0.000000125',
      input_cache_read: '0.0000000125',
      input_cache_write: '0.00000015625',
    });
    const listed = await client.models.list();
    expect(listed.data.find((m) => m.id === 'acme/chat')).toEqual(model);
  });

  test('the id sent unencoded answers the same', async () => {
    const res = await call(app.url, 'GET', '/v1/models/acme/large');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'acme/large', object: 'model' });
  });

  test('an id the catalog does not have: 404 model_not_found, which the SDK raises as NotFoundError', async () => {
    const error = await client.models.retrieve('acme/missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    const e = error as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.status).toBe(404);
    expect(e.code).toBe('model_not_found');
    expect(e.param).toBe('model');
    expect(e.message).toContain('Модель не найдена');
  });

  test('ids that cannot be a model (bad escapes, control characters, too long) are a 404 too, never a 500', async () => {
    for (const path of ['/v1/models/%E0%A4%A', '/v1/models/a%00b', `/v1/models/${'x'.repeat(300)}`]) {
      const res = await call(app.url, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('model_not_found');
    }
  });
});
