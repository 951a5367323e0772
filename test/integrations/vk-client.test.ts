import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { createVkClient, generateRandomId, isCommunityTokenFormat, VkApiError, VkNetworkError, type VkClient } from '../../src/integrations/social/client';
import { callbackButton, fitLabel, keyboard, KEYBOARD_LIMITS, removeKeyboard, textButton, VkKeyboardError } from '../../src/integrations/social/keyboards';
import { startFakeVk, type FakeVk } from '../fakes/vk';

const TOKEN = 'vk1.a.Qx7Lm2Np9Rt4Vw6Yz8Bc1Df3Gh5Jk7Lm9Np2Rt4Vw6Yz8Bc1Df3Gh5Jk7Lm9Np2Rt4_-Salon';
const GROUP = { id: 218800412, name: 'Салон «Лён»', screenName: 'salon_len', token: TOKEN, confirmationCode: '5d2c1e8a' };
const ANNA = 40911233;

let fake: FakeVk;
let client: VkClient;

beforeAll(async () => {
  fake = await startFakeVk();
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.reset();
  fake.addGroup(GROUP);
  client = createVkClient({ baseUrl: fake.url, accessToken: TOKEN, timeoutMs: 2000, retry: { delayMs: 5 } });
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
  const secret = token.slice('vk1.a.'.length);
  const dump = [err.message, err.stack ?? '', JSON.stringify(err), String(err), JSON.stringify(Object.entries(err))].join('\n');
  expect(dump).not.toContain(token);
  expect(dump).not.toContain(secret);
  expect(dump).not.toContain(encodeURIComponent(token));
  expect((err as Error & { cause?: unknown }).cause).toBeUndefined();
}

const menu = () =>
  keyboard(
    [
      [callbackButton('Записаться', { action: 'book' }, 'positive')],
      [callbackButton('Специалисты', { action: 'specialists' }), callbackButton('Помощь', { action: 'help' })],
    ],
    { inline: true },
  );

describe('VK client against the fake VK API', () => {
  test('groupsGetById returns the community, via POST form with access_token and v=5.199', async () => {
    const group = await client.groupsGetById(GROUP.id);
    expect(group).toMatchObject({ id: GROUP.id, name: 'Салон «Лён»', screen_name: 'salon_len' });

    expect(fake.calls).toHaveLength(1);
    const call = fake.calls[0]!;
    expect(call.method).toBe('groups.getById');
    expect(call.httpMethod).toBe('POST');
    expect(call.contentType).toContain('application/x-www-form-urlencoded');
    expect(call.params).toEqual({ group_id: String(GROUP.id), access_token: TOKEN, v: '5.199' });
  });

  test('groupsGetById also reads the bare-array shape of older API versions', async () => {
    fake.settings.getByIdShape = 'legacy';
    expect((await client.groupsGetById('salon_len'))?.name).toBe('Салон «Лён»');
  });

  test('a trailing slash in the base URL is tolerated', async () => {
    const slashed = createVkClient({ baseUrl: `${fake.url}/`, accessToken: TOKEN });
    expect((await slashed.groupsGetById(GROUP.id))?.id).toBe(GROUP.id);
  });

  test('a wrong token gives VkApiError 5 of kind "auth", and the token is nowhere in the error', async () => {
    const wrong = 'vk1.a.WrongWrongWrongWrongWrongWrongWrongWrongWrongWrongWrong_Token';
    const other = createVkClient({ baseUrl: fake.url, accessToken: wrong });
    const err = await rejection(other.groupsGetById(GROUP.id));
    expect(err).toBeInstanceOf(VkApiError);
    const apiErr = err as VkApiError;
    expect(apiErr.code).toBe(5);
    expect(apiErr.kind).toBe('auth');
    expect(apiErr.retryable).toBe(false);
    expect(apiErr.method).toBe('groups.getById');
    expect(apiErr.errorMsg).toBe('User authorization failed: invalid access_token (4).');
    expect(apiErr.message).toBe('VK groups.getById failed: 5 User authorization failed: invalid access_token (4).');
    expect(apiErr.requestParams).toContainEqual({ key: 'method', value: 'groups.getById' });
    expect(apiErr.requestParams).toContainEqual({ key: 'v', value: '5.199' });
    expectNoToken(apiErr, wrong);
  });

  test('an error text quoting the token is scrubbed before it reaches the error', async () => {
    fake.failNext('groups.getById', { error_code: 100, error_msg: `One of the parameters specified was missing or invalid: ${TOKEN}` });
    const err = (await rejection(client.groupsGetById(GROUP.id))) as VkApiError;
    expect(err.kind).toBe('invalid_request');
    expect(err.errorMsg).toContain('[redacted]');
    expectNoToken(err);
  });

  test('flood control and too-many-requests are retried after a short wait, then succeed', async () => {
    fake.failNext('messages.send', { error_code: 6, error_msg: 'Too many requests per second' });
    fake.failNext('messages.send', { error_code: 9, error_msg: 'Flood control' });
    const id = await client.messagesSend({ peerId: ANNA, message: 'Добрый день!', randomId: 77001 });
    expect(typeof id).toBe('number');
    expect(fake.calls.map((c) => c.method)).toEqual(['messages.send', 'messages.send', 'messages.send']);
    // Every attempt carries the same random_id, so a retry can never deliver twice.
    expect(new Set(fake.calls.map((c) => c.params.random_id))).toEqual(new Set(['77001']));
    expect(fake.sentMessages).toHaveLength(1);
  });

  test('retries are bounded: a persistent error 6 surfaces as a retryable VkApiError', async () => {
    fake.failNext('groups.getById', { error_code: 6, error_msg: 'Too many requests per second' }, 10);
    const err = (await rejection(client.groupsGetById(GROUP.id))) as VkApiError;
    expect(err.code).toBe(6);
    expect(err.kind).toBe('too_many_requests');
    expect(err.retryable).toBe(true);
    expect(err.attempts).toBe(3);
    expect(fake.calls).toHaveLength(3);
  });

  test('other errors are not retried', async () => {
    fake.failNext('groups.getById', { error_code: 10, error_msg: 'Internal server error' });
    const err = (await rejection(client.groupsGetById(GROUP.id))) as VkApiError;
    expect(err.kind).toBe('server_error');
    expect(err.retryable).toBe(true);
    expect(fake.calls).toHaveLength(1);
  });

  test('a token without the messages right gets 7, kind "permission_denied"', async () => {
    const limited = 'vk1.a.ManageOnlyManageOnlyManageOnlyManageOnlyManageOnly';
    fake.addToken(limited, GROUP.id, { messages: false });
    const other = createVkClient({ baseUrl: fake.url, accessToken: limited });
    const err = (await rejection(other.messagesSend({ peerId: ANNA, message: 'Привет', randomId: 1 }))) as VkApiError;
    expect(err.code).toBe(7);
    expect(err.kind).toBe('permission_denied');
    expect(err.retryable).toBe(false);
    expectNoToken(err, limited);
    expect(fake.sentMessages).toHaveLength(0);
  });

  test('a user who denied messages gets 901, kind "permission_denied"', async () => {
    fake.denyMessages(GROUP.id, ANNA);
    const err = (await rejection(client.messagesSend({ peerId: ANNA, message: 'Привет', randomId: 2 }))) as VkApiError;
    expect(err.code).toBe(901);
    expect(err.kind).toBe('permission_denied');
    expect(err.errorMsg).toBe("Can't send messages for users without permission");
  });

  test('callback methods on another community answer 27', async () => {
    fake.addGroup({ id: 1, name: 'Чужое сообщество', token: 'vk1.a.OtherOtherOtherOtherOtherOtherOther', confirmationCode: 'ffff' });
    const err = (await rejection(client.groupsGetCallbackServers(1))) as VkApiError;
    expect(err.code).toBe(27);
    expect(err.kind).toBe('permission_denied');
  });

  test('messagesSend with a callback keyboard: VK receives the keyboard JSON, the id comes back', async () => {
    const id = await client.messagesSend({ peerId: ANNA, message: 'Чем помочь?', randomId: 424242, keyboard: menu() });
    expect(Number.isInteger(id)).toBe(true);

    const params = fake.calls[0]!.params;
    expect(params).toMatchObject({ peer_id: String(ANNA), random_id: '424242', message: 'Чем помочь?' });
    expect(JSON.parse(params.keyboard!)).toEqual(menu());

    expect(fake.sentMessages).toHaveLength(1);
    const sent = fake.sentMessages[0]!;
    expect(sent).toMatchObject({ groupId: GROUP.id, peerId: ANNA, message: 'Чем помочь?', randomId: 424242, messageId: id });
    expect(sent.keyboard).toEqual({
      one_time: false,
      inline: true,
      buttons: [
        [{ action: { type: 'callback', label: 'Записаться', payload: '{"action":"book"}' }, color: 'positive' }],
        [
          { action: { type: 'callback', label: 'Специалисты', payload: '{"action":"specialists"}' } },
          { action: { type: 'callback', label: 'Помощь', payload: '{"action":"help"}' } },
        ],
      ],
    });
  });

  test('the same random_id is delivered once, like VK', async () => {
    const first = await client.messagesSend({ peerId: ANNA, message: 'Запись подтверждена', randomId: 5150 });
    const second = await client.messagesSend({ peerId: ANNA, message: 'Запись подтверждена', randomId: 5150 });
    expect(second).toBe(first);
    expect(fake.sentMessages).toHaveLength(1);
    await client.messagesSend({ peerId: ANNA, message: 'Ещё одно', randomId: 5151 });
    expect(fake.sentMessages).toHaveLength(2);
  });

  test('a keyboard VK would refuse is error 911 from the fake', async () => {
    const err = (await rejection(
      client.call('messages.send', {
        peer_id: ANNA,
        random_id: 9,
        message: 'x',
        keyboard: { buttons: [[{ action: { type: 'callback', label: 'x'.repeat(41), payload: '{}' } }]] },
      }),
    )) as VkApiError;
    expect(err.code).toBe(911);
    expect(err.kind).toBe('invalid_request');
  });

  test('keyboards need bot capabilities in the community (912)', async () => {
    fake.addGroup({ ...GROUP, botCapabilities: false });
    const err = (await rejection(client.messagesSend({ peerId: ANNA, message: 'Меню', randomId: 3, keyboard: menu() }))) as VkApiError;
    expect(err.code).toBe(912);
  });

  test('sendMessageEventAnswer sends the snackbar as JSON; an unknown event is refused', async () => {
    fake.addMessageEvent({ groupId: GROUP.id, eventId: 'a41f9c0b7e55', userId: ANNA, peerId: ANNA });
    await client.messagesSendMessageEventAnswer({
      eventId: 'a41f9c0b7e55',
      userId: ANNA,
      peerId: ANNA,
      eventData: { type: 'show_snackbar', text: 'Готово' },
    });
    expect(fake.eventAnswers).toEqual([
      { groupId: GROUP.id, eventId: 'a41f9c0b7e55', userId: ANNA, peerId: ANNA, eventData: { type: 'show_snackbar', text: 'Готово' } },
    ]);

    const err = (await rejection(client.messagesSendMessageEventAnswer({ eventId: 'nope', userId: ANNA, peerId: ANNA }))) as VkApiError;
    expect(err.code).toBe(100);
    expect(err.errorMsg).toBe('One of the parameters specified was missing or invalid: invalid event_id');
  });

  test('confirmation code and the callback server lifecycle', async () => {
    expect(await client.groupsGetCallbackConfirmationCode(GROUP.id)).toBe('5d2c1e8a');

    const serverId = await client.groupsAddCallbackServer({
      groupId: GROUP.id,
      url: 'https://bot.example.ru/api/v1/social/webhook/ag_1',
      title: 'Conduit',
      secretKey: 's3cr3t-key-42',
    });
    expect(await client.groupsGetCallbackServers(GROUP.id)).toEqual([
      {
        id: serverId,
        title: 'Conduit',
        creator_id: 1,
        url: 'https://bot.example.ru/api/v1/social/webhook/ag_1',
        secret_key: 's3cr3t-key-42',
        status: 'unconfigured',
      },
    ]);

    await client.groupsSetCallbackSettings({
      groupId: GROUP.id,
      serverId,
      message_new: 1,
      message_event: 1,
      message_allow: true,
      message_deny: 1,
    });
    const setCall = fake.calls.at(-1)!.params;
    expect(setCall).toMatchObject({ api_version: '5.199', message_new: '1', message_event: '1', message_allow: '1', message_deny: '1' });
    const settings = await client.groupsGetCallbackSettings({ groupId: GROUP.id, serverId });
    expect(settings.api_version).toBe('5.199');
    expect(settings.events).toMatchObject({ message_new: 1, message_event: 1, message_allow: 1, message_deny: 1, message_reply: 0 });

    await client.groupsEditCallbackServer({
      groupId: GROUP.id,
      serverId,
      url: 'https://bot.example.ru/api/v1/social/webhook/ag_2',
      title: 'Conduit',
      secretKey: 'another-secret-99',
    });
    expect(fake.callbackServers[0]).toMatchObject({ url: 'https://bot.example.ru/api/v1/social/webhook/ag_2', secret_key: 'another-secret-99' });

    await client.groupsDeleteCallbackServer({ groupId: GROUP.id, serverId });
    expect(await client.groupsGetCallbackServers(GROUP.id)).toEqual([]);

    const err = (await rejection(client.groupsSetCallbackSettings({ groupId: GROUP.id, serverId, message_new: 1 }))) as VkApiError;
    expect(err.code).toBe(104);
    expect(err.kind).toBe('not_found');
  });

  test('an unknown community is error 100 "group_ids is undefined"', async () => {
    const err = (await rejection(client.groupsGetById('no_such_club_anywhere'))) as VkApiError;
    expect(err.code).toBe(100);
    expect(err.errorMsg).toBe('One of the parameters specified was missing or invalid: group_ids is undefined');
  });

  test('the confirmation code changes after every add and edit of a server: a code read earlier is stale', async () => {
    const before = await client.groupsGetCallbackConfirmationCode(GROUP.id);
    const serverId = await client.groupsAddCallbackServer({ groupId: GROUP.id, url: 'https://bot.example.ru/hook', title: 'Conduit', secretKey: 'k' });
    const afterAdd = await client.groupsGetCallbackConfirmationCode(GROUP.id);
    expect(afterAdd).not.toBe(before);
    expect(afterAdd).toMatch(/^[0-9a-f]{8}$/);
    await client.groupsEditCallbackServer({ groupId: GROUP.id, serverId, url: 'https://bot.example.ru/hook', title: 'Conduit', secretKey: 'k2' });
    expect(await client.groupsGetCallbackConfirmationCode(GROUP.id)).not.toBe(afterAdd);
    expect(fake.confirmationCodeOf(GROUP.id)).toBe(await client.groupsGetCallbackConfirmationCode(GROUP.id));
  });

  test('the eleventh callback server is refused with 2000', async () => {
    for (let i = 0; i < 10; i++) {
      await client.groupsAddCallbackServer({ groupId: GROUP.id, url: `https://h${i}.example.ru/hook`, title: `s${i}`, secretKey: 'k' });
    }
    const err = (await rejection(client.groupsAddCallbackServer({ groupId: GROUP.id, url: 'https://x.example.ru/hook', title: 'x', secretKey: 'k' }))) as VkApiError;
    expect(err.code).toBe(2000);
    expect(err.kind).toBe('limit_reached');
  });

  test('with autoConfirm the fake posts a confirmation to the server and records the outcome', async () => {
    const app = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        const body = (await req.json()) as { type: string; group_id: number; secret?: string };
        if (body.type === 'confirmation' && body.group_id === GROUP.id && body.secret === 's3cr3t-key-42') return new Response('5d2c1e8a');
        return new Response('ok');
      },
    });
    try {
      fake.settings.autoConfirm = true;
      await client.groupsAddCallbackServer({
        groupId: GROUP.id,
        url: `http://127.0.0.1:${app.port}/api/v1/social/webhook/ag_1`,
        title: 'Conduit',
        secretKey: 's3cr3t-key-42',
      });
      await fake.idle();
      expect(fake.callbackServers[0]!.status).toBe('ok');

      fake.setConfirmationCode(GROUP.id, 'changed1');
      expect(await fake.confirmServer(GROUP.id, fake.callbackServers[0]!.id)).toMatchObject({ status: 'failed', body: '5d2c1e8a' });
    } finally {
      await app.stop(true);
    }
  });

  test('a proxy error page is a VkNetworkError "bad_response" with the HTTP status', async () => {
    fake.failNextHttp('groups.getById', 502);
    const err = await rejection(client.groupsGetById(GROUP.id));
    expect(err).toBeInstanceOf(VkNetworkError);
    expect((err as VkNetworkError).reason).toBe('bad_response');
    expect((err as VkNetworkError).httpStatus).toBe(502);
  });

  test('a hang past the timeout is a VkNetworkError "timeout"', async () => {
    fake.hangNext('groups.getById');
    const quick = createVkClient({ baseUrl: fake.url, accessToken: TOKEN, timeoutMs: 100 });
    const err = await rejection(quick.groupsGetById(GROUP.id));
    expect(err).toBeInstanceOf(VkNetworkError);
    expect((err as VkNetworkError).timedOut).toBe(true);
    expectNoToken(err);
  });

  test('an unreachable host is a VkNetworkError "unreachable" without the token', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
    const port = closed.port;
    await closed.stop(true);
    const dead = createVkClient({ baseUrl: `http://127.0.0.1:${port}/method`, accessToken: TOKEN, timeoutMs: 1000 });
    const err = await rejection(dead.groupsGetById(GROUP.id));
    expect(err).toBeInstanceOf(VkNetworkError);
    expect((err as VkNetworkError).reason).toBe('unreachable');
    expectNoToken(err);
  });
});

