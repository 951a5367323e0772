import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createYclientsClient, YCLIENTS_ACCEPT, YclientsApiError, YclientsNetworkError, type YclientsClient } from '../../src/integrations/booking/client';
import { createYclientsLimiter } from '../../src/integrations/booking/limiter';
import { startFakeYclients, type FakeCompanySpec, type FakeYclients } from '../fakes/yclients';

const PARTNER = 'partner-token-5f2a9c';
const PASSWORD = 'S3cret-pa55word';
const COMPANY = 4564;
const MARIA = 1507;
const OLEG = 1512;
const HAIRCUT = 90211;
const BEARD = 90212;
const DAY = '2026-12-01';

const company: FakeCompanySpec = {
  id: COMPANY,
  partnerToken: PARTNER,
  login: 'irina@example.ru',
  password: PASSWORD,
  staff: [
    { id: MARIA, name: 'Мария', specialization: 'Парикмахер', position: { id: 3, title: 'Мастер' } },
    { id: OLEG, name: 'Олег', specialization: 'Барбер', fired: true },
  ],
  services: [
    { id: HAIRCUT, title: 'Стрижка', price_min: 1500, price_max: 2000, duration: 3600, category_id: 501 },
    { id: BEARD, title: 'Борода', price_min: 800, price_max: 800, duration: 1800, staffIds: [OLEG] },
  ],
  workingHours: [
    { staffId: MARIA, date: DAY, start: '10:00', end: '13:00' },
    { staffId: MARIA, date: '2026-12-03', start: '10:00', end: '12:00' },
  ],
};

let fake: FakeYclients;
let client: YclientsClient;

beforeAll(async () => {
  fake = await startFakeYclients();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
  fake.addCompany(company);
  client = createYclientsClient({ baseUrl: fake.url, partnerToken: PARTNER, timeoutMs: 2000 });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

async function apiError(promise: Promise<unknown>): Promise<YclientsApiError> {
  const err = await rejection(promise);
  expect(err).toBeInstanceOf(YclientsApiError);
  return err as YclientsApiError;
}

function login(): Promise<string> {
  return client.authUser({ login: company.login, password: PASSWORD });
}

function bookAt(datetime: string, token: string, phone = '79161234567') {
  return client.createRecord(
    COMPANY,
    {
      staffId: MARIA,
      services: [{ id: HAIRCUT, cost: 2000 }],
      client: { phone, name: 'Анна' },
      datetime,
      seanceLength: 3600,
      comment: 'создано ботом',
    },
    token,
  );
}

describe('authUser', () => {
  test('returns the user token, sending the partner token and the v2 Accept header', async () => {
    const token = await login();
    expect(token).toMatch(/^usr/);
    expect(fake.loginCount).toBe(1);
    const call = fake.calls.at(-1)!;
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/auth');
    expect(call.headers.accept).toBe(YCLIENTS_ACCEPT);
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers.authorization).toBe(`Bearer ${PARTNER}`);
    expect(call.body).toEqual({ login: company.login, password: PASSWORD });
  });

  test('a wrong password is a typed auth error that never shows the secrets', async () => {
    const err = await apiError(client.authUser({ login: company.login, password: 'wrong-password-123' }));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.message).toBe('Неверный логин или пароль');
    const everything = `${err.message} ${String(err)} ${Bun.inspect(err)} ${JSON.stringify(err)}`;
    expect(everything).not.toContain('wrong-password-123');
    expect(everything).not.toContain(PARTNER);
  });

  test('a 422 for wrong credentials is an auth error too', async () => {
    fake.settings.authFailureStatus = 422;
    const err = await apiError(client.authUser({ login: company.login, password: 'nope-nope' }));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(422);
  });

  test('secrets echoed back by the API are scrubbed from the message', async () => {
    fake.failNext('/auth', {
      status: 401,
      body: { errors: { code: 401, message: `bad password ${PASSWORD} for partner ${PARTNER}` }, meta: {} },
    });
    const err = await apiError(login());
    expect(err.kind).toBe('auth');
    expect(err.message).toBe('bad password [redacted] for partner [redacted]');
    expect(Bun.inspect(err)).not.toContain(PASSWORD);
  });

  test('an unknown partner token is refused with 401', async () => {
    const stranger = createYclientsClient({ baseUrl: fake.url, partnerToken: 'unknown-partner' });
    const err = await apiError(stranger.authUser({ login: company.login, password: PASSWORD }));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.message).not.toContain('unknown-partner');
  });

  test('a two-factor answer without a token is an auth error', async () => {
    fake.failNext('/auth', { status: 200, body: { success: true, data: { uuid: 'abc' }, meta: [] } });
    const err = await apiError(login());
    expect(err.kind).toBe('auth');
  });
});

