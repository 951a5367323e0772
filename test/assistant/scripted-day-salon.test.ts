// The salon's scripted day (issue 42 points 1 and 2): four clients book in VK through the model; the 24 h
// reminders go; Мария confirms (YCLIENTS attendance 2), Ирина moves her visit, Пётр cancels his; the 2 h
// reminder; the salon marks the visits in YCLIENTS (1 came, -1 did not come); the after-visit pass reads
// them and asks «Как прошёл визит?»; Мария's 2 tells the owner in Telegram and she is apologised to, Олег
// asks a question first (the model answers) and then taps 5 and gets the salon's review page; Ирина, who
// did not come, gets nothing while «мы вас ждали» is off and the message once it is on; 30 days later
// Мария's «записаться снова» opens the booking of the same service with the same specialist. Every pass
// runs twice at once (two instances) and nothing goes twice. The clock is injected into the passes.
import { beforeEach, describe, expect, test, setDefaultTimeout } from 'bun:test';
import type { ScriptedModelHost } from '../fakes/scripted-model';
import type { FakeTelegram } from '../fakes/telegram';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { FakeYclients } from '../fakes/yclients';
import { call, registerUser, type TestApp } from '../helpers/app';
import { BOT_TOKEN, OPERATOR, waitFor } from '../helpers/messenger';
import { moscowDate, SALON, salonCompany, useSalonApp } from '../helpers/salon';
import { buttonsOf, CLIENT, CODE, createSocialDriver, GROUP, payloadOf, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(60_000);

const { id: COMPANY, partnerToken: PARTNER, login: LOGIN, password: PASSWORD, anna: ANNA, haircut: HAIRCUT } = SALON;
const HOUR = 3600_000;
const MINUTE = 60_000;
const REVIEW_URL = 'https://yandex.ru/maps/org/salon_lyon/reviews';

const DAY = moscowDate(3);
const at = (time: string) => `${DAY}T${time}:00+03:00`;
const ms = (time: string) => Date.parse(at(time));

const MARIA = CLIENT;
const OLEG = CLIENT + 1;
const IRINA = CLIENT + 2;
const PETR = CLIENT + 3;

let host: ScriptedModelHost;
let vk: FakeVk;
let yc: FakeYclients;
let telegram: FakeTelegram;
let app: TestApp;

useSalonApp({
  company: salonCompany([DAY]),
  ready: (s) => ({ app, host, vk, yc, telegram } = s),
});

beforeEach(async () => {
  if (app) await app.sql(`update appointments set status = 'canceled' where status = 'booked'`);
});

const { messageNew, messageEvent, sendAndWait } = createSocialDriver(
  () => app,
  () => vk,
);

const to = (peer: number) => vk.sentMessages.filter((m) => m.peerId === peer);
const labels = (m: FakeSentMessage) => buttonsOf(m).map((b) => b.action.label);

describe('the salon’s scripted day (issue 42 points 1 and 2)', () => {
  test('booking → reminders and their buttons → the visit → the review → the nudge; a no-show; nothing twice', async () => {
    const model = 'salon/day';
    const owner = await registerUser(app.url);
    const created = await call(app.url, 'POST', '/api/agents', {
      token: owner.token,
      body: { name: 'Салон «Лён»', type: 'service', model, systemPrompt: 'Ты — администратор салона.' },
    });
    expect(created.status).toBe(201);
    const agentId = created.body.id as string;
    const put = (path: string, body: unknown) => call(app.url, 'PUT', path, { token: owner.token, body });
    expect((await put(`/api/v1/social/${agentId}/settings`, { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE })).status).toBe(
      200,
    );
    expect((await put(`/api/v1/messenger/${agentId}/settings`, { botToken: BOT_TOKEN, userId: OPERATOR.id })).status).toBe(200);
    const bookingSettings = {
      partnerToken: PARTNER,
      login: LOGIN,
      password: PASSWORD,
      companyId: COMPANY,
      specialistMapping: { anna: ANNA },
      serviceMapping: { haircut: HAIRCUT },
      reviewUrl: REVIEW_URL,
      rebookDays: { haircut: 30 },
    };
    const saved = await put(`/api/v1/booking/${agentId}/settings`, bookingSettings);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ reviewDelayMinutes: 120, reviewLowScore: 3, reviewUrl: REVIEW_URL, rebookDays: { haircut: 30 }, noShowMessage: false });

    // Four clients book in VK through the model's tool.
    const clients = [
      { peer: MARIA, name: 'Мария', phone: '+7 916 111-22-33', time: '11:00' },
      { peer: OLEG, name: 'Олег', phone: '+7 916 222-33-44', time: '12:00' },
      { peer: IRINA, name: 'Ирина', phone: '+7 916 333-44-55', time: '14:00' },
      { peer: PETR, name: 'Пётр', phone: '+7 916 444-55-66', time: '16:00' },
    ];
    for (const c of clients) {
      host.sequence(model, [
        {
          toolCalls: [
            { name: 'book_appointment', arguments: { serviceId: 'haircut', specialistId: 'anna', datetime: at(c.time), clientName: c.name, clientPhone: c.phone } },
          ],
        },
        { text: 'Записала.' },
      ]);
      await sendAndWait(agentId, messageNew('Запишите меня на стрижку', { peerId: c.peer }), 1, c.peer);
      await waitFor(() => to(c.peer).some((m) => m.message === 'Записала.'), 5000, 'the booking answer');
    }
    const recordOf = (time: string) => yc.records.find((r) => !r.deleted && r.datetime === at(time))!;
    expect(clients.map((c) => recordOf(c.time)?.attendance)).toEqual([0, 0, 0, 0]);
    const marksFrom = Object.fromEntries(clients.map((c) => [c.peer, to(c.peer).length]));

    /** Runs a pass twice at once, as two instances would, and lets what it queued reach VK. */
    const twice = async <T extends { sent: number }>(pass: () => Promise<T>, expected: number) => {
      const before = vk.sentMessages.length;
      const [a, b] = await Promise.all([pass(), pass()]);
      expect(a.sent + b.sent).toBe(expected);
      if (expected > 0) await waitFor(() => vk.sentMessages.length >= before + expected, 5000, 'the messages in VK');
      await Bun.sleep(150);
      expect(vk.sentMessages.length).toBe(before + expected);
    };
    const reminders = (now: number) => twice(() => app.instance.services.social.sendReminders(new Date(now)), 0);
    const remindersSent = (now: number, n: number) => twice(() => app.instance.services.social.sendReminders(new Date(now)), n);
    const afterVisit = (now: number, n: number) => twice(() => app.instance.services.social.afterVisit(new Date(now)), n);
    const last = (peer: number) => to(peer).at(-1)!;
    const press = async (peer: number, message: FakeSentMessage, label: string, count = 1) =>
      (await sendAndWait(agentId, messageEvent(payloadOf(message, label), peer), count, peer)).at(-1)!;

    // The evening before: every 24 h reminder, once each.
    await reminders(ms('11:00') - 24 * HOUR - MINUTE);
    await remindersSent(ms('16:00') - 24 * HOUR + MINUTE, 4);
    for (const c of clients) expect(labels(last(c.peer))).toEqual(['Подтвердить', 'Перенести', 'Отменить']);

    // Мария confirms: attendance 2 in YCLIENTS.
    const confirmed = await press(MARIA, last(MARIA), 'Подтвердить');
    expect(confirmed.message).toMatch(/подтверждён — ждём вас\.$/);
    expect(recordOf('11:00').attendance).toBe(2);

    // Ирина moves hers from 14:00 to 15:00.
    const times = await press(IRINA, last(IRINA), 'Перенести');
    expect(times.message).toMatch(/^На какое время перенести запись/);
    const summary = await press(IRINA, times, '15:00');
    const moved = await press(IRINA, summary, 'Подтвердить');
    expect(moved.message).toMatch(/^Готово! Запись перенесена/);
    expect(recordOf('15:00').client.name).toBe('Ирина');

    // Пётр cancels his, after being asked.
    const ask = await press(PETR, last(PETR), 'Отменить');
    expect(ask.message).toMatch(/^Отменить запись .*16:00/);
    const canceled = await press(PETR, ask, 'Да, отменить');
    expect(canceled.message).toMatch(/16:00 отменена\./);
    expect(yc.records.filter((r) => r.deleted)).toHaveLength(1);

    // The 2 h reminder of Мария's visit (Олег's is not due yet).
    // With it Ирина's reminder of her new time (its 24 h mark has passed since she moved it).
    await remindersSent(ms('11:00') - 2 * HOUR + MINUTE, 2);
    expect(last(MARIA).message).toMatch(/^Напоминаем о вашей записи: .*11:00\./);
    expect(last(IRINA).message).toMatch(/^Напоминаем о вашей записи: .*15:00\./);

    // The salon marks the visits in YCLIENTS: Мария and Олег came.
    yc.setAttendance(recordOf('11:00').id, 1);
    yc.setAttendance(recordOf('12:00').id, 1);
    // Right after Мария's visit nothing yet: the request waits two hours after its end.
    await afterVisit(ms('12:30'), 0);
    const reads = await app.sql<{ attendance: number | null }>('select attendance from appointments where agent_id = $1 and status = $2 order by starts_at', [
      agentId,
      'booked',
    ]);
    expect(reads.map((r) => r.attendance)).toEqual([1, 1, null]);
    await afterVisit(ms('14:00') + MINUTE, 1);
    const request = last(MARIA);
    expect(request.message).toMatch(/^Как прошёл визит \d+ [а-я]+, 11:00\? Стрижка, Анна\.\n/);
    expect(labels(request)).toEqual(['1', '2', '3', '4', '5']);
    expect(buttonsOf(request).every((b) => b.action.type === 'callback')).toBe(true);

    // Мария taps 2: the owner hears at once in Telegram, with the score, the client, the visit and the dialogue.
    const apology = await press(MARIA, request, '2');
    expect(apology.message).toMatch(/^Нам очень жаль, что визит вас огорчил\./);
    expect(apology.message).toContain('администратору салона — он свяжется с вами');
    const notice = await waitFor(() => telegram.sent.find((m) => m.chatId === OPERATOR.id && m.text.includes('низкая оценка визита')), 5000, 'the owner notice');
    expect(notice.text).toContain('Нужен оператор');
    expect(notice.text).toMatch(/низкая оценка визита: 2 из 5 \(Стрижка, Анна, \d+ [а-я]+, 11:00\)\. Клиент: Мария\. Диалог: /);
    expect(notice.text).toContain('Телефон клиента: 79161112233');
    const [maria] = await app.sql<{ id: string; mode: string }>('select id, mode from dialogues where agent_id = $1 and peer_id = $2', [agentId, String(MARIA)]);
    expect(notice.text).toContain(`/app/agents/${agentId}/dialogues/${maria!.id}`);
    expect(maria!.mode).toBe('operator');
    expect(await app.sql('select score from visit_reviews where dialogue_id = $1', [maria!.id])).toEqual([{ score: 2 }]);

    // Олег's request an hour later; he asks a question first, the model answers, then he taps 5.
    await afterVisit(ms('15:00') + MINUTE, 1);
    const olegRequest = last(OLEG);
    expect(olegRequest.message).toMatch(/^Как прошёл визит \d+ [а-я]+, 12:00\?/);
    host.sequence(model, [{ text: 'Да, парковка во дворе, бесплатно.' }]);
    const answer = (await sendAndWait(agentId, messageNew('А парковка у вас есть?', { peerId: OLEG }), 1, OLEG)).at(-1)!;
    expect(answer.message).toBe('Да, парковка во дворе, бесплатно.');
    const thanks = await press(OLEG, olegRequest, '5');
    expect(thanks.message).toMatch(/^Спасибо за оценку!/);
    expect(thanks.message).toContain('оставьте, пожалуйста, отзыв');
    expect(buttonsOf(thanks).map((b) => ({ ...b.action, payload: undefined }))).toEqual([
      { type: 'open_link', label: 'Оставить отзыв', link: REVIEW_URL, payload: undefined },
    ] as never);
    // A second tap keeps the first score and says so.
    const again = await press(OLEG, olegRequest, '4');
    expect(again.message).toBe('Спасибо, вашу оценку этого визита (5 из 5) мы уже получили.');
    expect((await app.sql<{ score: number }>('select score from visit_reviews where agent_id = $1 order by created_at', [agentId])).map((r) => r.score)).toEqual([
      2, 5,
    ]);
    expect(telegram.sent.filter((m) => m.text.includes('низкая оценка визита'))).toHaveLength(1);

    // Ирина did not come (attendance -1): nothing while «мы вас ждали» is off, the message once it is on.
    yc.setAttendance(recordOf('15:00').id, -1);
    await afterVisit(ms('15:30'), 0);
    const [irinaRow] = await app.sql<{ attendance: number }>('select attendance from appointments where agent_id = $1 and datetime = $2', [agentId, at('15:00')]);
    expect(irinaRow!.attendance).toBe(-1);
    expect((await put(`/api/v1/booking/${agentId}/settings`, { ...bookingSettings, noShowMessage: true })).status).toBe(200);
    await afterVisit(ms('15:45'), 1);
    const waited = last(IRINA);
    expect(waited.message).toMatch(/^Мы вас ждали \d+ [а-я]+, 15:00 \(Стрижка, Анна\), но не дождались\./);
    expect(labels(waited)).toEqual(['Выбрать другое время']);
    expect(payloadOf(waited, 'Выбрать другое время')).toEqual({ action: 'pick_service', s: 'anna', v: 'haircut' });
    await afterVisit(ms('16:30'), 0);

    // The owner talks to Мария and gives the dialogue back; 30 days on, «записаться снова».
    const path = `/api/v1/agents/${agentId}/dialogues/${maria!.id}`;
    expect(
      (
        await call(app.url, 'POST', `${path}/messages`, {
          token: owner.token,
          body: { text: 'Мария, простите нас! Следующая стрижка — в подарок.', clientMessageId: 'sorry-maria' },
        })
      ).status,
    ).toBe(201);
    expect((await call(app.url, 'POST', `${path}/release`, { token: owner.token, body: {} })).status).toBe(200);
    await waitFor(() => to(MARIA).some((m) => m.message.startsWith('Сотрудник завершил разговор')), 5000, 'the release notice');
    await afterVisit(ms('11:00') + 30 * 24 * HOUR - MINUTE, 0);
    // Мария's and Олег's both fall due now.
    await afterVisit(ms('12:00') + 30 * 24 * HOUR + MINUTE, 2);
    const nudge = last(MARIA);
    expect(nudge.message).toMatch(/^Здравствуйте! В прошлый раз вы были у нас \d+ [а-я]+, 11:00: Стрижка, Анна\.\nПора записаться снова\?/);
    expect(labels(nudge)).toEqual(['Записаться снова']);
    const offer = await press(MARIA, nudge, 'Записаться снова');
    const slots = buttonsOf(offer).map((b) => JSON.parse(b.action.payload) as Record<string, unknown>);
    expect(slots.filter((p) => p.action === 'pick_slot').length).toBeGreaterThan(0);
    expect(slots.filter((p) => p.action === 'pick_slot').every((p) => p.s === 'anna' && p.v === 'haircut')).toBe(true);
    await afterVisit(ms('12:00') + 31 * 24 * HOUR, 0);

    // What Мария received, in order, from the first reminder to the times offered.
    const received = to(MARIA)
      .slice(marksFrom[MARIA])
      .map((m) => m.message.split('\n')[0] ?? '');
    expect(received.map((line) => line.replace(/\d+ [а-я]+, /, 'D, '))).toEqual([
      'Напоминаем о вашей записи: D, 11:00.',
      'Спасибо! Визит D, 11:00 подтверждён — ждём вас.',
      'Напоминаем о вашей записи: D, 11:00.',
      'Как прошёл визит D, 11:00? Стрижка, Анна.',
      'Нам очень жаль, что визит вас огорчил. Спасибо, что сказали честно.',
      'Мария, простите нас! Следующая стрижка — в подарок.',
      String(received[6]),
      'Здравствуйте! В прошлый раз вы были у нас D, 11:00: Стрижка, Анна.',
      String(received[8]),
    ]);
    expect(received[6]).toMatch(/^Сотрудник завершил разговор/);
    expect(received[8]).toMatch(/время/);
    const rows = await app.sql<{ kind: string; outcome: string }>(
      'select f.kind, f.outcome from visit_followups f join appointments a on a.id = f.appointment_id where a.agent_id = $1 order by f.created_at',
      [agentId],
    );
    expect(rows).toEqual([
      { kind: 'review', outcome: 'sent' },
      { kind: 'review', outcome: 'sent' },
      { kind: 'no_show', outcome: 'sent' },
      { kind: 'rebook', outcome: 'sent' },
      { kind: 'rebook', outcome: 'sent' },
    ]);
  });
});
