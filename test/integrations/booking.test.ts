// The YCLIENTS booking integration over HTTP, against a fake YCLIENTS that keeps a real schedule.
import { afterAll, beforeAll, beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import { startFakeYclients, type FakeCompanySpec, type FakeYclients } from '../fakes/yclients';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

// Starting an app on a fresh database takes longer than bun's 5 s default (a bare `bun test` has no --timeout).
setDefaultTimeout(30_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const PARTNER = 'partner-token-5f2a9c';
const LOGIN = 'irina@example.ru';
const PASSWORD = 'S3cret-pa55word';
const COMPANY = 4564;
const MARIA = 1507;
const OLEG = 1512;
const IVAN = 1520;
const HAIRCUT = 90211;
const BEARD = 90212;
const DAY = '2026-12-01';

const company: FakeCompanySpec = {
  id: COMPANY,
  partnerToken: PARTNER,
  login: LOGIN,
  password: PASSWORD,
  staff: [
    { id: MARIA, name: 'Мария', specialization: 'Парикмахер', position: { id: 3, title: 'Мастер' } },
    { id: OLEG, name: 'Олег', specialization: 'Барбер' },
    { id: IVAN, name: 'Иван', specialization: 'Стажёр', fired: true },
  ],
  services: [
    { id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, staffIds: [MARIA, OLEG] },
    { id: BEARD, title: 'Борода', price_min: 800, price_max: 800, duration: 1800, staffIds: [OLEG] },
  ],
  workingHours: [
    { staffId: MARIA, date: DAY, start: '10:00', end: '13:00' },
    { staffId: OLEG, date: DAY, start: '12:00', end: '14:00' },
  ],
};

const settingsBody: {
  partnerToken: string;
  login: string;
  password: string;
  companyId: number;
  syncEnabled: boolean;
  slotCacheTtlMinutes: number;
  specialistMapping: Record<string, number>;
  serviceMapping: Record<string, number>;
} = {
  partnerToken: PARTNER,
  login: LOGIN,
  password: PASSWORD,
  companyId: COMPANY,
  syncEnabled: false,
  slotCacheTtlMinutes: 15,
  specialistMapping: { maria: MARIA, oleg: OLEG },
  serviceMapping: { haircut: HAIRCUT, beard: BEARD },
};

let yc: FakeYclients;
let app: TestApp;

beforeAll(async () => {
  yc = await startFakeYclients();
  // The fake's windows start over with every test (reset()), the app's limiter's do not: across the whole file
  // the minute allowance would hold tests up, so the app may use more of the minute than one address could.
  app = await startTestApp({ env: { YCLIENTS_BASE_URL: yc.url, YCLIENTS_RATE_PER_MINUTE: '100000' } });
});
afterAll(async () => {
  await app?.close();
  await yc?.close();
});
beforeEach(() => {
  yc.reset();
  yc.addCompany(company);
});

async function newAgent(type: 'service' | 'creator' | 'ecommerce' = 'service', target: TestApp = app) {
  const owner = await registerUser(target.url);
  const created = await call(target.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон «Ромашка»', type } });
  expect(created.status).toBe(201);
  return { owner, agentId: created.body.id as string, base: `/api/v1/booking/${created.body.id}` };
}

async function configuredAgent(overrides: Partial<typeof settingsBody> = {}) {
  const agent = await newAgent();
  const saved = await call(app.url, 'PUT', `${agent.base}/settings`, { token: agent.owner.token, body: { ...settingsBody, ...overrides } });
  expect(saved.status).toBe(200);
  return agent;
}

const bookTimesCalls = () => yc.calls.filter((c) => c.path.startsWith('/book_times/')).length;

describe('settings', () => {
  test('saved after a successful login, sealed at rest, read back without a single secret', async () => {
    const { owner, agentId, base } = await newAgent();
    const empty = await call(app.url, 'GET', `${base}/settings`, { token: owner.token });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ configured: false, slotCacheTtlMinutes: 15, partnerTokenSet: false });

    const saved = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: settingsBody });
    expect(saved.status).toBe(200);
    const expected = {
      configured: true,
      partnerTokenSet: true,
      loginSet: true,
      passwordSet: true,
      companyId: COMPANY,
      syncEnabled: false,
      slotCacheTtlMinutes: 15,
      specialistMapping: settingsBody.specialistMapping,
      serviceMapping: settingsBody.serviceMapping,
    };
    expect(saved.body).toMatchObject(expected);
    const read = await call(app.url, 'GET', `${base}/settings`, { token: owner.token });
    expect(read.body).toMatchObject(expected);
    for (const secret of [PARTNER, LOGIN, PASSWORD]) {
      expect(saved.text).not.toContain(secret);
      expect(read.text).not.toContain(secret);
    }
    expect(yc.loginCount).toBe(1);

    const [row] = await app.sql<Record<string, string>>('select * from booking_settings where agent_id = $1', [agentId]);
    const stored = JSON.stringify(row);
    for (const secret of [PARTNER, LOGIN, PASSWORD]) expect(stored).not.toContain(secret);

    // Credentials left out keep their stored values.
    const partial = await call(app.url, 'PUT', `${base}/settings`, {
      token: owner.token,
      body: { companyId: COMPANY, slotCacheTtlMinutes: 30, syncEnabled: true },
    });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ slotCacheTtlMinutes: 30, syncEnabled: true, passwordSet: true, specialistMapping: {} });
  });

  test('wrong credentials → 400 with a clear message, and nothing is saved', async () => {
    const { owner, base } = await newAgent();
    for (const body of [
      { ...settingsBody, password: 'wrong-password' },
      { ...settingsBody, partnerToken: 'not-the-partner-token' },
    ]) {
      const res = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toContain('YCLIENTS');
      expect(res.text).not.toContain('wrong-password');
    }
    const unknownCompany = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { ...settingsBody, companyId: 999 } });
    expect(unknownCompany.status).toBe(400);
    expect(unknownCompany.body.error.message).toContain('999');
    expect((await call(app.url, 'GET', `${base}/settings`, { token: owner.token })).body.configured).toBe(false);
  });

  test('validation: the 5-minute floor of the slot cache, ids, and all three credentials on a first save', async () => {
    const { owner, base } = await newAgent();
    for (const body of [
      { ...settingsBody, slotCacheTtlMinutes: 4 },
      { ...settingsBody, companyId: 'abc' },
      { ...settingsBody, specialistMapping: { maria: 'x' } },
      { ...settingsBody, password: undefined },
    ]) {
      const res = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    expect(yc.loginCount).toBe(0);
    const floor = await call(app.url, 'PUT', `${base}/settings`, { token: owner.token, body: { ...settingsBody, slotCacheTtlMinutes: 5 } });
    expect(floor.status).toBe(200);
    expect(floor.body.slotCacheTtlMinutes).toBe(5);
  });

  test('only Service agents have a booking integration; another user’s agent → 403, unknown → 404', async () => {
    const creator = await newAgent('creator');
    for (const [method, path] of [
      ['PUT', '/settings'],
      ['GET', '/settings'],
      ['GET', '/specialists'],
    ] as const) {
      const res = await call(app.url, method, `${creator.base}${path}`, { token: creator.owner.token, body: method === 'PUT' ? settingsBody : undefined });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    const mine = await configuredAgent();
    const stranger = await registerUser(app.url);
    for (const path of ['/settings', '/specialists', '/services', `/slots?date=${DAY}&specialistId=maria&serviceId=haircut`]) {
      const res = await call(app.url, 'GET', `${mine.base}${path}`, { token: stranger.token });
      expect(res.status).toBe(403);
      expect(res.body.error.type).toBe('forbidden');
    }
    const steal = await call(app.url, 'POST', `${mine.base}/appointments`, {
      token: stranger.token,
      body: { specialistId: 'maria', serviceId: 'haircut', datetime: `${DAY}T10:00:00+03:00`, clientName: 'Анна', clientPhone: '+79161234567' },
    });
    expect(steal.status).toBe(403);
    const unknown = await call(app.url, 'GET', '/api/v1/booking/00000000-0000-4000-8000-000000000000/settings', { token: stranger.token });
    expect(unknown.status).toBe(404);
    expect((await call(app.url, 'GET', `${mine.base}/settings`)).status).toBe(401);
  });
});

