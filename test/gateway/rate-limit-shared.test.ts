// RATE_LIMIT_PER_MINUTE counted across instances: two instances on one database let one key through
// exactly its limit in a window, and the x-ratelimit-* headers of either show the shared count.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

// PGlite is one process's database: a second instance cannot share it.
const onPostgres = Boolean(process.env.DATABASE_URL);
const LIMIT = 10;

let fake: FakeUpstream;
let first: TestApp;
let second: TestApp | null = null;

beforeAll(async () => {
  fake = await startFakeUpstream();
  first = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  if (onPostgres) {
    second = await startTestApp({ database: first.database, env: { UPSTREAM_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  }
});
afterAll(async () => {
  await second?.close();
  await first?.close();
  await fake?.close();
});

const ask = (app: TestApp, key: string) =>
  call(app.url, 'POST', '/v1/chat/completions', { body: { model: 'acme/chat', messages: [{ role: 'user', content: 'Привет' }] }, token: key });

/** Waits for the start of a fresh minute when too little of this one is left for the test's requests. */
async function freshWindowIfNeeded() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await Bun.sleep(60_000 - intoMinute + 50);
}

describe('the per-key request limit across instances', () => {
  test.skipIf(!onPostgres)('two instances together let a key through its limit once, and agree on what is left', async () => {
    const user = await registerUser(first.url);
    const { key } = await createApiKey(first.url, user.token);
    await freshWindowIfNeeded();
    const statuses: number[] = [];
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT + 4; i++) {
      const res = await ask(i % 2 === 0 ? first : second!, key);
      statuses.push(res.status);
      remaining.push(Number(res.headers.get('x-ratelimit-remaining-requests')));
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe(String(LIMIT));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429, 429, 429]);
    // Each answer shows the count of both instances, not its own half.
    expect(remaining.slice(0, LIMIT)).toEqual(Array.from({ length: LIMIT }, (_, i) => LIMIT - 1 - i));
    expect(remaining.slice(LIMIT)).toEqual([0, 0, 0, 0]);
  });

  test('one instance alone: the limit, then 429 with retry-after and OpenAI headers', async () => {
    const user = await registerUser(first.url);
    const { key } = await createApiKey(first.url, user.token);
    await freshWindowIfNeeded();
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await ask(first, key)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    const refused = await ask(first, key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.body.error.type).toBe('rate_limit_exceeded');
    // A second key of the same user has its own count.
    const { key: other } = await createApiKey(first.url, user.token);
    expect((await ask(first, other)).status).toBe(200);
  });
});

// Issue 28: RATE_LIMIT_PER_MINUTE is per key, so a user with ten keys had ten times the limit.
describe("RATE_LIMIT_PER_USER_PER_MINUTE: all a user's keys together", () => {
  const PER_KEY = 60;
  const PER_USER = 12;
  let a: TestApp;
  let b: TestApp | null = null;
  beforeAll(async () => {
    const env = { UPSTREAM_BASE_URL: fake.url, RATE_LIMIT_PER_MINUTE: String(PER_KEY), RATE_LIMIT_PER_USER_PER_MINUTE: String(PER_USER) };
    a = await startTestApp({ env });
    if (onPostgres) b = await startTestApp({ database: a.database, env });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  test(`ten keys of one user at RATE_LIMIT_PER_MINUTE=${PER_KEY} get ${PER_USER} requests a minute between them${onPostgres ? ', counted across two instances' : ''}; another user is not held back`, async () => {
    const user = await registerUser(a.url);
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) keys.push((await createApiKey(a.url, user.token, `key ${i}`)).key);
    const other = await registerUser(a.url);
    const { key: othersKey } = await createApiKey(a.url, other.token);
    await freshWindowIfNeeded();

    const statuses: number[] = [];
    for (let i = 0; i < 2 * keys.length; i++) {
      const res = await ask(b && i % 2 === 1 ? b : a, keys[i % keys.length]!);
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(res.body.error.type).toBe('rate_limit_exceeded');
        expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('0');
      }
    }
    expect(statuses.slice(0, PER_USER)).toEqual(Array(PER_USER).fill(200));
    expect(statuses.slice(PER_USER)).toEqual(Array(2 * keys.length - PER_USER).fill(429));
    // A new key of the same user is held back too; the other user's key is served.
    const { key: fresh } = await createApiKey(a.url, user.token, 'one more');
    expect((await ask(b ?? a, fresh)).status).toBe(429);
    expect((await ask(b ?? a, othersKey)).status).toBe(200);
  });
});

