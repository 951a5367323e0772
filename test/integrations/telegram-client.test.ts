import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import {
  canPostMessages,
  createTelegramClient,
  isValidBotTokenFormat,
  TelegramApiError,
  TelegramNetworkError,
  type ChatMember,
  type TelegramClient,
} from '../../src/integrations/messenger/client';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';

const TOKEN = '7012345678:AAH4bT-k3eXampleToken_9zQwErTyUiOpAs';
const BOT = { id: 7012345678, username: 'salon_helper_bot', first_name: 'Salon Helper' };
const CHANNEL = -1002233445566;
const ANNA = 40911233;

let fake: FakeTelegram;
let client: TelegramClient;

beforeAll(async () => {
  fake = await startFakeTelegram();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
  fake.addBot(TOKEN, BOT);
  fake.settings.webhookRequiresHttps = false;
  client = createTelegramClient({ baseUrl: fake.url, token: TOKEN, timeoutMs: 2000 });
});

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

/** Every place an error could leak the token: message, stack, own properties, JSON. */
function expectNoToken(err: Error, token = TOKEN) {
  const secret = token.slice(token.indexOf(':') + 1);
  const dump = [err.message, err.stack ?? '', JSON.stringify(err), String(err), JSON.stringify(Object.entries(err))].join('\n');
  expect(dump).not.toContain(token);
  expect(dump).not.toContain(secret);
  expect(dump).not.toContain(encodeURIComponent(token));
  expect((err as Error & { cause?: unknown }).cause).toBeUndefined();
}