describe('reading', () => {
  test('specialists and services through the mappings, with names, durations and prices', async () => {
    const { owner, base } = await configuredAgent();
    const specialists = await call(app.url, 'GET', `${base}/specialists`, { token: owner.token });
    expect(specialists.status).toBe(200);
    expect(specialists.body.specialists).toEqual([
      { id: 'maria', staffId: MARIA, name: 'Мария', specialization: 'Парикмахер', position: 'Мастер' },
      { id: 'oleg', staffId: OLEG, name: 'Олег', specialization: 'Барбер', position: null },
    ]);
    const services = await call(app.url, 'GET', `${base}/services`, { token: owner.token });
    expect(services.status).toBe(200);
    expect(services.body.services).toEqual([
      { id: 'haircut', serviceId: HAIRCUT, title: 'Стрижка', priceMin: 1500, priceMax: 2000, durationMinutes: 60, specialistIds: ['maria', 'oleg'] },
      { id: 'beard', serviceId: BEARD, title: 'Борода', priceMin: 800, priceMax: 800, durationMinutes: 30, specialistIds: ['oleg'] },
    ]);
  });

  test('without mappings every active specialist and service is offered under its YCLIENTS id', async () => {
    const { owner, base } = await configuredAgent({ specialistMapping: {}, serviceMapping: {} });
    const specialists = await call(app.url, 'GET', `${base}/specialists`, { token: owner.token });
    expect(specialists.body.specialists.map((s: { id: string }) => s.id)).toEqual([String(MARIA), String(OLEG)]);
    const slots = await call(app.url, 'GET', `${base}/slots?date=${DAY}&specialistId=${MARIA}&serviceId=${HAIRCUT}`, { token: owner.token });
    expect(slots.status).toBe(200);
    expect(slots.body.slots.length).toBeGreaterThan(0);
  });

  test('free times of a day; a bad date or an unknown specialist → 400', async () => {
    const { owner, base } = await configuredAgent();
    const res = await call(app.url, 'GET', `${base}/slots?date=${DAY}&specialistId=maria&serviceId=haircut`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ date: DAY, specialistId: 'maria', serviceId: 'haircut' });
    // 10:00–13:00 with a one-hour service, starts every 30 minutes.
    expect(res.body.slots.map((s: { time: string }) => s.time)).toEqual(['10:00', '10:30', '11:00', '11:30', '12:00']);
    expect(res.body.slots[0]).toEqual({ time: '10:00', datetime: `${DAY}T10:00:00+03:00`, durationMinutes: 60 });

    for (const q of [`date=01.12.2026&specialistId=maria&serviceId=haircut`, `date=${DAY}&specialistId=nobody&serviceId=haircut`, `date=${DAY}&serviceId=haircut`]) {
      const bad = await call(app.url, 'GET', `${base}/slots?${q}`, { token: owner.token });
      expect(bad.status).toBe(400);
      expect(bad.body.error.type).toBe('invalid_request_error');
    }
  });

  test('one administrator login serves many calls; a refused token is renewed once', async () => {
    const { owner, base } = await configuredAgent();
    expect(yc.loginCount).toBe(1);
    await call(app.url, 'GET', `${base}/specialists`, { token: owner.token });
    await call(app.url, 'GET', `${base}/services`, { token: owner.token });
    expect(yc.loginCount).toBe(1);

    await app.sql(`delete from booking_cache where key <> 'user-token'`);
    yc.expireUserTokens();
    const again = await call(app.url, 'GET', `${base}/specialists`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body.specialists).toHaveLength(2);
    expect(yc.loginCount).toBe(2);

    // The token is good for 55 minutes.
    const [row] = await app.sql<{ seconds: unknown }>(`select extract(epoch from expires_at - now())::int as seconds from booking_cache where key = 'user-token'`);
    expect(Number(row!.seconds)).toBeGreaterThan(54 * 60);
    expect(Number(row!.seconds)).toBeLessThanOrEqual(55 * 60);
  });

  test('free times are cached for the agent’s TTL, then asked again', async () => {
    const { owner, agentId, base } = await configuredAgent({ slotCacheTtlMinutes: 7 });
    const path = `${base}/slots?date=${DAY}&specialistId=maria&serviceId=haircut`;
    const first = await call(app.url, 'GET', path, { token: owner.token });
    const second = await call(app.url, 'GET', path, { token: owner.token });
    expect(second.body).toEqual(first.body);
    expect(bookTimesCalls()).toBe(1);

    const [row] = await app.sql<{ seconds: unknown }>(
      `select extract(epoch from expires_at - now())::int as seconds from booking_cache where agent_id = $1 and key like 'slots:%'`,
      [agentId],
    );
    expect(Number(row!.seconds)).toBeGreaterThan(6 * 60);
    expect(Number(row!.seconds)).toBeLessThanOrEqual(7 * 60);

    // Once the TTL has passed, YCLIENTS is asked again and a change shows.
    yc.markBusy(COMPANY, MARIA, `${DAY}T10:00:00+03:00`);
    await app.sql(`update booking_cache set expires_at = now() - interval '1 second' where agent_id = $1 and key like 'slots:%'`, [agentId]);
    const third = await call(app.url, 'GET', path, { token: owner.token });
    expect(bookTimesCalls()).toBe(2);
    expect(third.body.slots.map((s: { time: string }) => s.time)).not.toContain('10:00');
  });
});

