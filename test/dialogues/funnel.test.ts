// The agent's funnel (issue 42 point 8), over HTTP with seeded rows: per week of the client's first message,
// dialogues → bookings → visits (Service) or dialogues → orders → payments (E-commerce), each step's
// conversion from the one before, the weeks with nobody shown as zeros, and the whole period's total.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const DAY_MS = 86_400_000;
const MSK_MS = 3 * 3_600_000;

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ env: { YCLIENTS_TIME_ZONE: 'Europe/Moscow' } });
});
afterAll(async () => {
  await app?.close();
});

/** Monday 00:00 in Moscow of the week `back` weeks before this one, as an instant and as the date the API names. */
function week(back: number) {
  const nowMsk = Date.now() + MSK_MS;
  const mondayMsk = Math.floor(nowMsk / DAY_MS) * DAY_MS - ((new Date(nowMsk).getUTCDay() + 6) % 7) * DAY_MS - back * 7 * DAY_MS;
  return { date: new Date(mondayMsk).toISOString().slice(0, 10), wednesday: new Date(mondayMsk - MSK_MS + 2.5 * DAY_MS) };
}

async function newAgent(type: 'service' | 'ecommerce') {
  const owner = await registerUser(app.url);
  const res = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Воронка', type } });
  expect(res.status).toBe(201);
  return { token: owner.token, agentId: res.body.id as string };
}

let peer = 50_000_000;
/** A dialogue whose client wrote at each of `at` (none: a consent event alone made it). */
async function dialogue(agentId: string, at: Date[]): Promise<string> {
  peer += 1;
  const [row] = await app.sql<{ id: string }>(`insert into dialogues (agent_id, channel, peer_id) values ($1, 'social', $2) returning id`, [agentId, String(peer)]);
  for (const when of at) {
    await app.sql(`insert into dialogue_messages (dialogue_id, role, content, created_at) values ($1, 'user', 'Здравствуйте', $2)`, [row!.id, when.toISOString()]);
  }
  return row!.id;
}

let staff = 0;
async function appointment(agentId: string, dialogueId: string, startsIn: string, status: 'booked' | 'canceled' = 'booked'): Promise<string> {
  staff += 1;
  const [row] = await app.sql<{ id: string }>(
    `insert into appointments (agent_id, specialist_id, service_id, staff_id, external_service_id, starts_at, datetime, client_name, client_phone, status, source, dialogue_id)
     values ($1, 's1', 'v1', $2, 1, now() + $3::interval, '2030-01-01T10:00:00+03:00', 'Анна', '79161234567', $4, 'button', $5) returning id`,
    [agentId, staff, startsIn, status, dialogueId],
  );
  return row!.id;
}

let orderNo = 0;
async function order(agentId: string, dialogueId: string, status: 'paid' | 'pending') {
  orderNo += 1;
  await app.sql(
    `insert into orders (agent_id, dialogue_id, number, status, items, total_minor, currency, payment_link, paid_at)
     values ($1, $2, $3, $4, '[]', 150000, 'RUB', 'https://pay/1', case when $4 = 'paid' then now() else null end)`,
    [agentId, dialogueId, `ORD-F-${orderNo}`, status],
  );
}

type Step = { key: string; count: number; conversion: number | null };
const steps = (list: Step[]) => list.map((s) => [s.key, s.count, s.conversion]);

