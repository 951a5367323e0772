// Knowing the client in YCLIENTS (issue 42 point 4): with the owner's «matchClientRecords» on, upcoming records
// the salon made in YCLIENTS itself (a phone call: the fake's administrator records) for a card whose phone and
// name match the dialogue's client are linked to the dialogue — shown in «Мои записи» and by the model's
// list_my_appointments, reminded of, cancellable. Off (the default) they are not. A different name on the same
// phone is not linked; several cards for one phone are each read; a record linked to another dialogue stays
// there; matching run twice at once links once; YCLIENTS down leaves the client his own bookings.
// VK webhook in, a scripted model, the fake YCLIENTS; the reminder pass takes an injected clock.
import { beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { type ScriptedModelHost, toolResults } from '../fakes/scripted-model';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { waitFor } from '../helpers/messenger';
import { moscowDate, SALON, SALON_SETTINGS, salonCompany, salonAgent, useSalonApp } from '../helpers/salon';
import { buttonsOf, CLIENT, createSocialDriver } from '../helpers/social';

setDefaultTimeout(30_000);

const { id: COMPANY, anna: ANNA, haircut: HAIRCUT } = SALON;
const OLGA = 1602;
const HOUR = 3600_000;
const PHONE = '79161112233';
const OTHER_CLIENT = 40911299;

const DAY = moscowDate(3);
const at = (time: string) => `${DAY}T${time}:00+03:00`;
const ms = (time: string) => Date.parse(at(time));

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let app: TestApp;

useSalonApp({
  withoutTelegram: true,
  company: salonCompany([DAY], { end: '19:00', others: [{ id: OLGA, name: 'Ольга' }] }),
  ready: (s) => ({ app, host, vk, yc } = s),
});

// Each test's visits alone: the earlier tests' (other agents, the same day) are neither reminded of nor in the way.
beforeEach(async () => {
  if (app) await app.sql(`update appointments set status = 'canceled' where status = 'booked'`);
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);
let counter = 0;

/** A salon agent with VK and YCLIENTS whose client «Мария» booked `own` in the dialogue (the model's tool): the dialogue knows her phone and name. */
async function salon(settings: Record<string, unknown>, own = '16:00', peerId = CLIENT) {
  const model = `match/m${++counter}`;
  const { owner, agentId } = await salonAgent(app, model, settings);
  const client = await bookInDialogue(agentId, model, own, peerId);
  return { agentId, owner, model, ...client };
}

async function bookInDialogue(agentId: string, model: string, time: string, peerId: number) {
  host.sequence(model, [
    {
      toolCalls: [
        {
          name: 'book_appointment',
          arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(time), clientName: 'Мария', clientPhone: '+7 916 111-22-33' },
        },
      ],
    },
    { text: 'Записала.' },
  ]);
  await sendAndWait(agentId, messageNew('Запишите меня', { peerId }), 2, peerId);
  const [dialogue] = await app.sql<{ id: string }>('select id from dialogues where agent_id = $1 and peer_id = $2', [agentId, String(peerId)]);
  return { dialogueId: dialogue!.id };
}

/** A record the salon's administrator writes in YCLIENTS (a phone call) at `time`, for Мария's card or the given one. */
const byPhoneCall = (
  time: string,
  who: { clientId: number } | { client: { name: string; phone: string } } = { client: { name: 'Мария', phone: PHONE } },
  staffId = ANNA,
) => yc.adminRecord({ companyId: COMPANY, staffId, serviceIds: [HAIRCUT], datetime: at(time), ...who });

/** «Мои записи» pressed: the assistant's answer. */
async function myBookings(agentId: string, peerId = CLIENT): Promise<FakeSentMessage> {
  const [answer] = await sendAndWait(agentId, messageEvent({ action: 'my_bookings' }, peerId), 1, peerId);
  return answer!;
}

/** The model's list_my_appointments, asked in a new turn: the appointments' times it was given (* after one made in the salon). */
async function modelList(agentId: string, model: string): Promise<string[]> {
  host.sequence(model, [{ toolCalls: [{ name: 'list_my_appointments', arguments: {} }] }, { text: 'Вот ваши записи.' }]);
  await sendAndWait(agentId, messageNew('Какие у меня записи?'), 1);
  const result = toolResults(host.requestsFor(model)[1]!.body).find((r) => r.name === 'list_my_appointments')!.result;
  return (result.appointments as { datetime: string; madeInSalon?: boolean }[]).map((a) => (a.madeInSalon ? `${a.datetime}*` : a.datetime));
}

const matchedRows = (agentId: string) =>
  app.sql<{ external_record_id: string; dialogue_id: string; status: string }>(
    `select external_record_id, dialogue_id, status from appointments where agent_id = $1 and source = 'matched' order by starts_at`,
    [agentId],
  );
const toClient = () => vk.sentMessages.filter((m) => m.peerId === CLIENT);

describe('knowing the client in YCLIENTS (issue 42 point 4)', () => {
  test('off by default: a record made by phone for the same phone and name is not shown, listed or reminded of, and YCLIENTS is not searched', async () => {
    const { agentId, owner, model } = await salon({});
    const read = await call(app.url, 'GET', `/api/v1/booking/${agentId}/settings`, { token: owner.token });
    expect(read.body.matchClientRecords).toBe(false);
    byPhoneCall('11:00');
    const mine = await myBookings(agentId);
    expect(mine.message).toContain('16:00');
    expect(mine.message).not.toContain('11:00');
    expect(await modelList(agentId, model)).toEqual([at('16:00')]);
    expect(await app.instance.services.social.sendReminders(new Date(ms('11:00') - 24 * HOUR + 60_000))).toEqual({ sent: 0, skipped: 0 });
    expect(yc.calls.some((c) => c.path.includes('/clients/search') || c.path.startsWith('/records/'))).toBe(false);
    expect(await matchedRows(agentId)).toEqual([]);
  });

  test('on: shown in «Мои записи» and by the model, reminded of, and cancelled after asking', async () => {
    const { agentId, owner, model, dialogueId } = await salon({ matchClientRecords: true });
    const read = await call(app.url, 'GET', `/api/v1/booking/${agentId}/settings`, { token: owner.token });
    expect(read.body.matchClientRecords).toBe(true);
    const record = byPhoneCall('11:00');
    // Past or deleted records and those the client came to are not upcoming ones.
    byPhoneCall('12:00').deleted = true;
    byPhoneCall('13:00').attendance = 1;

    const mine = await myBookings(agentId);
    expect(mine.message).toMatch(/^Ваши предстоящие записи:\n• \d+ [а-я]+, 11:00 — Стрижка, Анна\n• \d+ [а-я]+, 16:00 — Стрижка, Анна$/);
    const labels = buttonsOf(mine).map((b) => b.action.label);
    expect(labels).toEqual(expect.arrayContaining([expect.stringMatching(/^Перенести .*11:00$/), expect.stringMatching(/^Отменить .*11:00$/), 'Главное меню']));
    expect(await matchedRows(agentId)).toEqual([{ external_record_id: String(record.id), dialogue_id: dialogueId, status: 'booked' }]);
    // The search went by the phone's digits; one GET /records for the card.
    const search = yc.calls.find((c) => c.path === `/company/${COMPANY}/clients/search`);
    expect(search?.body).toMatchObject({ filters: [{ type: 'quick_search', state: { value: PHONE } }] });
    expect(yc.calls.filter((c) => c.path === `/records/${COMPANY}`)).toHaveLength(1);

    expect(await modelList(agentId, model)).toEqual([`${at('11:00')}*`, at('16:00')]);

    const before = toClient().length;
    expect(await app.instance.services.social.sendReminders(new Date(ms('11:00') - 24 * HOUR + 60_000))).toEqual({ sent: 1, skipped: 0 });
    await waitFor(() => toClient().length > before, 5000, 'the reminder in VK');
    expect(toClient().at(-1)!.message).toMatch(/^Напоминаем о вашей записи: \d+ [а-я]+, 11:00\.\nСтрижка, Анна\./);

    const cancel = buttonsOf(mine).find((b) => /^Отменить .*11:00$/.test(b.action.label))!;
    const [ask] = await sendAndWait(agentId, messageEvent(JSON.parse(cancel.action.payload)));
    expect(ask!.message).toMatch(/^Отменить запись \d+ [а-я]+, 11:00 \(Стрижка, Анна\)\?$/);
    const yes = buttonsOf(ask!).find((b) => b.action.label === 'Да, отменить')!;
    const [done] = await sendAndWait(agentId, messageEvent(JSON.parse(yes.action.payload)));
    expect(done!.message).toMatch(/^Запись \d+ [а-я]+, 11:00 отменена\./);
    expect(yc.records.find((r) => r.id === record.id)?.deleted).toBe(true);
    expect((await matchedRows(agentId))[0]?.status).toBe('canceled');
  });

  test('several cards for one phone: each matching name is read, a different name on the same phone is not linked', async () => {
    const { agentId, dialogueId } = await salon({ matchClientRecords: true });
    const second = yc.addClient(COMPANY, { name: 'МАРИЯ  Иванова', phone: `+${PHONE}` });
    const stranger = yc.addClient(COMPANY, { name: 'Ольга', phone: `+${PHONE}` });
    const hers = byPhoneCall('11:00', { clientId: second });
    byPhoneCall('12:00', { clientId: stranger });
    const mine = await myBookings(agentId);
    expect(mine.message).toContain('11:00');
    expect(mine.message).not.toContain('12:00');
    expect(await matchedRows(agentId)).toEqual([{ external_record_id: String(hers.id), dialogue_id: dialogueId, status: 'booked' }]);
    // One GET /records per matching card (Мария's own and «МАРИЯ Иванова»), none for Ольга's.
    const listed = yc.calls.filter((c) => c.path === `/records/${COMPANY}`).map((c) => new URLSearchParams(c.query).get('client_id'));
    expect(listed).toHaveLength(2);
    expect(listed).toContain(String(second));
    expect(listed).not.toContain(String(stranger));
  });

  test('a record linked to another dialogue is not stolen; one outside the mapping is skipped', async () => {
    const { agentId, model, dialogueId } = await salon({ matchClientRecords: true });
    const record = byPhoneCall('11:00');
    byPhoneCall('12:00', undefined, OLGA);
    expect((await myBookings(agentId)).message).toContain('11:00');
    // Another VK client types the same phone and name and books: the first client's visits stay the first's.
    await bookInDialogue(agentId, model, '17:00', OTHER_CLIENT);
    const theirs = await myBookings(agentId, OTHER_CLIENT);
    expect(theirs.message).toContain('17:00');
    expect(theirs.message).not.toContain('11:00');
    expect(theirs.message).not.toContain('16:00');
    expect(await matchedRows(agentId)).toEqual([{ external_record_id: String(record.id), dialogue_id: dialogueId, status: 'booked' }]);
    expect((await myBookings(agentId)).message).not.toContain('12:00');
  });

  test('matching run twice at once, and again, links each record once; the booking sync links too', async () => {
    const { agentId, dialogueId } = await salon({ matchClientRecords: true, syncEnabled: true });
    byPhoneCall('11:00');
    const { service } = app.instance.services.booking;
    const [a, b] = await Promise.all([service.matchClientRecords(agentId, dialogueId), service.matchClientRecords(agentId, dialogueId)]);
    const linked = [a, b].map((o) => (o.status === 'matched' ? o.linked : 0));
    expect(linked[0]! + linked[1]!).toBe(1);
    expect(await service.matchClientRecords(agentId, dialogueId)).toEqual({ status: 'recent' });
    expect(await matchedRows(agentId)).toHaveLength(1);
    // A later phone call: the sync's pass (the dialogue's mark expired) finds it without the client asking.
    byPhoneCall('13:00');
    await app.sql(`delete from booking_cache where agent_id = $1 and key like 'match:%'`, [agentId]);
    const run = await app.instance.services.bookingSync.runOnce();
    expect(run.ran).toBe(true);
    expect((await matchedRows(agentId)).map((r) => r.dialogue_id)).toEqual([dialogueId, dialogueId]);
  });

  test('a card with more records than a page: every page is read (200 a page), the visit on the second found', async () => {
    const { agentId } = await salon({ matchClientRecords: true });
    // Created first, so listed last (the fake lists the newest first): on the second page.
    const upcoming = byPhoneCall('11:00');
    for (let i = 0; i < 200; i++) byPhoneCall('12:00', undefined, OLGA).attendance = 1;
    expect((await myBookings(agentId)).message).toContain('11:00');
    expect((await matchedRows(agentId)).map((r) => r.external_record_id)).toEqual([String(upcoming.id)]);
    const pages = yc.calls.filter((c) => c.path === `/records/${COMPANY}`).map((c) => new URLSearchParams(c.query).get('page'));
    expect(pages).toEqual(['1', '2']);
  });

  test('YCLIENTS down: the client still sees his own bookings, and no error', async () => {
    const { agentId, model } = await salon({ matchClientRecords: true });
    byPhoneCall('11:00');
    yc.failNext('/clients/search', { status: 500, times: 3 });
    const mine = await myBookings(agentId);
    expect(mine.message).toMatch(/^Ваши предстоящие записи:\n• \d+ [а-я]+, 16:00 — Стрижка, Анна$/);
    expect(await modelList(agentId, model)).toEqual([at('16:00')]);
    expect(await matchedRows(agentId)).toEqual([]);
  });

  test('linked visits do not count towards the model’s per-client booking cap (bookings made in the dialogue)', async () => {
    const { agentId, model } = await salon({ matchClientRecords: true });
    for (const time of ['10:00', '11:00', '12:00']) byPhoneCall(time);
    expect((await myBookings(agentId)).message.split('\n')).toHaveLength(5);
    host.sequence(model, [
      {
        toolCalls: [
          { name: 'book_appointment', arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at('17:00'), clientName: 'Мария', clientPhone: PHONE } },
        ],
      },
      { text: 'Записала.' },
    ]);
    await sendAndWait(agentId, messageNew('И ещё на пять вечера'), 2);
    const booked = toolResults(host.requestsFor(model)[1]!.body).find((r) => r.name === 'book_appointment')!.result;
    expect(booked.status).toBe('booked');
  });

  test('the setting takes only true or false', async () => {
    const owner = await registerUser(app.url);
    const created = await call(app.url, 'POST', '/api/agents', { token: owner.token, body: { name: 'Салон', type: 'service' } });
    const bad = await call(app.url, 'PUT', `/api/v1/booking/${created.body.id}/settings`, {
      token: owner.token,
      body: { ...SALON_SETTINGS, matchClientRecords: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('invalid_request_error');
  });
});