describe('booking', () => {
  const appointment = {
    specialistId: 'maria',
    serviceId: 'haircut',
    datetime: `${DAY}T11:00:00+03:00`,
    clientName: 'Анна',
    clientPhone: '+7 (916) 123-45-67',
  };

  test('books a free slot: 201, the record in YCLIENTS, the appointment here, the slot gone', async () => {
    const { owner, agentId, base } = await configuredAgent();
    const res = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: appointment });
    expect(res.status).toBe(201);
    const recordId = res.body.externalRecordId;
    expect(res.body).toMatchObject({
      id: expect.any(String),
      specialistId: 'maria',
      serviceId: 'haircut',
      datetime: `${DAY}T11:00:00+03:00`,
      clientName: 'Анна',
      clientPhone: '79161234567',
      status: 'booked',
      externalRecordId: expect.any(String),
    });
    expect(yc.records).toHaveLength(1);
    expect(yc.records[0]).toMatchObject({ staffId: MARIA, serviceIds: [HAIRCUT], client: { name: 'Анна', phone: '79161234567' } });
    expect(String(yc.records[0]!.id)).toBe(recordId);
    const rows = await app.sql<{ status: string }>('select status from appointments where agent_id = $1', [agentId]);
    expect(rows.map((r) => r.status)).toEqual(['booked']);

    const slots = await call(app.url, 'GET', `${base}/slots?date=${DAY}&specialistId=maria&serviceId=haircut`, { token: owner.token });
    expect(slots.body.slots.map((s: { time: string }) => s.time)).not.toContain('11:00');

    const again = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: appointment });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict');
  });

  test('a slot taken in YCLIENTS (even while our cache says free) → 409, and nothing is booked', async () => {
    const { owner, agentId, base } = await configuredAgent();
    await call(app.url, 'GET', `${base}/slots?date=${DAY}&specialistId=maria&serviceId=haircut`, { token: owner.token });
    yc.markBusy(COMPANY, MARIA, `${DAY}T11:00:00+03:00`);
    const res = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: appointment });
    expect(res.status).toBe(409);
    expect(res.body.error.type).toBe('conflict');
    expect(yc.calls.filter((c) => c.path.startsWith('/book_record'))).toHaveLength(0);
    expect(await app.sql('select * from appointments where agent_id = $1', [agentId])).toEqual([]);
  });

  test('bad input → 400: unknown specialist, a time without offset, a phone that is not one, no name', async () => {
    const { owner, base } = await configuredAgent();
    for (const body of [
      { ...appointment, specialistId: 'nobody' },
      { ...appointment, datetime: 'tomorrow' },
      { ...appointment, clientPhone: '12' },
      { ...appointment, clientName: '  ' },
    ]) {
      const res = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
    expect(yc.records).toHaveLength(0);
  });

  test('YCLIENTS failing to book leaves no local appointment; a retry then books', async () => {
    const { owner, agentId, base } = await configuredAgent();
    yc.failNext('/book_record', { status: 500 });
    const failed = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: appointment });
    expect(failed.status).toBe(502);
    expect(failed.body.error.type).toBe('upstream_error');
    expect(failed.body.error.message).toContain('YCLIENTS');
    expect(await app.sql('select * from appointments where agent_id = $1', [agentId])).toEqual([]);

    const retried = await call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: appointment });
    expect(retried.status).toBe(201);
  });

  test('twenty concurrent requests for one slot: exactly one 201, the rest 409, one record in YCLIENTS', async () => {
    const { owner, agentId, base } = await configuredAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(app.url, 'POST', `${base}/appointments`, { token: owner.token, body: { ...appointment, clientName: `Клиент ${i}` } }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(19);
    expect(yc.records).toHaveLength(1);
    const rows = await app.sql<{ status: string }>('select status from appointments where agent_id = $1', [agentId]);
    expect(rows.map((r) => r.status)).toEqual(['booked']);
  });

  test.skipIf(!onPostgres)('twenty concurrent requests for one slot across two instances on one database: exactly one 201', async () => {
    const other = await startTestApp({ database: app.database, env: { YCLIENTS_BASE_URL: yc.url } });
    try {
      const { owner, base } = await configuredAgent();
      const targets = [app.url, other.url];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(targets[i % 2]!, 'POST', `${base}/appointments`, { token: owner.token, body: appointment })),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(19);
      expect(yc.records).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });
});

