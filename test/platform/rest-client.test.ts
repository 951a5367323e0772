// The tests' typed REST client (test/helpers/rest.ts) goes where a REST client goes: path parameters into
// the path, a GET's input into the query, a body as JSON, and a refusal's error body back as `call` reads it.
// The `@ts-expect-error` lines are checked by `npm run typecheck`: they fail it if the types degrade to any.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { okBody, rest, restRequest } from '../helpers/rest';

setDefaultTimeout(30_000);

let app: TestApp;
let adminEmail: string;

beforeAll(async () => {
  adminEmail = uniqueEmail('admin');
  app = await startTestApp({ env: { ADMIN_EMAILS: adminEmail } });
});

afterAll(async () => {
  await app?.close();
});

describe('the request a REST client sends', () => {
  test('path parameters leave the input for the path, encoded; the rest is the body', () => {
    expect(restRequest({ method: 'PATCH', path: '/api/keys/{id}' }, { id: 'a b/c', name: 'x' })).toEqual({ path: '/api/keys/a%20b%2Fc', body: { name: 'x' } });
  });

  test("a GET's and a DELETE's input is the query: lists as repeated keys, undefined left out", () => {
    expect(restRequest({ method: 'GET', path: '/api/usage' }, { limit: 5, model: undefined, tags: ['a', 'b'] })).toEqual({
      path: '/api/usage?limit=5&tags=a&tags=b',
    });
    expect(restRequest({ method: 'DELETE', path: '/api/keys/{id}' }, { id: 'k1' })).toEqual({ path: '/api/keys/k1' });
  });

  test('a path parameter missing from the input is the test’s mistake, said before any request', () => {
    expect(() => restRequest({ method: 'GET', path: '/api/agents/{id}' }, {})).toThrow('the input has no id');
  });
});

describe('over HTTP against the app', () => {
  test('a body and a path parameter: a key created, renamed by its id and read back in the list', async () => {
    const user = await registerUser(app.url);
    const api = rest(app.url, user.token);
    const created = await api.keys.create({ name: 'первый' });
    expect(created.status).toBe(201);
    const key = okBody(created);
    expect(key.key.startsWith(key.keyPrefix)).toBe(true);
    const renamed = okBody(await api.keys.update({ id: key.id, name: 'второй' }));
    expect(renamed).toMatchObject({ id: key.id, name: 'второй' });
    const listed = okBody(await api.keys.list());
    expect(listed.keys.map((k) => k.name)).toEqual(['второй']);
    // @ts-expect-error the key's name is a string: the input type is the router's zod schema
    expect((await api.keys.create({ name: 5 })).status).toBe(400);
  });

  test('a query: the admin users list filtered by the search the input names', async () => {
    const admin = await registerAdmin(app, adminEmail);
    const other = await registerUser(app.url);
    const found = okBody(await rest(app.url, admin.token).admin.listUsers({ search: other.email, limit: 5 }));
    expect(found.data.map((u) => u.email)).toEqual([other.email]);
  });

  test('a refusal is not ok and carries the error body, with the status and text as call gives them', async () => {
    const user = await registerUser(app.url);
    const refused = await rest(app.url, user.token).keys.create({ name: '' });
    expect(refused.ok).toBe(false);
    expect(refused.status).toBe(400);
    if (refused.ok) throw new Error('unreachable');
    expect(refused.body.error.type).toBe('invalid_request_error');
    expect(JSON.parse(refused.text)).toEqual(refused.body);
    expect(() => okBody(refused)).toThrow('expected a 2xx answer, got 400');
    const anonymous = await rest(app.url).keys.list();
    expect({ status: anonymous.status, ok: anonymous.ok }).toEqual({ status: 401, ok: false });
  });
});