describe('Telegram client against the fake Bot API', () => {
  test('getMe returns the bot, via POST /bot<token>/getMe with a JSON body', async () => {
    const me = await client.getMe();
    expect(me).toMatchObject({ id: BOT.id, is_bot: true, username: 'salon_helper_bot', first_name: 'Salon Helper' });
    expect(fake.calls).toEqual([{ token: TOKEN, method: 'getMe', body: {}, httpMethod: 'POST', contentType: 'application/json' }]);
  });

  test('a trailing slash in the base URL is tolerated', async () => {
    const slashed = createTelegramClient({ baseUrl: `${fake.url}/`, token: TOKEN });
    expect((await slashed.getMe()).id).toBe(BOT.id);
  });

  test('a wrong token gives TelegramApiError 401 "Unauthorized" without the token in the message', async () => {
    const wrong = '7012345678:AAwrongwrongwrongwrongwrongwrongwro';
    const other = createTelegramClient({ baseUrl: fake.url, token: wrong });
    const err = await rejection(other.getMe());
    expect(err).toBeInstanceOf(TelegramApiError);
    const apiErr = err as TelegramApiError;
    expect(apiErr.errorCode).toBe(401);
    expect(apiErr.description).toBe('Unauthorized');
    expect(apiErr.method).toBe('getMe');
    expect(apiErr.retryable).toBe(false);
    expect(apiErr.message).toBe('Telegram getMe failed: 401 Unauthorized');
    expectNoToken(apiErr, wrong);
  });

  test('429 flood control: retryAfter comes from parameters.retry_after', async () => {
    fake.failNext('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 17', retry_after: 17 });
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    const err = await rejection(client.sendMessage({ chat_id: ANNA, text: 'Новая запись' }));
    expect(err).toBeInstanceOf(TelegramApiError);
    const apiErr = err as TelegramApiError;
    expect(apiErr.errorCode).toBe(429);
    expect(apiErr.retryAfter).toBe(17);
    expect(apiErr.retryable).toBe(true);
    expect(apiErr.migrateToChatId).toBeNull();
    // Only the next call was throttled.
    expect((await client.sendMessage({ chat_id: ANNA, text: 'Новая запись' })).text).toBe('Новая запись');
  });

  test('a 429 without parameters falls back to the Retry-After header', async () => {
    const fetchWithHeaderOnly = async () =>
      new Response(JSON.stringify({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 5' }), {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '5' },
      });
    const c = createTelegramClient({ baseUrl: 'http://telegram.invalid', token: TOKEN, fetch: fetchWithHeaderOnly });
    const err = (await rejection(c.getMe())) as TelegramApiError;
    expect(err.retryAfter).toBe(5);
  });

  test('a group upgraded to a supergroup reports migrateToChatId', async () => {
    fake.failNext('sendmessage', {
      error_code: 400,
      description: 'Bad Request: group chat was upgraded to a supergroup chat',
      migrate_to_chat_id: -1001234567890,
    });
    const err = (await rejection(client.sendMessage({ chat_id: -4001, text: 'x' }))) as TelegramApiError;
    expect(err.errorCode).toBe(400);
    expect(err.migrateToChatId).toBe(-1001234567890);
    expect(err.retryAfter).toBeNull();
  });

  test('a chat the fake marks migrated answers like Telegram: 400 with migrate_to_chat_id; the supergroup takes messages', async () => {
    fake.addChat({ id: -4001234567, type: 'group', title: 'Операторы' });
    fake.migrateChat(-4001234567, -1004001234567);
    const err = (await rejection(client.sendMessage({ chat_id: -4001234567, text: 'Новая запись' }))) as TelegramApiError;
    expect(err.errorCode).toBe(400);
    expect(err.description).toBe('Bad Request: group chat was upgraded to a supergroup chat');
    expect(err.migrateToChatId).toBe(-1004001234567);
    const sent = await client.sendMessage({ chat_id: -1004001234567, text: 'Новая запись' });
    expect(sent.chat).toMatchObject({ id: -1004001234567, type: 'supergroup', title: 'Операторы' });
  });

  test('editMessageText replaces a sent message; an unknown one or the same text is 400, as Telegram answers', async () => {
    fake.addChat({ id: -4009876543, type: 'group', title: 'Операторы' });
    const sent = await client.sendMessage({ chat_id: -4009876543, text: 'Нужен оператор' });
    const edited = await client.editMessageText({ chat_id: -4009876543, message_id: sent.message_id, text: 'Нужен оператор\n\nДиалог ведёт owner@example.com' });
    expect(edited).toMatchObject({ message_id: sent.message_id, text: 'Нужен оператор\n\nДиалог ведёт owner@example.com' });
    expect(fake.edited).toEqual([{ token: TOKEN, chatId: -4009876543, messageId: sent.message_id, text: edited.text! }]);
    const same = (await rejection(client.editMessageText({ chat_id: -4009876543, message_id: sent.message_id, text: edited.text! }))) as TelegramApiError;
    expect(same.errorCode).toBe(400);
    expect(same.description).toContain('message is not modified');
    const unknown = (await rejection(client.editMessageText({ chat_id: -4009876543, message_id: 999_999, text: 'x' }))) as TelegramApiError;
    expect(unknown.description).toBe('Bad Request: message to edit not found');
  });

  test('a closed server is a TelegramNetworkError that does not reveal the token', async () => {
    const temporary = await startFakeTelegram();
    const url = temporary.url;
    await temporary.close();
    const c = createTelegramClient({ baseUrl: url, token: TOKEN, timeoutMs: 2000 });
    const err = await rejection(c.getMe());
    expect(err).toBeInstanceOf(TelegramNetworkError);
    expect((err as TelegramNetworkError).timedOut).toBe(false);
    expect((err as TelegramNetworkError).method).toBe('getMe');
    expect(err.message).toStartWith('Telegram getMe could not be reached');
    expectNoToken(err);
  });

  test('a hang past the timeout is a TelegramNetworkError with timedOut', async () => {
    fake.hangNext('getMe');
    // The fake never answers: only the client's own timeout ends this call.
    const c = createTelegramClient({ baseUrl: fake.url, token: TOKEN, timeoutMs: 150 });
    const err = await rejection(c.getMe());
    expect(err).toBeInstanceOf(TelegramNetworkError);
    expect((err as TelegramNetworkError).timedOut).toBe(true);
    expect(err.message).toBe('Telegram getMe did not answer within 150 ms');
    expectNoToken(err);
  });

  test('a transport error quoting the URL is scrubbed', async () => {
    const leaky = async (input: string) => {
      throw new TypeError(`fetch failed for ${input} (${encodeURIComponent(input)})`);
    };
    const c = createTelegramClient({ baseUrl: 'https://api.telegram.org', token: TOKEN, fetch: leaky });
    const err = await rejection(c.getMe());
    expect(err).toBeInstanceOf(TelegramNetworkError);
    expect(err.message).toContain('[redacted]');
    expectNoToken(err);
  });

  test('an error description echoing the token is scrubbed', async () => {
    fake.failNext('getMe', { error_code: 400, description: `Bad Request: odd token ${TOKEN}` });
    const err = (await rejection(client.getMe())) as TelegramApiError;
    expect(err.description).toBe('Bad Request: odd token [redacted]');
    expectNoToken(err);
  });

  test('Telegram down behind its proxy (HTML 502) is a retryable TelegramApiError', async () => {
    fake.down = true;
    const err = (await rejection(client.getMe())) as TelegramApiError;
    expect(err).toBeInstanceOf(TelegramApiError);
    expect(err.errorCode).toBe(502);
    expect(err.retryable).toBe(true);
    expectNoToken(err);
    fake.down = false;
    expect((await client.getMe()).id).toBe(BOT.id);
  });

  test('an unknown method is 404 Not Found', async () => {
    const err = (await rejection(client.call('getNothing'))) as TelegramApiError;
    expect(err.errorCode).toBe(404);
    expect(err.description).toBe('Not Found');
  });
});