describe('background sync', () => {
  // Agents of earlier tests share this database: only the ones made here have sync on.
  beforeEach(() => app.sql('update booking_settings set sync_enabled = false'));

  test('refreshes specialists, services and free times of agents with sync on, and records when', async () => {
    const synced = await configuredAgent({ syncEnabled: true });
    const idle = await configuredAgent({ syncEnabled: false });
    yc.calls.length = 0;
    const result = await app.instance.services.bookingSync.runOnce();
    expect(result.ran).toBe(true);
    expect(result.failed).toBe(0);
    const staffCalls = yc.calls.filter((c) => c.path === `/company/${COMPANY}/staff`);
    expect(staffCalls).toHaveLength(1);
    expect(yc.calls.filter((c) => c.path === `/company/${COMPANY}/services`)).toHaveLength(1);
    const read = await call(app.url, 'GET', `${synced.base}/settings`, { token: synced.owner.token });
    expect(read.body.lastSyncAt).not.toBeNull();
    expect((await call(app.url, 'GET', `${idle.base}/settings`, { token: idle.owner.token })).body.lastSyncAt).toBeNull();
    // What the sync fetched is served from the cache.
    yc.calls.length = 0;
    await call(app.url, 'GET', `${synced.base}/specialists`, { token: synced.owner.token });
    expect(yc.calls).toHaveLength(0);
  });

  test('two runs at once (two instances on PostgreSQL, or one) do the work once', async () => {
    await configuredAgent({ syncEnabled: true });
    const other = onPostgres ? await startTestApp({ database: app.database, env: { YCLIENTS_BASE_URL: yc.url } }) : null;
    try {
      yc.calls.length = 0;
      // Hold YCLIENTS a little so the runs overlap.
      yc.failNext(`/company/${COMPANY}/staff`, { status: 200, delayMs: 300, body: { success: true, data: [], meta: [] } });
      const runs = await Promise.all([app.instance.services.bookingSync.runOnce(), (other ?? app).instance.services.bookingSync.runOnce()]);
      expect(yc.calls.filter((c) => c.path === `/company/${COMPANY}/staff`)).toHaveLength(1);
      if (other) expect(runs.map((r) => r.ran).sort()).toEqual([false, true]);
    } finally {
      await other?.stop();
    }
  });
});