describe('funnel', () => {
  test('a Service agent: dialogues → bookings → visits per week, with conversions and the total', async () => {
    const { token, agentId } = await newAgent('service');
    // Last week: four clients — one came, one is booked for later, one cancelled, one only asked.
    const last = week(1).wednesday;
    await appointment(agentId, await dialogue(agentId, [last]), '-1 day');
    await appointment(agentId, await dialogue(agentId, [last]), '1 day');
    await appointment(agentId, await dialogue(agentId, [last]), '-2 days', 'canceled');
    await dialogue(agentId, [last]);
    // Two weeks ago: two clients, one booked and came.
    await appointment(agentId, await dialogue(agentId, [week(2).wednesday]), '-3 days');
    await dialogue(agentId, [week(2).wednesday]);
    // Three weeks ago a client first wrote, and again last week: they belong to their first week.
    await dialogue(agentId, [week(3).wednesday, last]);
    // Not clients' dialogues: a consent event alone; nor another agent's.
    await dialogue(agentId, []);
    await dialogue((await newAgent('service')).agentId, [last]);

    const res = await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel`, { token });
    expect(res.status).toBe(200);
    expect(res.body.timeZone).toBe('Europe/Moscow');
    expect(res.body.steps).toEqual(['dialogues', 'bookings', 'visits', 'reviews']);
    expect(res.body.weeks.map((w: { weekStart: string }) => w.weekStart)).toEqual([7, 6, 5, 4, 3, 2, 1, 0].map((k) => week(k).date));
    const byWeek = (k: number) => steps(res.body.weeks.find((w: { weekStart: string }) => w.weekStart === week(k).date).steps);
    expect(byWeek(1)).toEqual([
      ['dialogues', 4, null],
      ['bookings', 2, 0.5],
      ['visits', 1, 0.5],
      ['reviews', 0, 0],
    ]);
    expect(byWeek(2)).toEqual([
      ['dialogues', 2, null],
      ['bookings', 1, 0.5],
      ['visits', 1, 1],
      ['reviews', 0, 0],
    ]);
    expect(byWeek(3)).toEqual([
      ['dialogues', 1, null],
      ['bookings', 0, 0],
      ['visits', 0, null],
      ['reviews', 0, null],
    ]);
    expect(byWeek(0)).toEqual([
      ['dialogues', 0, null],
      ['bookings', 0, null],
      ['visits', 0, null],
      ['reviews', 0, null],
    ]);
    expect(steps(res.body.total)).toEqual([
      ['dialogues', 7, null],
      ['bookings', 3, 0.429],
      ['visits', 2, 0.667],
      ['reviews', 0, 0],
    ]);
    expect(res.body.averageScore).toBeNull();

    const short = await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel?weeks=2`, { token });
    expect(short.body.weeks.map((w: { weekStart: string }) => w.weekStart)).toEqual([week(1).date, week(0).date]);
    expect(steps(short.body.total)[0]).toEqual(['dialogues', 4, null]);
  });

  test('a Service agent: a no-show is no visit; reviews counted with the average score (issue 42 point 2)', async () => {
    const { token, agentId } = await newAgent('service');
    const last = week(1).wednesday;
    const came = [await dialogue(agentId, [last]), await dialogue(agentId, [last])];
    for (const [i, d] of came.entries()) {
      const id = await appointment(agentId, d, '-1 day');
      await app.sql('update appointments set attendance = 1 where id = $1', [id]);
      await app.sql('insert into visit_reviews (appointment_id, agent_id, dialogue_id, score) values ($1, $2, $3, $4)', [id, agentId, d, [2, 5][i]]);
    }
    const noShow = await appointment(agentId, await dialogue(agentId, [last]), '-1 day');
    await app.sql('update appointments set attendance = -1 where id = $1', [noShow]);
    const res = await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel?weeks=4`, { token });
    expect(res.status).toBe(200);
    expect(steps(res.body.total)).toEqual([
      ['dialogues', 3, null],
      ['bookings', 3, 1],
      ['visits', 2, 0.667],
      ['reviews', 2, 1],
    ]);
    expect(res.body.averageScore).toBe(3.5);
    expect(res.body.weeks.find((w: { weekStart: string }) => w.weekStart === week(1).date).averageScore).toBe(3.5);
    expect(res.body.weeks.find((w: { weekStart: string }) => w.weekStart === week(0).date).averageScore).toBeNull();
  });

  test('an E-commerce agent: dialogues → orders → payments', async () => {
    const { token, agentId } = await newAgent('ecommerce');
    const last = week(1).wednesday;
    await order(agentId, await dialogue(agentId, [last]), 'paid');
    await order(agentId, await dialogue(agentId, [last]), 'pending');
    await dialogue(agentId, [last]);
    const res = await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel?weeks=4`, { token });
    expect(res.body.steps).toEqual(['dialogues', 'orders', 'payments']);
    expect(steps(res.body.total)).toEqual([
      ['dialogues', 3, null],
      ['orders', 2, 0.667],
      ['payments', 1, 0.5],
    ]);
  });

  test('weeks within the turns kept; only the owner', async () => {
    const { token, agentId } = await newAgent('service');
    expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel?weeks=13`, { token })).status).toBe(400);
    expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel?weeks=0`, { token })).status).toBe(400);
    const stranger = await registerUser(app.url);
    expect((await call(app.url, 'GET', `/api/v1/agents/${agentId}/funnel`, { token: stranger.token })).status).toBe(403);
  });
});