describe('getChatMember', () => {
  test('administrator with can_post_messages in a channel may post; without it may not', async () => {
    fake.setChatMember(CHANNEL, BOT.id, { status: 'administrator', can_post_messages: true });
    const admin = await client.getChatMember(CHANNEL, BOT.id);
    expect(admin.status).toBe('administrator');
    expect(admin.user.id).toBe(BOT.id);
    expect(canPostMessages(admin)).toBe(true);
    expect(fake.calls.at(-1)!.body).toEqual({ chat_id: CHANNEL, user_id: BOT.id });

    fake.setChatMember(CHANNEL, BOT.id, { status: 'administrator' });
    const limited = await client.getChatMember(CHANNEL, BOT.id);
    expect(limited).toMatchObject({ status: 'administrator', can_post_messages: false, can_manage_chat: true });
    expect(canPostMessages(limited)).toBe(false);
  });

  test('statuses decide whether the bot may post', () => {
    const user = { id: BOT.id, is_bot: true, first_name: 'x' };
    const cases: [ChatMember, boolean][] = [
      [{ status: 'creator', user, is_anonymous: false }, true],
      [{ status: 'member', user }, false],
      [{ status: 'left', user }, false],
      [{ status: 'kicked', user, until_date: 0 }, false],
    ];
    for (const [member, expected] of cases) expect(canPostMessages(member)).toBe(expected);
  });

  test('a channel by @username; an unknown chat is 400 "chat not found"', async () => {
    fake.addChat({ id: CHANNEL, type: 'channel', title: 'Салон «Лён» — записи', username: 'salon_len_news' });
    fake.setChatMember(CHANNEL, BOT.id, { status: 'creator' });
    expect((await client.getChatMember('@salon_len_news', BOT.id)).status).toBe('creator');

    const err = (await rejection(client.getChatMember('@nobody_here', BOT.id))) as TelegramApiError;
    expect(err.errorCode).toBe(400);
    expect(err.description).toBe('Bad Request: chat not found');
  });

  test('a bot the chat does not know, and a member list the bot may not read, fail like Telegram', async () => {
    fake.setChatMember(CHANNEL, BOT.id, 'not_found');
    const notFound = (await rejection(client.getChatMember(CHANNEL, BOT.id))) as TelegramApiError;
    expect(notFound.description).toBe('Bad Request: user not found');

    fake.setChatMember(CHANNEL, BOT.id, 'inaccessible');
    const hidden = (await rejection(client.getChatMember(CHANNEL, BOT.id))) as TelegramApiError;
    expect(hidden.description).toBe('Bad Request: member list is inaccessible');
  });
});