describe('staff and services', () => {
  test('administrator view sends partner and user token and parses the list', async () => {
    const token = await login();
    const staff = await client.getStaff(COMPANY, token);
    expect(fake.calls.at(-1)!.headers.authorization).toBe(`Bearer ${PARTNER}, User ${token}`);
    expect(fake.calls.at(-1)!.path).toBe(`/company/${COMPANY}/staff`);
    expect(staff).toEqual([
      expect.objectContaining({ id: MARIA, name: 'Мария', positionTitle: 'Мастер', fired: false, bookable: null }),
      expect.objectContaining({ id: OLEG, name: 'Олег', positionTitle: null, fired: true }),
    ]);

    const services = await client.getServices(COMPANY, token);
    expect(services).toEqual([
      expect.objectContaining({
        id: HAIRCUT,
        title: 'Стрижка',
        categoryId: 501,
        priceMin: 1500,
        priceMax: 2000,
        staff: [
          { id: MARIA, seanceLength: 3600 },
          { id: OLEG, seanceLength: 3600 },
        ],
      }),
      expect.objectContaining({ id: BEARD, priceMin: 800, staff: [{ id: OLEG, seanceLength: 1800 }] }),
    ]);
  });

  test('legacy string-typed fields parse to numbers and flags', async () => {
    fake.settings.legacyStrings = true;
    const token = await login();
    const [maria, oleg] = await client.getStaff(COMPANY, token);
    expect(maria!.id).toBe(MARIA);
    expect(oleg!.fired).toBe(true);
    const [haircut] = await client.getServices(COMPANY, token);
    expect(haircut).toEqual(expect.objectContaining({ id: HAIRCUT, priceMin: 1500, priceMax: 2000, active: true }));
    expect(haircut!.staff[0]).toEqual({ id: MARIA, seanceLength: 3600 });
  });

  test('online-booking view needs only the partner token', async () => {
    const staff = await client.getStaff(COMPANY, undefined, { serviceIds: [HAIRCUT] });
    expect(fake.calls.at(-1)!.headers.authorization).toBe(`Bearer ${PARTNER}`);
    expect(fake.calls.at(-1)!.query).toBe(`service_ids[]=${HAIRCUT}`);
    // Fired staff are not offered online.
    expect(staff.map((s) => s.id)).toEqual([MARIA]);
    expect(staff[0]).toEqual(expect.objectContaining({ bookable: true, seanceDate: DAY }));

    const services = await client.getServices(COMPANY, undefined, { staffId: MARIA });
    expect(services).toEqual([expect.objectContaining({ id: HAIRCUT, seanceLength: 3600, priceMax: 2000 })]);
  });

  test('an unknown company is not_found', async () => {
    const err = await apiError(client.getServices(999));
    expect(err.kind).toBe('not_found');
    expect(err.status).toBe(404);
    expect(err.message).toBe('Филиал не найден.');
  });

  test('an administrator call without a user token is refused with 401', async () => {
    const err = await apiError(client.getStaff(COMPANY, 'not-a-token'));
    expect(err.kind).toBe('auth');
    expect(err.tokenRejected).toBe(true);
    expect(err.message).not.toContain('not-a-token');
  });
});

describe('free times', () => {
  test('lists the free starts of a day with bracketed service ids', async () => {
    const times = await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]);
    const call = fake.calls.at(-1)!;
    expect(call.path).toBe(`/book_times/${COMPANY}/${MARIA}/${DAY}`);
    expect(call.query).toBe(`service_ids[]=${HAIRCUT}`);
    expect(call.headers.authorization).toBe(`Bearer ${PARTNER}`);
    expect(times.map((t) => t.time)).toEqual(['10:00', '10:30', '11:00', '11:30', '12:00']);
    expect(times[0]).toEqual({
      time: '10:00',
      datetime: `${DAY}T10:00:00+03:00`,
      seanceLength: 3600,
      sumLength: 3600,
    });
  });

  test('busy time is excluded, and a day off is empty', async () => {
    fake.markBusy(COMPANY, MARIA, `${DAY}T11:00:00+03:00`);
    const times = await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]);
    expect(times.map((t) => t.time)).toEqual(['10:00', '12:00']);
    expect(await client.getBookTimes(COMPANY, MARIA, '2026-12-02', [HAIRCUT])).toEqual([]);
  });

  test('bookable dates of a month', async () => {
    fake.markBusy(COMPANY, MARIA, '2026-12-03T10:00:00+03:00', 7200);
    const dates = await client.getBookDates(COMPANY, { staffId: MARIA, serviceIds: [HAIRCUT], date: DAY });
    expect(dates).toEqual({ bookingDates: [DAY], workingDates: [DAY, '2026-12-03'] });
  });
});

