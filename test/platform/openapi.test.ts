import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { readFileSync } from 'node:fs';
import { renderOpenApiDocument } from '../../src/openapi/document';
import { call, startTestApp, type TestApp } from '../helpers/app';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: 'https://models.example/api/v1', TOKEN_PRICE: '1.25e-7' } });
});
afterAll(() => app?.close());

const committed = () => readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8');

describe('OpenAPI and the information document', () => {
  test('the committed openapi.json is what `npm run openapi` generates from the router', () => {
    expect(committed()).toBe(renderOpenApiDocument());
  });

  test("the /v1 routes are described with OpenAI's error object, the headers the SDKs read and the API key", () => {
    const doc = JSON.parse(committed());
    for (const path of ['/v1/chat/completions', '/v1/embeddings', '/v1/responses', '/v1/responses/{id}', '/v1/models', '/v1/models/{id}']) {
      expect(doc.paths[path]).toBeDefined();
    }
    const chat = doc.paths['/v1/chat/completions'].post;
    expect(chat.security).toEqual([{ ApiKey: [] }]);
    expect(chat.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    expect(Object.keys(chat.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '402', '403', '409', '413', '429', '502', '504']));
    expect(Object.keys(chat.responses['429'].headers)).toEqual(
      expect.arrayContaining(['x-should-retry', 'retry-after', 'x-ratelimit-remaining-requests', 'openai-processing-ms']),
    );
    expect(doc.components.schemas.OpenAiError.properties.error.required).toEqual(['message', 'type', 'param', 'code']);
    expect(doc.paths['/v1/models'].get.security).toEqual([]);
    // Streaming is described: the same 200 as text/event-stream, with an example ending in [DONE].
    expect(chat.responses['200'].content['text/event-stream'].example).toEndWith('data: [DONE]\n\n');
    expect(Object.keys(doc.paths['/v1/models/{id}'].get.responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(doc.paths['/v1/models/{id}'].get.responses['404'].content['application/json'].example.error.code).toBe('model_not_found');
  });

  test('every status of every operation is documented with its body and an example, in Russian', () => {
    const doc = JSON.parse(committed());
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'parameters') continue;
        expect({ op: `${method} ${path}`, description: /[А-Яа-яЁё]/.test(op.description ?? '') }).toEqual({ op: `${method} ${path}`, description: true });
        for (const [status, answer] of Object.entries<any>(op.responses)) {
          const where = `${method} ${path} → ${status}`;
          expect({ where, content: Object.keys(answer.content ?? {}).length > 0 }).toEqual({ where, content: true });
          for (const media of Object.values<any>(answer.content)) expect({ where, example: media.example !== undefined }).toEqual({ where, example: true });
          const media = answer.content['application/json'];
          if (status >= '400' && /Error$/.test(media?.schema?.$ref ?? '')) {
            const example = media.example;
            expect({ where, message: /[А-Яа-яЁё]/.test(example.error.message) }).toEqual({ where, message: true });
          }
        }
      }
    }
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['auth', 'keys', 'account', 'v1', 'webhooks']));
    // No generator English left: every description (outside examples) is Russian.
    const english: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, `${where}/${i}`));
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'example' || key === 'examples') continue;
          if (key === 'description' && typeof value === 'string' && !/[А-Яа-яЁё]/.test(value)) english.push(`${where}: ${value}`);
          walk(value, `${where}/${key}`);
        }
      }
    };
    walk(doc, '');
    expect(english).toEqual([]);
    const usage = doc.paths['/api/usage'].get;
    const row = usage.responses['200'].content['application/json'].schema.properties.data.items.properties;
    expect(row.status.enum).toContain('client_closed');
    expect(row.usageSource.enum).toEqual(['upstream', 'tokenizer', 'none', 'cache']);
    expect(usage.parameters.find((p: { name: string }) => p.name === 'from').schema.format).toBe('date-time');
    const slots = doc.paths['/api/v1/booking/{agentId}/slots'].get;
    expect(slots.parameters.find((p: { name: string }) => p.name === 'date').schema.format).toBe('date');
    expect(doc.paths['/api/admin/stats/daily'].get.parameters.find((p: { name: string }) => p.name === 'to').schema.format).toBe('date');
    expect(doc.paths['/api/auth/register'].post.requestBody.content['application/json'].schema.properties.email.format).toBe('email');
    expect(Object.keys(doc.paths['/api/auth/register'].post.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '413', '429', '500', '503']));
    expect(Object.keys(doc.paths['/api/auth/login'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
  });

  test('the document covers the dashboard routes with our error body and 201 for creations', () => {
    const doc = JSON.parse(committed());
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/auth/register', '/api/auth/login', '/api/keys', '/api/keys/{id}']));
    expect(doc.paths['/api/keys'].post.responses['201']).toBeDefined();
    expect(doc.paths['/api/auth/register'].post.responses['201']).toBeDefined();
    expect(doc.paths['/api/auth/register'].post.security).toEqual([]);
    expect(doc.paths['/api/keys'].get.security).toEqual([{ Jwt: [] }]);
    const errorSchema = doc.components.schemas.Error;
    expect(errorSchema.properties.error.required).toEqual(['message', 'type']);
  });

  test('/openapi.json serves the same document', async () => {
    const res = await call(app.url, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(committed()));
  });

  test('/docs is an interactive page whose assets are served locally', async () => {
    const res = await fetch(`${app.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('/openapi.json');
    for (const asset of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
      expect(html).toContain(`/docs/assets/${asset}`);
      const a = await fetch(`${app.url}/docs/assets/${asset}`);
      expect(a.status).toBe(200);
      expect((await a.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
    expect((await call(app.url, 'GET', '/docs/assets/..%2Fpackage.json')).status).toBe(404);
  });

  test('GET / is the information document of the specification', async () => {
    const res = await call(app.url, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({
        name: 'Conduit',
        version: expect.any(String),
        documentation: '/docs',
        config: { tokenPrice: 1.25e-7, upstreamProxy: `${app.config.publicBaseUrl}/v1` },
      }),
    );
    // The upstream Conduit calls is an internal address: the public document never shows it.
    expect(res.text).not.toContain('models.example');
    expect(res.body.endpoints.auth).toEqual({ register: 'POST /api/auth/register', login: 'POST /api/auth/login' });
    expect(res.body.endpoints.keys).toEqual({ list: 'GET /api/keys', create: 'POST /api/keys', delete: 'DELETE /api/keys/:id' });
    for (const value of Object.values(res.body.endpoints).filter((v) => typeof v === 'string')) {
      expect(value).toMatch(/^(GET|POST|PUT|PATCH|DELETE) \//);
    }
  });

  test('GET /health: 200 with the database up, 503 when it is gone', async () => {
    expect(await call(app.url, 'GET', '/health')).toEqual(expect.objectContaining({ status: 200, body: { status: 'ok' } }));
    const other = await startTestApp();
    try {
      await other.instance.services.database.close();
      const res = await call(other.url, 'GET', '/health');
      expect(res.status).toBe(503);
      expect(res.body.status).not.toBe('ok');
    } finally {
      await other.instance.server.stop(true);
      await other.database.drop();
    }
  });
});