describe('sendMessage', () => {
  test('returns the Message with increasing message_id and is recorded', async () => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    const first = await client.sendMessage({
      chat_id: ANNA,
      text: '<b>Новая запись</b>\nАнна, 1 декабря 10:00',
      parse_mode: 'HTML',
      reply_markup: { inline_keyboard: [[{ text: 'Подтвердить', callback_data: 'confirm:58112034' }]] },
    });
    expect(first).toMatchObject({
      chat: { id: ANNA, type: 'private', first_name: 'Анна' },
      from: { id: BOT.id, is_bot: true },
      text: 'Новая запись\nАнна, 1 декабря 10:00',
      reply_markup: { inline_keyboard: [[{ text: 'Подтвердить', callback_data: 'confirm:58112034' }]] },
    });
    const second = await client.sendMessage({ chat_id: ANNA, text: 'ещё' });
    expect(second.message_id).toBe(first.message_id + 1);
    expect(fake.sent.map((m) => [m.chatId, m.parse_mode])).toEqual([
      [ANNA, 'HTML'],
      [ANNA, null],
    ]);
  });

  test('reply_to_message_id is sent as reply_parameters; the reply carries reply_to_message', async () => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    fake.rememberMessage({ message_id: 57, date: 1764572500, chat: { id: ANNA, type: 'private' }, text: '/start' });
    const reply = await client.sendMessage({ chat_id: ANNA, text: 'Здравствуйте!', reply_to_message_id: 57 });
    expect(fake.calls.at(-1)!.body).toEqual({ chat_id: ANNA, text: 'Здравствуйте!', reply_parameters: { message_id: 57 } });
    expect(reply.reply_to_message).toMatchObject({ message_id: 57, text: '/start' });

    const missing = (await rejection(client.sendMessage({ chat_id: ANNA, text: 'x', reply_parameters: { message_id: 9999 } }))) as TelegramApiError;
    expect(missing.description).toBe('Bad Request: message to be replied not found');
    const tolerated = await client.sendMessage({
      chat_id: ANNA,
      text: 'x',
      reply_parameters: { message_id: 9999, allow_sending_without_reply: true },
    });
    expect(tolerated.reply_to_message).toBeUndefined();
  });

  test('in a channel the message has sender_chat and no from; posting needs the right', async () => {
    fake.addChat({ id: CHANNEL, type: 'channel', title: 'Салон', username: 'salon_len_news' });
    const notMember = (await rejection(client.sendMessage({ chat_id: CHANNEL, text: 'x' }))) as TelegramApiError;
    expect([notMember.errorCode, notMember.description]).toEqual([403, 'Forbidden: bot is not a member of the channel chat']);

    fake.setChatMember(CHANNEL, BOT.id, { status: 'administrator' });
    const noRight = (await rejection(client.sendMessage({ chat_id: CHANNEL, text: 'x' }))) as TelegramApiError;
    expect([noRight.errorCode, noRight.description]).toEqual([400, 'Bad Request: need administrator rights in the channel chat']);

    fake.setChatMember(CHANNEL, BOT.id, { status: 'administrator', can_post_messages: true });
    const post = await client.sendMessage({ chat_id: '@salon_len_news', text: 'Расписание' });
    expect(post.chat).toMatchObject({ id: CHANNEL, type: 'channel' });
    expect(post.sender_chat).toMatchObject({ id: CHANNEL });
    expect(post.from).toBeUndefined();
  });

  test.each([
    ['an unknown chat', { chat_id: 777, text: 'x' }, 400, 'Bad Request: chat not found'],
    ['empty text', { chat_id: ANNA, text: '' }, 400, 'Bad Request: message text is empty'],
    ['text over 4096 characters', { chat_id: ANNA, text: 'я'.repeat(4097) }, 400, 'Bad Request: message is too long'],
    [
      'callback_data over 64 bytes',
      { chat_id: ANNA, text: 'x', reply_markup: { inline_keyboard: [[{ text: 'b', callback_data: 'ж'.repeat(33) }]] } },
      400,
      'Bad Request: BUTTON_DATA_INVALID',
    ],
  ])('%s is refused', async (_name, params, code, description) => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    const err = (await rejection(client.sendMessage(params))) as TelegramApiError;
    expect([err.errorCode, err.description]).toEqual([code, description]);
  });

  test('exactly 4096 characters and 64 bytes of callback_data are accepted', async () => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    await client.sendMessage({
      chat_id: ANNA,
      text: 'я'.repeat(4096),
      reply_markup: { inline_keyboard: [[{ text: 'b', callback_data: 'ж'.repeat(32) }]] },
    });
    expect(fake.sent).toHaveLength(1);
  });

  test('broken HTML is refused with "can\'t parse entities"', async () => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    for (const text of ['<b>bold', '<b>x</i>', '<script>x</script>', 'a </b>']) {
      const err = (await rejection(client.sendMessage({ chat_id: ANNA, text, parse_mode: 'HTML' }))) as TelegramApiError;
      expect(err.errorCode).toBe(400);
      expect(err.description).toStartWith("Bad Request: can't parse entities: ");
    }
    const fine = await client.sendMessage({ chat_id: ANNA, text: '1 &lt; 2 &amp; <i>ok</i>', parse_mode: 'HTML' });
    expect(fine.text).toBe('1 < 2 & ok');
  });

  test('users who blocked the bot or never started it give 403', async () => {
    fake.addChat({ id: 1, type: 'private', first_name: 'A', blocked: true });
    fake.addChat({ id: 2, type: 'private', first_name: 'B', started: false });
    const blocked = (await rejection(client.sendMessage({ chat_id: 1, text: 'x' }))) as TelegramApiError;
    expect([blocked.errorCode, blocked.description]).toEqual([403, 'Forbidden: bot was blocked by the user']);
    const silent = (await rejection(client.sendMessage({ chat_id: 2, text: 'x' }))) as TelegramApiError;
    expect([silent.errorCode, silent.description]).toEqual([403, "Forbidden: bot can't initiate conversation with a user"]);
  });
});