describe('creating records', () => {
  test('an administrator record succeeds, then the same slot is a typed slot_busy error', async () => {
    const token = await login();
    const [first] = await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]);
    const record = await bookAt(first!.datetime, token);
    expect(record).toEqual(
      expect.objectContaining({
        companyId: COMPANY,
        staffId: MARIA,
        serviceIds: [HAIRCUT],
        datetime: `${DAY}T10:00:00+03:00`,
        seanceLength: 3600,
        clientName: 'Анна',
        clientPhone: '79161234567',
      }),
    );
    expect(record.id).toBeGreaterThan(0);
    const call = fake.calls.at(-1)!;
    expect(call.path).toBe(`/records/${COMPANY}`);
    expect(call.headers.authorization).toBe(`Bearer ${PARTNER}, User ${token}`);
    expect(call.body).toEqual({
      staff_id: MARIA,
      services: [{ id: HAIRCUT, first_cost: 2000, discount: 0, cost: 2000 }],
      client: { phone: '79161234567', name: 'Анна' },
      datetime: `${DAY}T10:00:00+03:00`,
      seance_length: 3600,
      save_if_busy: false,
      send_sms: false,
      comment: 'создано ботом',
    });

    const err = await apiError(bookAt(first!.datetime, token, '79160000000'));
    expect(err.kind).toBe('slot_busy');
    expect(err.status).toBe(422);
    expect(err.code).toBe(433);
    expect(err.message).toContain('Выбранное время уже занято');

    const after = await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]);
    expect(after.map((t) => t.time)).toEqual(['11:00', '11:30', '12:00']);
    expect(fake.records).toHaveLength(1);
  });

  test('the blueprint shape of a taken slot (message only, no code) is still slot_busy', async () => {
    fake.settings.slotTakenWithCode = false;
    const token = await login();
    fake.markBusy(COMPANY, MARIA, `${DAY}T10:00:00+03:00`);
    const err = await apiError(bookAt(`${DAY}T10:00:00+03:00`, token));
    expect(err.kind).toBe('slot_busy');
    expect(err.code).toBeNull();
  });

  test('non-working time is refused like a taken one', async () => {
    const token = await login();
    const err = await apiError(bookAt(`${DAY}T18:00:00+03:00`, token));
    expect(err.kind).toBe('slot_busy');
  });

  test('two concurrent bookings of one slot: exactly one succeeds', async () => {
    const token = await login();
    const results = await Promise.allSettled([bookAt(`${DAY}T11:00:00+03:00`, token), bookAt(`${DAY}T11:00:00+03:00`, token, '79160000000')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as YclientsApiError).kind).toBe('slot_busy');
  });

  test('a record answered as an array (Altegio shape) is read too', async () => {
    fake.settings.recordsDataAsArray = true;
    const token = await login();
    const record = await bookAt(`${DAY}T12:00:00+03:00`, token);
    expect(record.datetime).toBe(`${DAY}T12:00:00+03:00`);
  });

  test('a bad phone is a validation error with its internal code', async () => {
    const token = await login();
    const err = await apiError(bookAt(`${DAY}T10:00:00+03:00`, token, '12'));
    expect(err.kind).toBe('validation');
    expect(err.code).toBe(431);
  });

  test('online booking: check, book, then the same slot is taken', async () => {
    const appointment = { id: 1, serviceIds: [HAIRCUT], staffId: MARIA, datetime: `${DAY}T10:30:00+03:00` };
    await client.bookCheck(COMPANY, [appointment]);
    const booked = await client.bookRecord(COMPANY, {
      phone: '79161234567',
      fullname: 'Анна',
      notifyBySms: 2,
      appointments: [appointment],
    });
    expect(booked).toEqual([{ id: 1, recordId: expect.any(Number), recordHash: expect.any(String) }]);
    expect(fake.calls.at(-1)!.body).toEqual({
      phone: '79161234567',
      fullname: 'Анна',
      notify_by_sms: 2,
      appointments: [{ id: 1, services: [HAIRCUT], staff_id: MARIA, datetime: `${DAY}T10:30:00+03:00` }],
    });

    const checkErr = await apiError(client.bookCheck(COMPANY, [appointment]));
    expect(checkErr.kind).toBe('slot_busy');
    const bookErr = await apiError(client.bookRecord(COMPANY, { phone: '79160000000', fullname: 'Ольга', appointments: [appointment] }));
    expect(bookErr.kind).toBe('slot_busy');
    expect(bookErr.code).toBe(433);
  });
});