describe('fake VK wire details', () => {
  test('a call without v is error 8; GET with query-string parameters works like POST', async () => {
    const noVersion = await fetch(`${fake.url}/groups.getById?access_token=${encodeURIComponent(TOKEN)}`);
    expect(noVersion.status).toBe(200);
    const body = (await noVersion.json()) as { error: { error_code: number; error_msg: string; request_params: unknown[] } };
    expect(body.error.error_code).toBe(8);
    expect(body.error.error_msg).toStartWith('Invalid request: v is required');
    expect(JSON.stringify(body.error.request_params)).not.toContain(TOKEN);

    const viaGet = await fetch(`${fake.url}/groups.getById?group_id=${GROUP.id}&v=5.199&access_token=${encodeURIComponent(TOKEN)}`);
    expect(await viaGet.json()).toMatchObject({ response: { groups: [{ id: GROUP.id, name: GROUP.name }], profiles: [] } });
  });

  test('the token may come as Authorization: Bearer; an unknown method is error 3', async () => {
    const bearer = await fetch(`${fake.url}/groups.getCallbackConfirmationCode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: `group_id=${GROUP.id}&v=5.199`,
    });
    expect(await bearer.json()).toEqual({ response: { code: '5d2c1e8a' } });

    const unknown = await fetch(`${fake.url}/groups.getByID?v=5.199&access_token=${encodeURIComponent(TOKEN)}`);
    expect(((await unknown.json()) as { error: { error_code: number } }).error.error_code).toBe(3);
  });

  test('messages.send without random_id is error 100; with peer_ids the answer is one entry per peer', async () => {
    const err = (await rejection(client.call('messages.send', { peer_id: ANNA, message: 'x' }))) as VkApiError;
    expect(err.code).toBe(100);

    const answer = await client.call<unknown[]>('messages.send', { peer_ids: [ANNA, 40911234], random_id: 0, message: 'Рассылка' });
    expect(answer).toHaveLength(2);
    expect(answer[0]).toMatchObject({ peer_id: ANNA, message_id: expect.any(Number), conversation_message_id: expect.any(Number) });
  });
});

describe('keyboard builder', () => {
  test('callback and text buttons carry the payload as a JSON string', () => {
    expect(callbackButton('Меню', { action: 'menu' })).toEqual({ action: { type: 'callback', label: 'Меню', payload: '{"action":"menu"}' } });
    expect(textButton('Меню', { action: 'menu', page: 2 }, 'secondary')).toEqual({
      action: { type: 'text', label: 'Меню', payload: '{"action":"menu","page":2}' },
      color: 'secondary',
    });
  });

  test('keyboard() gives VK’s shape; removeKeyboard() the empty one', () => {
    const k = keyboard([[callbackButton('Помощь', { action: 'help' })]], { one_time: true });
    expect(k).toEqual({ one_time: true, inline: false, buttons: [[{ action: { type: 'callback', label: 'Помощь', payload: '{"action":"help"}' } }]] });
    expect(removeKeyboard()).toEqual({ one_time: false, inline: false, buttons: [] });
  });

  test('labels: required, at most 40 characters', () => {
    expect(() => callbackButton('', { action: 'x' })).toThrow(VkKeyboardError);
    expect(() => callbackButton('   ', { action: 'x' })).toThrow(VkKeyboardError);
    expect(() => callbackButton('я'.repeat(40), { action: 'x' })).not.toThrow();
    expect(() => callbackButton('я'.repeat(41), { action: 'x' })).toThrow(/40 characters/);
  });

  test('payload: an object with an action, at most 255 bytes of JSON', () => {
    expect(() => callbackButton('x', {} as never)).toThrow(VkKeyboardError);
    expect(() => callbackButton('x', { action: '' })).toThrow(VkKeyboardError);
    expect(() => callbackButton('x', ['a'] as never)).toThrow(VkKeyboardError);
    // {"action":"a","n":""} is 21 bytes; 234 ASCII characters fill it to exactly 255.
    expect(() => callbackButton('x', { action: 'a', n: 'z'.repeat(234) })).not.toThrow();
    expect(() => callbackButton('x', { action: 'a', n: 'z'.repeat(235) })).toThrow(/255/);
    // Cyrillic is two bytes a character: 130 characters fit the character count but not the bytes.
    expect(() => callbackButton('x', { action: 'a', n: 'ж'.repeat(130) })).toThrow(VkKeyboardError);
  });

  test('colors are checked', () => {
    expect(() => callbackButton('x', { action: 'a' }, 'green' as never)).toThrow(VkKeyboardError);
  });

  test('size limits: inline 5 per row, 6 rows, 10 buttons; standard 10 rows, 40 buttons', () => {
    const b = () => callbackButton('x', { action: 'a' });
    const row = (n: number) => Array.from({ length: n }, b);
    expect(() => keyboard([row(5), row(5)], { inline: true })).not.toThrow();
    expect(() => keyboard([row(6)], { inline: true })).toThrow(VkKeyboardError);
    expect(() =>
      keyboard(
        Array.from({ length: 7 }, () => row(1)),
        { inline: true },
      ),
    ).toThrow(/6 rows/);
    expect(() => keyboard([row(5), row(5), row(1)], { inline: true })).toThrow(/10 buttons/);
    expect(() => keyboard(Array.from({ length: 8 }, () => row(5)))).not.toThrow();
    expect(() => keyboard(Array.from({ length: 9 }, () => row(5)))).toThrow(/40 buttons/);
    expect(() => keyboard(Array.from({ length: 11 }, () => row(1)))).toThrow(/10 rows/);
    expect(() => keyboard([[]])).toThrow(/empty/);
    expect(KEYBOARD_LIMITS.inline.buttons).toBe(10);
  });

  test('one_time is refused for inline keyboards', () => {
    expect(() => keyboard([[callbackButton('x', { action: 'a' })]], { inline: true, one_time: true })).toThrow(VkKeyboardError);
  });

  test('fitLabel shortens data-driven labels to what VK accepts', () => {
    expect(fitLabel('  Стрижка   мужская ')).toBe('Стрижка мужская');
    const long = fitLabel('Комплексный уход за волосами с окрашиванием и укладкой');
    expect(long.length).toBeLessThanOrEqual(40);
    expect(long.endsWith('…')).toBe(true);
    expect(() => callbackButton(long, { action: 'service' })).not.toThrow();
  });
});

describe('token format and random ids', () => {
  test('community tokens start with vk1.a.', () => {
    expect(isCommunityTokenFormat(TOKEN)).toBe(true);
    expect(isCommunityTokenFormat('vk1.a.short')).toBe(false);
    expect(isCommunityTokenFormat(`${'0123456789abcdef'.repeat(5)}01234`)).toBe(false);
    expect(isCommunityTokenFormat(`${TOKEN} `)).toBe(false);
    expect(isCommunityTokenFormat('')).toBe(false);
  });

  test('generateRandomId draws positive integers from the whole 53-bit range (VK checks it against the whole history)', () => {
    const ids = Array.from({ length: 1000 }, () => generateRandomId());
    for (const id of ids) {
      expect(Number.isSafeInteger(id)).toBe(true);
      expect(id).toBeGreaterThan(0);
      expect(id).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    }
    // 31 bits would give none above 2^32; 53 bits give all but about one in a million.
    expect(ids.filter((id) => id > 2 ** 32).length).toBeGreaterThan(990);
    expect(new Set(ids).size).toBe(1000);
  });
});