// Issue 43 point 5: a key's own rpd and tpm, and a change of its limits, hold across instances too.
describe("a key's own limits across instances", () => {
  let a: TestApp;
  let b: TestApp | null = null;
  beforeAll(async () => {
    a = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
    if (onPostgres) b = await startTestApp({ database: a.database, env: { UPSTREAM_BASE_URL: fake.url } });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  const keyWith = async (token: string, limits: Record<string, number>) => {
    const res = await call(a.url, 'POST', '/api/keys', { token, body: { name: 'limited', ...limits } });
    expect(res.status).toBe(201);
    return { key: res.body.key as string, id: res.body.id as string };
  };

  test.skipIf(!onPostgres)('rpd: the two instances together serve the day’s number once', async () => {
    const user = await registerUser(a.url);
    const { key } = await keyWith(user.token, { rpd: 4 });
    const statuses: number[] = [];
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await ask(i % 2 === 0 ? a : b!, key);
      statuses.push(res.status);
      if (res.status === 429) codes.push(res.body.error.code);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    expect(codes).toEqual(['rpd_exceeded', 'rpd_exceeded']);
  });

  test.skipIf(!onPostgres)('tpm: tokens settled on one instance count on the other; the request that crosses the limit is served, the next refused', async () => {
    const user = await registerUser(a.url);
    // Each answer is 19 tokens: 19, 38 (both under 40 when admitted), 57 — then nothing is left.
    const { key } = await keyWith(user.token, { tpm: 40 });
    await freshWindowIfNeeded();
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await ask(i % 2 === 0 ? a : b!, key);
      statuses.push(res.status);
      remaining.push(res.headers.get('x-ratelimit-remaining-tokens')!);
      if (res.status === 429) expect(res.body.error.code).toBe('tpm_exceeded');
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Each instance shows what it knows both spent: 40 − 19 on the first; on the second at least the first's
    // claim and its own answer (the first's tokens may still be on their way to the database), then none.
    expect(remaining[0]).toBe('21');
    expect(Number(remaining[1])).toBeLessThanOrEqual(19);
    expect(remaining.slice(2)).toEqual(['0', '0', '0']);
  });

  test.skipIf(!onPostgres)("a key's limit changed through one instance holds on the other at once", async () => {
    const user = await registerUser(a.url);
    const { key, id } = await keyWith(user.token, { rpm: 2 });
    await freshWindowIfNeeded();
    expect((await ask(b!, key)).status).toBe(200);
    expect((await ask(b!, key)).status).toBe(200);
    expect((await ask(b!, key)).status).toBe(429);
    const raised = await call(a.url, 'PATCH', `/api/keys/${id}`, { token: user.token, body: { rpm: 4 } });
    expect(raised.status).toBe(200);
    // The change reaches the other instance by NOTIFY; a refused request counts for nothing meanwhile.
    const deadline = Date.now() + 10_000;
    let status = 429;
    while (status === 429 && Date.now() < deadline) status = (await ask(b!, key)).status;
    expect(status).toBe(200);
    const last = await ask(a, key);
    expect(last.status).toBe(200);
    expect(last.headers.get('x-ratelimit-limit-requests')).toBe('4');
    expect(last.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect((await ask(b!, key)).status).toBe(429);
  });
});