describe('cancelling records', () => {
  test('DELETE /record answers 204 with no body: the record is gone and its time free; a second delete is not_found', async () => {
    const token = await login();
    const record = await bookAt(`${DAY}T11:00:00+03:00`, token);
    await client.deleteRecord(COMPANY, record.id, token);
    const call = fake.calls.at(-1)!;
    expect(call.method).toBe('DELETE');
    expect(call.path).toBe(`/record/${COMPANY}/${record.id}`);
    expect(call.headers.authorization).toBe(`Bearer ${PARTNER}, User ${token}`);
    expect(fake.records.find((r) => r.id === record.id)!.deleted).toBe(true);
    expect((await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT])).map((t) => t.time)).toContain('11:00');

    const again = await apiError(client.deleteRecord(COMPANY, record.id, token));
    expect(again.kind).toBe('not_found');
    expect(again.status).toBe(404);
  });

  test('without an administrator token the delete is refused (401) and the record stays', async () => {
    const token = await login();
    const record = await bookAt(`${DAY}T12:00:00+03:00`, token);
    fake.expireUserTokens();
    const refused = await apiError(client.deleteRecord(COMPANY, record.id, token));
    expect(refused.tokenRejected).toBe(true);
    expect(fake.records.find((r) => r.id === record.id)!.deleted).toBe(false);
  });
});

describe('token renewal and failures', () => {
  test('after the user tokens expire the next call is a 401 auth error; a new login works', async () => {
    const token = await login();
    await client.getStaff(COMPANY, token);
    fake.expireUserTokens();

    const err = await apiError(client.getStaff(COMPANY, token));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.tokenRejected).toBe(true);
    expect(err.message).toBe('Authentication needed.');
    expect(Bun.inspect(err)).not.toContain(token);

    const renewed = await login();
    expect(renewed).not.toBe(token);
    expect(await client.getStaff(COMPANY, renewed)).toHaveLength(2);
    expect(fake.loginCount).toBe(2);
  });

  test('5xx is a server error', async () => {
    fake.failNext('/book_times/', { status: 500 });
    const err = await apiError(client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]));
    expect(err.kind).toBe('server');
    expect(err.status).toBe(500);
    // Only the next call was failing.
    expect(await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT])).toHaveLength(5);
  });

  test('5xx with an HTML body is still a server error', async () => {
    fake.failNext('/book_times/', { status: 502, body: '<html>Bad Gateway</html>' });
    const err = await apiError(client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]));
    expect(err.kind).toBe('server');
    expect(err.status).toBe(502);
  });

  test('429 with an empty body is rate_limited and carries Retry-After', async () => {
    fake.failNext('/book_staff/', { status: 429, body: null, headers: { 'Retry-After': '3' } });
    const err = await apiError(client.getStaff(COMPANY));
    expect(err.kind).toBe('rate_limited');
    expect(err.retryAfterSeconds).toBe(3);
  });

  test('an expired licence (403) is an auth error with the API message', async () => {
    const message = `Необходимо продлить лицензию в филиале с id: ${COMPANY}`;
    fake.failNext(`/company/${COMPANY}/services`, {
      status: 403,
      body: { success: false, data: null, meta: { message } },
    });
    const token = await login();
    const err = await apiError(client.getServices(COMPANY, token));
    expect(err.kind).toBe('auth');
    expect(err.tokenRejected).toBe(false);
    expect(err.message).toBe(message);
  });

  test('no answer within the timeout is a network error', async () => {
    const impatient = createYclientsClient({ baseUrl: fake.url, partnerToken: PARTNER, timeoutMs: 100 });
    fake.failNext('/book_staff/', { status: 200, delayMs: 5000 });
    const err = await rejection(impatient.getStaff(COMPANY));
    expect(err).toBeInstanceOf(YclientsNetworkError);
    expect((err as YclientsNetworkError).timedOut).toBe(true);
    expect((err as Error).message).not.toContain(PARTNER);
  });

  test('an unreachable host is a network error', async () => {
    const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
    const port = probe.port;
    await probe.stop(true);
    const offline = createYclientsClient({ baseUrl: `http://127.0.0.1:${port}/api/v1`, partnerToken: PARTNER });
    const err = await rejection(offline.getStaff(COMPANY));
    expect(err).toBeInstanceOf(YclientsNetworkError);
    expect((err as YclientsNetworkError).timedOut).toBe(false);
  });
});

