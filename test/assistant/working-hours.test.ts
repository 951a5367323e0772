// Working hours (issue 42 point 5): outside them a handed-over client is told when a person answers, the
// owner is not woken — the Telegram notice goes without a sound, no mail goes at once — and ONE morning
// message (Telegram, else mail) lists the clients who waited; a hand-over's timeout does not count the night;
// an unpaid order's reminder falling due at night waits for the morning. Through the VK callback, the
// scripted model, fake Telegram and SMTP; the jobs are run with an injected clock.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { workingMsBetween } from '../../src/agents';
import { startScriptedModelHost, type ScriptedModelHost } from '../fakes/scripted-model';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { startFakeVk, type FakeVk } from '../fakes/vk';
import { call, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { BOT_TOKEN, freePort, messengerEnv, OPERATOR, seedTelegram, waitFor } from '../helpers/messenger';
import { CLIENT, CODE, createSocialDriver, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(30_000);

const ASK_PHONE =
  'Передаю ваш вопрос сотруднику. Если удобно, напишите номер телефона, чтобы с вами могли связаться, — или нажмите «Пропустить», и сотрудник ответит здесь.';
const CLOSED = 'Спасибо! Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.';
const ACK_CLOSED = 'Ваш вопрос уже у сотрудника. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.';
const ESCALATED = 'Спасибо! Я передал ваш вопрос сотруднику, он скоро ответит здесь же.';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let vk: FakeVk;
let telegram: FakeTelegram;
let host: ScriptedModelHost;
let smtp: FakeSmtp;
let app: TestApp;

beforeAll(async () => {
  [vk, telegram, host, smtp] = await Promise.all([startFakeVk(), startFakeTelegram(), startScriptedModelHost(), startFakeSmtp()]);
  app = await startTestApp({
    env: { ...messengerEnv(telegram, freePort()), VK_API_BASE_URL: vk.url, UPSTREAM_BASE_URL: host.url, SMTP_URL: smtp.url, ASSISTANT_DEBOUNCE_MS: '0' },
  });
});
afterAll(async () => {
  await app?.close();
  await Promise.all([vk?.close(), telegram?.close(), host?.close(), smtp?.close()]);
});
beforeEach(() => {
  vk.reset();
  vk.addGroup({ id: GROUP, name: 'Салон «Лён»', token: TOKEN, confirmationCode: CODE });
  telegram.reset();
  seedTelegram(telegram);
});

const driver = createSocialDriver(
  () => app,
  () => vk,
);
const { messageNew, sendAndWait } = driver;

let models = 0;

/** Working hours that make today (UTC) a day off: only tomorrow, 10:00–19:00 UTC. */
function tomorrowOnly() {
  const tomorrow = (new Date().getUTCDay() + 1) % 7 || 7;
  return { days: [tomorrow], from: '10:00', to: '19:00', timeZone: 'UTC' };
}

/** Tomorrow's 10:00 UTC: when tomorrowOnly()'s working day starts. */
function tomorrowOpening(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 10, 0);
}

/** Every day 09:00–18:00 in a zone where it is about noon now: within hours whenever the test runs. */
function openNow() {
  const offset = 12 - new Date().getUTCHours(); // −11 … +12
  const timeZone = offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
  return { days: [1, 2, 3, 4, 5, 6, 7], from: '09:00', to: '18:00', timeZone };
}

async function salon(options: { type?: 'creator' | 'ecommerce'; messenger?: boolean; hours: unknown; model?: string }) {
  const owner = await registerUser(app.url);
  const model = options.model ?? `hours/m${++models}`;
  const created = await call(app.url, 'POST', '/api/agents', {
    token: owner.token,
    body: { name: 'Салон «Лён»', type: options.type ?? 'creator', model, systemPrompt: 'Ты — администратор салона.' },
  });
  expect(created.status).toBe(201);
  const agentId = created.body.id as string;
  const saved = await call(app.url, 'PUT', `/api/v1/social/${agentId}/settings`, {
    token: owner.token,
    body: { groupId: String(GROUP), accessToken: TOKEN, secretKey: SECRET, confirmationCode: CODE },
  });
  expect(saved.status).toBe(200);
  if (options.messenger) {
    const res = await call(app.url, 'PUT', `/api/v1/messenger/${agentId}/settings`, { token: owner.token, body: { botToken: BOT_TOKEN, userId: OPERATOR.id } });
    expect(res.status).toBe(200);
  }
  const set = await call(app.url, 'PATCH', `/api/agents/${agentId}`, { token: owner.token, body: { workingHours: options.hours } });
  expect(set.status).toBe(200);
  return { owner, agentId, model };
}

/** The bot's sendMessage calls to the owner's chat that carry `text`. */
const toOwner = (text: string) => telegram.calls.filter((c) => c.method === 'sendMessage' && c.body.chat_id === OPERATOR.id && String(c.body.text).includes(text));
const morning = (at: number) => app.instance.services.messenger.morning.sendDue(new Date(at));
const settle = () => new Promise((r) => setTimeout(r, 300));

describe('escalations outside working hours queue for the morning', () => {
  test('two clients at night: each told «завтра с 10:00», the owner’s notices silent; at 10:00 one morning summary lists both; no second one', async () => {
    const s = await salon({ messenger: true, hours: tomorrowOnly() });
    const second = CLIENT + 7;
    // The first asks for a person by word, gives a phone; the second is handed over by the model's tool.
    host.script(s.model, (_body, index) =>
      index === 0 ? { toolCalls: [{ name: 'escalate_to_human', arguments: { reason: 'хочет вернуть деньги' } }] } : { text: 'ok' },
    );
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79990001122')`, [s.agentId, String(second)]);

    expect((await sendAndWait(s.agentId, messageNew('Позовите оператора')))[0]!.message).toBe(ASK_PHONE);
    expect((await sendAndWait(s.agentId, messageNew('+7 916 123-45-67')))[0]!.message).toBe(CLOSED);
    expect((await sendAndWait(s.agentId, messageNew('Хочу вернуть деньги за окрашивание', { peerId: second }), 1, second))[0]!.message).toBe(CLOSED);
    // Writing while waiting: told the same time once.
    expect((await sendAndWait(s.agentId, messageNew('Ну что там?')))[0]!.message).toBe(ACK_CLOSED);

    // The owner's Telegram got both notices, without a sound, each saying why.
    await waitFor(() => toOwner('Нужен оператор').length === 2, 5000, 'the two silent notices');
    for (const notice of toOwner('Нужен оператор')) {
      expect(notice.body.disable_notification).toBe(true);
      expect(String(notice.body.text)).toContain('Пришло в нерабочее время, поэтому без звука');
    }
    // The replies to those notices still reach the client: the announcements are recorded as always.
    await waitFor(async () => (await app.sql('select 1 from escalation_messages where agent_id = $1', [s.agentId])).length === 2, 5000, 'the recorded notices');

    // Before the working day starts nothing more; at its start ONE summary, two passes at once or not.
    const opening = tomorrowOpening();
    expect(await morning(opening - MINUTE)).toEqual({ summaries: 0, listed: 0 });
    const passes = await Promise.all([morning(opening + MINUTE), morning(opening + MINUTE)]);
    expect(passes.reduce((n, p) => n + p.summaries, 0)).toBe(1);
    const [summary] = await waitFor(() => (toOwner('Доброе утро').length > 0 ? toOwner('Доброе утро') : undefined), 5000, 'the morning summary');
    const text = String(summary!.body.text);
    expect(summary!.body.disable_notification).toBeUndefined();
    expect(text).toContain('2 клиента ждут ответа сотрудника — «Салон «Лён»»');
    expect(text).toContain('1. Телефон: 79161234567 · ждёт ');
    expect(text).toContain('«Позовите оператора»');
    expect(text).toContain('2. Телефон: 79990001122 · ждёт ');
    expect(text).toContain('«Хочу вернуть деньги за окрашивание»');
    const dialogues = await app.sql<{ id: string; peer_id: string }>('select id, peer_id from dialogues where agent_id = $1 order by peer_id', [s.agentId]);
    for (const d of dialogues) expect(text).toContain(`/app/agents/${s.agentId}/dialogues/${d.id}`);
    expect(text).toMatch(/ждёт (1[0-9]|[2-3][0-9]) ч/);

    // A later pass, and the next day's: nothing more.
    expect(await morning(opening + 5 * MINUTE)).toEqual({ summaries: 0, listed: 0 });
    expect(await morning(opening + 25 * HOUR)).toEqual({ summaries: 0, listed: 0 });
    await settle();
    expect(toOwner('Доброе утро')).toHaveLength(1);
    expect(await app.sql('select listed from morning_summaries where agent_id = $1', [s.agentId])).toEqual([{ listed: 2 }]);
    const notes = await app.sql<{ kind: string }>("select kind from notifications where agent_id = $1 and kind = 'morning'", [s.agentId]);
    expect(notes).toHaveLength(1);

    // The dashboard's inbox pins both on top, the longest wait first.
    const inbox = await call(app.url, 'GET', `/api/v1/dialogues?agentId=${s.agentId}`, { token: s.owner.token });
    expect(inbox.status).toBe(200);
    expect((inbox.body.waiting as { id: string }[]).map((d) => d.id)).toEqual([
      dialogues.find((d) => d.peer_id === String(CLIENT))!.id,
      dialogues.find((d) => d.peer_id === String(second))!.id,
    ]);
  });

  test('a client a person answered or gave back in the night is not listed; with nobody left waiting no summary goes', async () => {
    const s = await salon({ messenger: true, hours: tomorrowOnly() });
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79990001122')`, [s.agentId, String(CLIENT)]);
    expect((await sendAndWait(s.agentId, messageNew('оператор')))[0]!.message).toBe(CLOSED);
    const [dialogue] = await app.sql<{ id: string }>('select id from dialogues where agent_id = $1', [s.agentId]);
    const release = await call(app.url, 'POST', `/api/v1/agents/${s.agentId}/dialogues/${dialogue!.id}/release`, { token: s.owner.token });
    expect(release.status).toBe(200);
    expect(await morning(tomorrowOpening() + MINUTE)).toEqual({ summaries: 0, listed: 0 });
    await settle();
    expect(toOwner('Доброе утро')).toHaveLength(0);
    expect(await app.sql('select listed from morning_summaries where agent_id = $1', [s.agentId])).toEqual([{ listed: 0 }]);
  });

  test('without a Telegram bot: no mail at night, one morning mail listing the client', async () => {
    const s = await salon({ hours: tomorrowOnly() });
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79990001122')`, [s.agentId, String(CLIENT)]);
    expect((await sendAndWait(s.agentId, messageNew('Позовите оператора, хочу перенести запись')))[0]!.message).toBe(CLOSED);
    await settle();
    expect(smtp.messages.filter((m) => m.to.includes(s.owner.email))).toHaveLength(0);

    expect(await morning(tomorrowOpening() + MINUTE)).toEqual({ summaries: 1, listed: 1 });
    const mail = await smtp.waitFor(s.owner.email);
    expect(mail.subject).toBe('Утром ответа ждут 1 клиент — «Салон «Лён»»');
    expect(mail.text).toContain('1 клиент ждёт ответа сотрудника');
    expect(mail.text).toContain('79990001122');
    expect(mail.text).toContain('«Позовите оператора, хочу перенести запись»');
    expect(mail.text).toContain(`/app/agents/${s.agentId}/dialogues`);
    expect(await morning(tomorrowOpening() + 2 * MINUTE)).toEqual({ summaries: 0, listed: 0 });
    await settle();
    expect(smtp.messages.filter((m) => m.to.includes(s.owner.email))).toHaveLength(1);
  });

  test('within working hours the notice is immediate and loud, and no morning summary follows', async () => {
    const s = await salon({ messenger: true, hours: openNow() });
    await app.sql(`insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79990001122')`, [s.agentId, String(CLIENT)]);
    expect((await sendAndWait(s.agentId, messageNew('оператор')))[0]!.message).toBe(ESCALATED);
    const [notice] = await waitFor(() => (toOwner('Нужен оператор').length > 0 ? toOwner('Нужен оператор') : undefined), 5000, 'the notice');
    expect(notice!.body.disable_notification).toBeUndefined();
    expect(String(notice!.body.text)).not.toContain('без звука');
    expect(await app.sql('select quiet_until from escalations where agent_id = $1', [s.agentId])).toEqual([{ quiet_until: null }]);
    await morning(Date.now() + 25 * HOUR);
    await settle();
    expect(toOwner('Доброе утро')).toHaveLength(0);
  });

  test('the model failing outside working hours hands the client over with the time a person answers', async () => {
    const s = await salon({ messenger: true, hours: tomorrowOnly() });
    host.script(s.model, () => ({ status: 502, message: 'bad gateway' }));
    const [handed] = await sendAndWait(s.agentId, messageNew('Сколько стоит стрижка?'));
    expect(handed!.message).toBe(
      'Извините, я не смог ответить прямо сейчас. Я передал ваш вопрос сотруднику. Сейчас нерабочее время — он ответит здесь же завтра с 10:00.',
    );
    const [notice] = await waitFor(() => (toOwner('Нужен оператор').length > 0 ? toOwner('Нужен оператор') : undefined), 5000, 'the notice');
    expect(notice!.body.disable_notification).toBe(true);
  });
});

describe('a hand-over’s timeout counts working time only', () => {
  const hours = { days: [1, 2, 3, 4, 5], from: '10:00', to: '19:00', timeZone: 'Europe/Moscow' };
  // Friday 27 November 2026, 18:50 in Moscow (15:50 UTC).
  const friday = new Date('2026-11-27T15:50:00Z');

  test('ten minutes before closing, then the weekend: at Monday 10:20 thirty minutes have passed, not three days; Monday’s whole day counts', () => {
    expect(workingMsBetween(hours, friday, new Date('2026-11-27T16:00:00Z'), 'UTC')).toBe(10 * MINUTE);
    expect(workingMsBetween(hours, friday, new Date('2026-11-28T09:00:00Z'), 'UTC')).toBe(10 * MINUTE);
    expect(workingMsBetween(hours, friday, new Date('2026-11-30T07:20:00Z'), 'UTC')).toBe(30 * MINUTE);
    expect(workingMsBetween(hours, friday, new Date('2026-12-01T07:00:00Z'), 'UTC')).toBe(10 * MINUTE + 9 * HOUR);
    // No working hours: every minute counts.
    expect(workingMsBetween(null, friday, new Date('2026-11-28T15:50:00Z'), 'UTC')).toBe(24 * HOUR);
  });
});

describe('the unpaid-order reminder never goes at night', () => {
  test('due outside the shop’s working hours it waits for the morning, then goes once', async () => {
    const s = await salon({ type: 'ecommerce', hours: tomorrowOnly() });
    const base = `/api/v1/commerce/${s.agentId}`;
    expect(
      (await call(app.url, 'PUT', `${base}/settings`, { token: s.owner.token, body: { paymentLinkTemplate: 'https://pay.example.ru/{orderNumber}' } })).status,
    ).toBe(200);
    // An order as the shop's check-out leaves it: pending, placed from the client's dialogue.
    const [dialogue] = await app.sql<{ id: string }>(
      `insert into dialogues (agent_id, channel, peer_id, client_phone) values ($1, 'social', $2, '79161234567') returning id`,
      [s.agentId, String(CLIENT)],
    );
    const link = `https://pay.example.ru/ORD-night-${s.agentId.slice(0, 8)}`;
    await app.sql(
      `insert into orders (agent_id, dialogue_id, number, items, total_minor, currency, client_phone, payment_link)
       values ($1, $2, 'ORD-20261128-0001', '[{"productId":"p","title":"Платье","priceMinor":150000,"quantity":1}]'::jsonb, 150000, 'RUB', '79161234567', $3)`,
      [s.agentId, dialogue!.id, link],
    );
    const reminders = () => vk.sentMessages.filter((m) => m.peerId === CLIENT && m.message.includes(link));
    const run = (at: number) => app.instance.services.commerce.reminders.runOnce(new Date(at));

    // Two hours on (the default), in the night before the working day: nothing goes, nothing is claimed.
    expect((await run(Date.now() + 2 * HOUR + MINUTE)).reminded).toBe(0);
    expect((await run(tomorrowOpening() - MINUTE)).reminded).toBe(0);
    await settle();
    expect(reminders()).toHaveLength(0);
    // The working day starts: it goes, once.
    expect((await run(tomorrowOpening() + MINUTE)).reminded).toBe(1);
    await waitFor(() => reminders().length === 1, 5000, 'the morning reminder');
    expect(reminders()[0]!.message).toContain('Напоминаем: заказ ORD-20261128-0001');
    expect((await run(tomorrowOpening() + HOUR)).reminded).toBe(0);
  });
});