describe('webhooks', () => {
  test('setWebhook records url, secret_token and allowed_updates; deleteWebhook removes it', async () => {
    expect(
      await client.setWebhook({
        url: 'http://127.0.0.1:3000/api/v1/messenger/ag_1/webhook',
        secret_token: 'Zx9_secret-Token',
        allowed_updates: ['message', 'callback_query'],
        drop_pending_updates: true,
      }),
    ).toBe(true);
    expect(fake.webhook(TOKEN)).toEqual({
      url: 'http://127.0.0.1:3000/api/v1/messenger/ag_1/webhook',
      secret_token: 'Zx9_secret-Token',
      allowed_updates: ['message', 'callback_query'],
      max_connections: 40,
      pending_update_count: 0,
    });
    expect(await client.deleteWebhook()).toBe(true);
    expect(fake.webhook(TOKEN)).toBeNull();
  });

  test('like real Telegram, the fake refuses plain HTTP, odd ports and a bad secret_token', async () => {
    fake.settings.webhookRequiresHttps = true;
    const http = (await rejection(client.setWebhook({ url: 'http://bot.example.ru/hook', secret_token: 's' }))) as TelegramApiError;
    expect(http.description).toBe('Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
    const port = (await rejection(client.setWebhook({ url: 'https://bot.example.ru:3000/hook', secret_token: 's' }))) as TelegramApiError;
    expect(port.description).toBe('Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
    const secret = (await rejection(client.setWebhook({ url: 'https://bot.example.ru/hook', secret_token: 'a:b' }))) as TelegramApiError;
    expect(secret.description).toBe('Bad Request: secret token contains unallowed characters');
    expect(await client.setWebhook({ url: 'https://bot.example.ru:8443/hook', secret_token: 'ok' })).toBe(true);
  });
});

describe('the fake reads parameters like the real Bot API', () => {
  test('form-encoded body with JSON-typed fields, and a lower-case method name', async () => {
    fake.addChat({ id: ANNA, type: 'private', first_name: 'Анна' });
    const form = new URLSearchParams({
      chat_id: String(ANNA),
      text: 'из формы',
      reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'b', callback_data: 'menu' }]] }),
    });
    const res = await fetch(`${fake.url}/bot${TOKEN}/sendmessage`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; result: { text: string; chat: { id: number } } };
    expect(body.ok).toBe(true);
    expect(body.result.text).toBe('из формы');
    expect(body.result.chat.id).toBe(ANNA);
    expect(fake.calls.at(-1)).toMatchObject({
      method: 'sendMessage',
      body: { chat_id: String(ANNA), reply_markup: { inline_keyboard: [[{ text: 'b', callback_data: 'menu' }]] } },
    });
  });

  test('query-string GET, and error envelopes whose HTTP status equals error_code', async () => {
    const res = await fetch(`${fake.url}/bot${TOKEN}/getChat?chat_id=123`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ ok: false, error_code: 400, description: 'Bad Request: chat not found' });

    const malformed = await fetch(`${fake.url}/botnot-a-token/getMe`);
    expect(malformed.status).toBe(401);
    expect(((await malformed.json()) as { description: string }).description).toBe('Unauthorized: invalid token specified');

    const noBot = await fetch(`${fake.url}/getMe`);
    expect(noBot.status).toBe(404);
  });

  test('429 answers carry parameters.retry_after and Retry-After', async () => {
    fake.failNext('getMe', { error_code: 429, description: 'Too Many Requests: retry after 3', retry_after: 3 }, 2);
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${fake.url}/bot${TOKEN}/getMe`, { method: 'POST' });
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('3');
      expect(await res.json()).toEqual({
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 3',
        parameters: { retry_after: 3 },
      });
    }
    expect((await fetch(`${fake.url}/bot${TOKEN}/getMe`, { method: 'POST' })).status).toBe(200);
  });

  test('answerCallbackQuery: a known id once, an unknown or repeated id is "query is too old"', async () => {
    fake.addCallbackQuery('4382910057716239441');
    expect(await client.call('answerCallbackQuery', { callback_query_id: '4382910057716239441' })).toBe(true);
    const again = (await rejection(client.call('answerCallbackQuery', { callback_query_id: '4382910057716239441' }))) as TelegramApiError;
    expect(again.description).toBe('Bad Request: query is too old and response timeout expired or query ID is invalid');
    fake.settings.repeatCallbackAnswer = 'ok';
    expect(await client.call('answerCallbackQuery', { callback_query_id: '4382910057716239441' })).toBe(true);
  });
});

describe('isValidBotTokenFormat', () => {
  test.each([
    ['7012345678:AAH4bT-k3eXampleToken_9zQwErTyUiOpAs', true],
    ['110201543:AAHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw', true],
    ['123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', true],
    ['', false],
    ['7012345678', false],
    ['7012345678:', false],
    ['foo:AAH1bjqpKKW3maRSPAxzIU-0v6xNuq2-NjM', false],
    ['0123456:AAH1bjqpKKW3maRSPAxzIU-0v6xNuq2-NjM', false],
    ['7012345678:AAH4bT k3eXampleToken_9zQwErTyUiOpAs', false],
    ['7012345678:AAH4bT/k3eXampleToken_9zQwErTyUiOpAs', false],
    ['7012345678:short', false],
    [' 7012345678:AAH4bT-k3eXampleToken_9zQwErTyUiOpAs', false],
  ])('%p → %p', (token, expected) => {
    expect(isValidBotTokenFormat(token)).toBe(expected);
  });
});