describe('the company', () => {
  test('getCompany names its time zone, from `timezone` as the blueprint shows it or `timezone_name` beside an hour offset', async () => {
    expect(await client.getCompany(COMPANY)).toEqual({ id: COMPANY, title: `Компания ${COMPANY}`, timeZone: 'Europe/Moscow', utcOffsetMinutes: null });
    fake.settings.companyTimezoneShape = 'offset';
    expect(await client.getCompany(COMPANY)).toMatchObject({ timeZone: 'Europe/Moscow', utcOffsetMinutes: 180 });
    fake.settings.companyTimezoneShape = 'none';
    expect(await client.getCompany(COMPANY)).toMatchObject({ timeZone: null, utcOffsetMinutes: null });
    expect((await apiError(client.getCompany(999))).kind).toBe('not_found');
  });
});

describe('rate limits (5 a second, 200 a minute per address)', () => {
  const many = (c: typeof client, n: number) => Promise.allSettled(Array.from({ length: n }, () => c.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT])));

  test('the fake answers 429 past 5 requests in a second, like YCLIENTS', async () => {
    const results = await many(client, 7);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as YclientsApiError);
    expect(refused).toHaveLength(2);
    for (const err of refused) {
      expect(err.kind).toBe('rate_limited');
      expect(err.status).toBe(429);
    }
    expect(fake.rateLimited).toBe(2);
  });

  test('and past 200 in a minute (here 3, to keep the test short)', async () => {
    fake.settings.rateLimit = { perSecond: 100, perMinute: 3 };
    const results = await many(client, 4);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
  });

  test('a client with the limiter spreads its calls over the seconds and never meets a 429', async () => {
    const limited = createYclientsClient({
      baseUrl: fake.url,
      partnerToken: PARTNER,
      timeoutMs: 2000,
      limiter: createYclientsLimiter({ perSecond: 5, perMinute: 200 }),
    });
    const started = performance.now();
    const results = await many(limited, 8);
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(fake.rateLimited).toBe(0);
  });

  test('with the limiter a 429 waits for Retry-After (or backs off) and is tried again', async () => {
    const limited = createYclientsClient({
      baseUrl: fake.url,
      partnerToken: PARTNER,
      timeoutMs: 2000,
      limiter: createYclientsLimiter({ perSecond: 5, perMinute: 200 }),
    });
    fake.failNext('/book_staff/', { status: 429, body: null, headers: { 'Retry-After': '1' } });
    const started = performance.now();
    expect((await limited.getStaff(COMPANY)).map((s) => s.id)).toContain(MARIA);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.calls.filter((c) => c.path.startsWith('/book_staff/'))).toHaveLength(2);
    // Without Retry-After: a back-off of its own.
    fake.failNext('/book_staff/', { status: 429 });
    expect((await limited.getStaff(COMPANY)).length).toBeGreaterThan(0);
  });
});

describe('fake YCLIENTS wire details settled from the references', () => {
  test('book_record takes api_id as a string (the blueprint table) or a number (its attribute list)', async () => {
    const times = await client.getBookTimes(COMPANY, MARIA, DAY, [HAIRCUT]);
    for (const [apiId, at] of [
      ['ext-58112', 0],
      [777, 2],
    ] as const) {
      const res = await fetch(`${fake.url}/book_record/${COMPANY}`, {
        method: 'POST',
        headers: { Accept: YCLIENTS_ACCEPT, 'Content-Type': 'application/json', Authorization: `Bearer ${PARTNER}` },
        body: JSON.stringify({
          phone: '79161234567',
          fullname: 'Анна',
          api_id: apiId,
          appointments: [{ id: 1, services: [HAIRCUT], staff_id: MARIA, datetime: times[at]!.datetime }],
        }),
      });
      expect(res.status).toBe(201);
    }
    expect(fake.records.map((r) => r.apiId)).toEqual(['ext-58112', '777']);
  });
});