describe('YCLIENTS limits: 5 requests a second and 200 a minute per address', () => {
  beforeEach(() => app.sql('update booking_settings set sync_enabled = false'));

  const slotsPath = (base: string) => `${base}/slots?date=${DAY}&specialistId=maria&serviceId=haircut`;

  test('a sync of several agents stays under the limit (no 429 anywhere, none failed) and a live call meanwhile goes first', async () => {
    const synced = [];
    for (let i = 0; i < 3; i++) synced.push(await configuredAgent({ syncEnabled: true }));
    const live = await configuredAgent();
    yc.calls.length = 0;
    const run = app.instance.services.bookingSync.runOnce();
    // Into the run: the sync has calls queued for seconds to come.
    await Bun.sleep(1200);
    const asked = performance.now();
    const slots = await call(app.url, 'GET', slotsPath(live.base), { token: live.owner.token });
    const waited = performance.now() - asked;
    expect(slots.status).toBe(200);
    expect(slots.body.slots.length).toBeGreaterThan(0);
    const result = await run;
    expect(result).toEqual({ ran: true, agents: 3, failed: 0 });
    expect(yc.rateLimited).toBe(0);
    // Three agents × three days × three specialist–service pairs, besides staff, services and the company.
    expect(bookTimesCalls()).toBe(3 * 9 + 1);
    expect(waited).toBeLessThan(1500);
    for (const agent of synced) {
      const read = await call(app.url, 'GET', `${agent.base}/settings`, { token: agent.owner.token });
      expect(read.body.lastSyncAt).not.toBeNull();
    }
  });

  test('a 429 from YCLIENTS (another client on the address) is waited out as Retry-After asks; the caller never sees it', async () => {
    const { owner, base } = await configuredAgent();
    yc.calls.length = 0;
    yc.failNext('/book_times/', { status: 429, headers: { 'Retry-After': '1' } });
    const asked = performance.now();
    const res = await call(app.url, 'GET', slotsPath(base), { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.slots.map((s: { time: string }) => s.time)).toContain('10:00');
    expect(performance.now() - asked).toBeGreaterThanOrEqual(950);
    expect(bookTimesCalls()).toBe(2);
  });

  test("the sync's days start at the company's local date, not UTC's (zone from YCLIENTS' company data, else YCLIENTS_TIME_ZONE)", async () => {
    const localDate = (timeZone: string, plusDays = 0) => {
      const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
      const [y, m, d] = today.split('-').map(Number);
      return new Date(Date.UTC(y!, m! - 1, d! + plusDays)).toISOString().slice(0, 10);
    };
    const syncedDays = async () => {
      yc.calls.length = 0;
      expect((await app.instance.services.bookingSync.runOnce()).failed).toBe(0);
      return [...new Set(yc.calls.filter((c) => c.path.startsWith('/book_times/')).map((c) => c.path.split('/')[4]))].sort();
    };
    // A zone whose date is not UTC's right now: UTC−12 before noon UTC, UTC+14 after.
    const [timeZone, utcOffset] = new Date().getUTCHours() < 12 ? ['Etc/GMT+12', '-12:00'] : ['Pacific/Kiritimati', '+14:00'];
    expect(localDate(timeZone)).not.toBe(new Date().toISOString().slice(0, 10));

    for (const shape of ['name', 'offset'] as const) {
      yc.reset();
      yc.addCompany({ ...company, timeZone, utcOffset });
      yc.settings.companyTimezoneShape = shape;
      const agent = await configuredAgent({ syncEnabled: true });
      expect(await syncedDays()).toEqual([0, 1, 2].map((d) => localDate(timeZone, d)));
      await app.sql('update booking_settings set sync_enabled = false where agent_id = $1', [agent.agentId]);
    }

    // Company data without a zone: the configured one (Europe/Moscow unless YCLIENTS_TIME_ZONE says otherwise).
    yc.reset();
    yc.addCompany(company);
    yc.settings.companyTimezoneShape = 'none';
    await configuredAgent({ syncEnabled: true });
    expect(await syncedDays()).toEqual([0, 1, 2].map((d) => localDate('Europe/Moscow', d)));
  });
});
