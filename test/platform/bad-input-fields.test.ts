// Bad input of every kind, on every route: the REST routes read from the OpenAPI document the app serves
// (a new route is swept without touching this file), a sample of the same procedures over /trpc, and the
// raw routes (/v1/chat/completions, the webhooks). Whatever arrives — NUL characters, lone surrogates,
// wrong types, bodies that are not objects, impossible dates and ids, bodies over the limit — the answer is
// a 4xx in the one error shape, never a 5xx or a hang, and a refused request changes nothing.
// This file: strict JSON bodies and parsed query/path parameters, two-factor and e-mail change, impossible
// dates and cursors, /trpc bodies and third-party headers, text that never 500s, top-ups, deep JSON.
// The route-by-route sweep and the issues' refusals: bad-input-sweep.test.ts.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import {
  admin,
  agents,
  type Answer,
  app,
  chunked,
  COMPANY,
  cursorOf,
  expectFieldError,
  gatewayKey,
  keyId,
  LONE_SURROGATE,
  MARIA,
  NUL,
  oversizedJson,
  owner,
  paymentToken,
  productId,
  send,
  snapshot,
  telegramSecret,
  TEMPLATE,
  useBadInputWorld,
  validBodies,
} from './bad-input-world';
import { randomUUID } from 'node:crypto';
import { registerUser, uniqueEmail } from '../helpers/app';
import { BOT_TOKEN, OPERATOR, waitFor } from '../helpers/messenger';
import { CLIENT, GROUP, SECRET, TOKEN } from '../helpers/social';

setDefaultTimeout(60_000);

useBadInputWorld();

describe('JSON bodies are strict; query and path parameters are parsed from their strings (point 5)', () => {
  test('a string, null or array never becomes a boolean or a number, and nothing changes', async () => {
    const before = await snapshot();
    const shop = `/api/v1/commerce/${agents.shop}`;
    for (const rotateWebhookSecret of ['false', 'true', 1, 0, null, [], [true]]) {
      const res = await send('PUT', `${shop}/settings`, { token: owner.token, body: { paymentLinkTemplate: TEMPLATE, rotateWebhookSecret } });
      expectFieldError(res, 'rotateWebhookSecret');
    }
    const booking = validBodies['PUT /api/v1/booking/{agentId}/settings']!;
    for (const syncEnabled of ['false', 'true', 1, null, []]) {
      const res = await send('PUT', `/api/v1/booking/${agents.service}/settings`, { token: owner.token, body: { ...booking, syncEnabled } });
      expectFieldError(res, 'syncEnabled');
    }
    for (const slotCacheTtlMinutes of ['30', null, [30]]) {
      const res = await send('PUT', `/api/v1/booking/${agents.service}/settings`, { token: owner.token, body: { ...booking, slotCacheTtlMinutes } });
      expectFieldError(res, 'slotCacheTtlMinutes');
    }
    for (const companyId of [null, '', [COMPANY], true, '12abc']) {
      const res = await send('PUT', `/api/v1/booking/${agents.service}/settings`, { token: owner.token, body: { ...booking, companyId } });
      expectFieldError(res, 'companyId');
    }
    for (const priceMinor of [null, '', [5], '5', true]) {
      const res = await send('PATCH', `${shop}/products/${productId}`, { token: owner.token, body: { priceMinor } });
      expectFieldError(res, 'priceMinor');
      const created = await send('POST', `${shop}/products`, { token: owner.token, body: { title: 'Коврик', priceMinor } });
      expectFieldError(created, 'priceMinor');
    }
    for (const available of ['false', 'нет', 0, null]) {
      const res = await send('PATCH', `${shop}/products/${productId}`, { token: owner.token, body: { available } });
      expectFieldError(res, 'available');
    }
    for (const spendLimit of ['5', [], [5], true]) {
      const res = await send('PATCH', `/api/keys/${keyId}`, { token: owner.token, body: { spendLimit } });
      expectFieldError(res, 'spendLimit');
    }
    for (const multiplier of ['2', null, [2]]) {
      const res = await send('POST', '/api/admin/prices/import/preview', { token: admin.token, body: { multiplier } });
      expectFieldError(res, 'multiplier');
    }
    for (const body of [null, [], 1, 'x', true]) {
      const res = await send('PATCH', `${shop}/products/${productId}`, { token: owner.token, body });
      expect(res instanceof Error ? res : res.status).toBe(400);
      const agent = await send('PATCH', `/api/agents/${agents.creator}`, { token: owner.token, body });
      expect(agent instanceof Error ? agent : agent.status).toBe(400);
    }
    // The same procedures over /trpc, after REST has served them: the schemas were not changed under them.
    const trpc = await send('POST', '/trpc/commerce.putSettings', {
      token: owner.token,
      body: { agentId: agents.shop, paymentLinkTemplate: TEMPLATE, rotateWebhookSecret: 'false' },
    });
    expectFieldError(trpc, 'rotateWebhookSecret');
    const trpcPrice = await send('POST', '/trpc/commerce.updateProduct', {
      token: owner.token,
      body: { agentId: agents.shop, productId, priceMinor: null },
    });
    expectFieldError(trpcPrice, 'priceMinor');
    expect(await snapshot()).toEqual(before);
  });

  test('the values a client means are still taken: ids as digit strings, query numbers, CSV words', async () => {
    const booking = validBodies['PUT /api/v1/booking/{agentId}/settings']!;
    const saved = await send('PUT', `/api/v1/booking/${agents.service}/settings`, {
      token: owner.token,
      body: { ...booking, companyId: String(COMPANY), specialistMapping: { maria: String(MARIA) } },
    });
    expect(saved instanceof Error ? saved : saved.body).toMatchObject({ companyId: COMPANY, specialistMapping: { maria: MARIA }, syncEnabled: false });

    const page = await send('GET', `/api/v1/commerce/${agents.shop}/products?limit=1`, { token: owner.token });
    expect(page instanceof Error ? page : page.body.products).toHaveLength(1);
    const viaTrpc = await send('GET', `/trpc/commerce.listProducts?input=${encodeURIComponent(JSON.stringify({ agentId: agents.shop, limit: 1 }))}`, {
      token: owner.token,
    });
    expect(viaTrpc instanceof Error ? viaTrpc : viaTrpc.body.result.data.products).toHaveLength(1);

    const imported = await send('POST', `/api/v1/commerce/${agents.shop}/products/import`, {
      token: owner.token,
      body: { csv: 'title;priceMinor;available\nКоврик синий;1500;нет\nКоврик красный;2500;да\n' },
    });
    expect(imported instanceof Error ? imported : imported.body).toMatchObject({ ok: true, imported: 2 });
    const all = await send('GET', `/api/v1/commerce/${agents.shop}/products?limit=100`, { token: owner.token });
    const blue = (all as Answer).body.products.find((p: { title: string }) => p.title === 'Коврик синий');
    expect(blue).toMatchObject({ priceMinor: 1500, available: false });
    for (const product of (all as Answer).body.products.filter((p: { id: string }) => p.id !== productId)) {
      await send('DELETE', `/api/v1/commerce/${agents.shop}/products/${product.id}`, { token: owner.token });
    }
  });
});

describe('two-factor login and e-mail change (issue 32 points 4, 7)', () => {
  test('codes, addresses and tokens of the wrong kind are a 400 naming the field; nothing is set up or mailed', async () => {
    for (const code of [null, 5, [], {}, true, '', 'x'.repeat(65)]) {
      expectFieldError(await send('POST', '/api/auth/2fa/enable', { token: owner.token, body: { code } }), 'code');
      expectFieldError(await send('POST', '/api/auth/2fa/disable', { token: owner.token, body: { code } }), 'code');
    }
    for (const totpCode of [null, 123456, [], {}, 'x'.repeat(65)]) {
      expectFieldError(await send('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password, totpCode } }), 'totpCode');
    }
    for (const newEmail of [null, 5, '', 'not-an-email', 'a@', [], `${'x'.repeat(250)}@example.com`]) {
      expectFieldError(await send('POST', '/api/account/email', { token: owner.token, body: { newEmail, password: owner.password } }), 'newEmail');
    }
    for (const password of [null, 5, '', [], {}]) {
      expectFieldError(await send('POST', '/api/account/email', { token: owner.token, body: { newEmail: uniqueEmail('sweep'), password } }), 'password');
    }
    for (const token of [null, 5, [], {}, 'x'.repeat(129)]) {
      expectFieldError(await send('POST', '/api/account/email/confirm', { body: { token } }), 'token');
    }
    for (const token of ['', 'short', NUL, '%00', 'A'.repeat(43)]) {
      const page = await send('GET', `/api/account/email/confirm?token=${encodeURIComponent(token)}`);
      expect(page instanceof Error ? page : { status: page.status, type: page.body?.error?.type }).toEqual({ status: 400, type: 'invalid_request_error' });
    }
    const status = await send('GET', '/api/auth/2fa', { token: owner.token });
    expect(status instanceof Error ? status : status.body).toEqual({ enabled: false });
    const stored = await app.sql('select 1 from email_changes where user_id = $1', [owner.userId]);
    expect(stored).toHaveLength(0);
  });
});

describe('impossible dates, cursors and time zones are a 400 naming the field (point 6)', () => {
  test('REST', async () => {
    const cases: [string, string, string, string][] = [
      ['GET', `/api/usage?cursor=${cursorOf('2026-01-01T00:00:00.000000Z', '9999999999999999999')}`, owner.token, 'cursor'],
      ['GET', `/api/usage?cursor=${cursorOf('2026-02-30T00:00:00.000000Z', 1)}`, owner.token, 'cursor'],
      ['GET', `/api/usage?cursor=${cursorOf('0000-01-01T00:00:00.000000Z', 1)}`, owner.token, 'cursor'],
      ['GET', `/api/admin/audit?cursor=${cursorOf('2026-01-01T00:00:00.000000Z', '9999999999999999999')}`, admin.token, 'cursor'],
      ['GET', `/api/admin/users?cursor=${cursorOf('2026-02-30T00:00:00.000000Z', randomUUID())}`, admin.token, 'cursor'],
      ['GET', `/api/billing/topups?cursor=${cursorOf('0000-01-01T00:00:00.000000Z', randomUUID())}`, owner.token, 'cursor'],
      ['GET', `/api/v1/commerce/${agents.shop}/orders?cursor=${cursorOf('0000-01-01T00:00:00.000000Z', randomUUID())}`, owner.token, 'cursor'],
      ['GET', '/api/usage?from=-200000-01-01', owner.token, 'from'],
      ['GET', '/api/usage?to=275760-09-13', owner.token, 'to'],
      ['GET', '/api/usage?from=2026-02-30', owner.token, 'from'],
      ['GET', '/api/usage/summary?from=-200000-01-01', owner.token, 'from'],
      ['GET', '/api/usage/summary?from=0000-01-01', owner.token, 'from'],
      ['GET', '/api/usage/summary?from=2026-01-01&timeZone=US/Pacific-New', owner.token, 'timeZone'],
      ['GET', `/api/v1/commerce/${agents.shop}/orders?from=-200000-01-01`, owner.token, 'from'],
      ['GET', `/api/v1/commerce/${agents.shop}/orders?to=0000-01-01`, owner.token, 'to'],
      ['GET', '/api/admin/stats/daily?from=0000-01-01&to=0000-12-31', admin.token, 'from'],
      ['GET', '/api/admin/stats/daily?to=0001-01-05', admin.token, 'to'],
      ['GET', '/api/admin/stats/daily?from=9999-12-01&to=9999-12-31', admin.token, 'to'],
      ['GET', `/api/v1/booking/${agents.service}/slots?date=0000-01-01&specialistId=maria&serviceId=haircut`, owner.token, 'date'],
      // The export's file format (issue 28, point 7): one of two words.
      ['GET', '/api/usage/export?format=excel', owner.token, 'format'],
      ['GET', `/api/usage/export?format=${encodeURIComponent(NUL)}`, owner.token, 'format'],
      ['GET', '/api/usage/export?format=%ED%A0%80', owner.token, 'format'],
    ];
    for (const [method, path, token, field] of cases) {
      const res = await send(method, path, { token });
      expect({ path, status: res instanceof Error ? res.message : res.status }).toEqual({ path, status: 400 });
      expectFieldError(res, field);
    }
    for (const expiresAt of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+05:00']) {
      expectFieldError(await send('PATCH', `/api/keys/${keyId}`, { token: owner.token, body: { expiresAt } }), 'expiresAt');
    }
  });

  test('/trpc', async () => {
    const get = (path: string, input: unknown) => send('GET', `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { token: owner.token });
    expectFieldError(await get('account.usage', { cursor: cursorOf('2026-01-01T00:00:00.000000Z', '9999999999999999999') }), 'cursor');
    expectFieldError(await get('account.usage', { from: '-200000-01-01' }), 'from');
    expectFieldError(await get('account.usageSummary', { from: '2026-01-01', timeZone: 'US/Pacific-New' }), 'timeZone');
    expectFieldError(await get('commerce.listOrders', { agentId: agents.shop, to: '0000-01-01' }), 'to');
  });
});

describe('/trpc bodies and third-party headers (point 7)', () => {
  test('/trpc has the body limit of every route, enforced while reading', async () => {
    const input = oversizedJson();
    const streamed = await send('POST', '/trpc/agents.create', { token: owner.token, raw: chunked(input) });
    expect(streamed instanceof Error ? streamed : { status: streamed.status, type: streamed.body?.error?.type }).toEqual({
      status: 413,
      type: 'payload_too_large',
    });
    const declared = await send('POST', '/trpc/agents.create', { token: owner.token, raw: input });
    expect(declared instanceof Error ? declared : declared.status).toBe(413);
    const batch = await send('POST', '/trpc/agents.create,agents.create?batch=1', {
      token: owner.token,
      raw: chunked(JSON.stringify({ 0: JSON.parse(input), 1: {} })),
    });
    expect(batch instanceof Error ? batch : batch.status).toBe(413);
    // Under the limit, /trpc reads the body as before.
    const small = await send('POST', '/trpc/agents.create', { token: owner.token, raw: chunked(JSON.stringify({ name: 'Потоковый', type: 'creator' })) });
    expect(small instanceof Error ? small : small.status).toBe(200);
    await send('DELETE', `/api/agents/${(small as Answer).body.result.data.id}`, { token: owner.token });
  });

  test('a YCLIENTS partner token that cannot be sent as a header is a 400, not a 502', async () => {
    const booking = validBodies['PUT /api/v1/booking/{agentId}/settings']!;
    for (const partnerToken of ['abc\r\nX-Injected: 1', 'abc\ndef', `abc${'\u0000'}def`, 'токен', 'abc\u2028def', 'emoji😀']) {
      const res = await send('PUT', `/api/v1/booking/${agents.service}/settings`, { token: owner.token, body: { ...booking, partnerToken } });
      expectFieldError(res, 'partnerToken');
    }
    // The other secrets that travel to a third party (VK's access token, the bot token in Telegram's URL)
    // already have formats that leave no room for such characters.
    for (const bad of ['\r\nX-Injected: 1', 'токен', '/../getMe', '?x=1']) {
      const social = await send('PUT', `/api/v1/social/${agents.creator}/settings`, {
        token: owner.token,
        body: { groupId: GROUP, accessToken: `${TOKEN}${bad}`, secretKey: SECRET },
      });
      expectFieldError(social, 'accessToken');
      const check = await send('POST', '/api/v1/social/check-connection', { token: owner.token, body: { groupId: GROUP, accessToken: `${TOKEN}${bad}` } });
      expectFieldError(check, 'accessToken');
      const messenger = await send('PUT', `/api/v1/messenger/${agents.creator}/settings`, {
        token: owner.token,
        body: { botToken: `${BOT_TOKEN}${bad}`, userId: OPERATOR.id },
      });
      expect(messenger instanceof Error ? messenger : { status: messenger.status, type: messenger.body?.error?.type }).toEqual({
        status: 400,
        type: 'invalid_request_error',
      });
    }
  });
});

describe('text that never 500s (issue 14, point 6)', () => {
  test('NUL and lone surrogates in user text are a 400 naming the field, over REST and /trpc', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/agents', { name: NUL, type: 'creator' }, 'name'],
      ['PATCH', `/api/agents/${agents.creator}`, { systemPrompt: `Ты ${LONE_SURROGATE}` }, 'systemPrompt'],
      ['POST', '/api/keys', { name: LONE_SURROGATE }, 'name'],
      ['POST', `/api/v1/commerce/${agents.shop}/products`, { title: 'Коврик', description: NUL, priceMinor: 1 }, 'description'],
      ['POST', `/api/v1/commerce/${agents.shop}/products/import`, { products: [{ title: NUL, priceMinor: 1 }] }, 'products.0.title'],
      ['POST', `/api/v1/commerce/${agents.shop}/products/import`, { csv: `title;priceMinor\n${NUL};1\n` }, 'csv'],
      ['PUT', `/api/v1/booking/${agents.service}/settings`, { companyId: COMPANY, specialistMapping: { [NUL]: 1 } }, 'specialistMapping'],
    ];
    for (const [method, path, body, field] of cases) expectFieldError(await send(method, path, { token: owner.token, body }), field);
    expectFieldError(await send('POST', '/trpc/agents.create', { token: owner.token, body: { name: NUL, type: 'creator' } }), 'name');
    expectFieldError(await send('POST', '/trpc/keys.create', { token: owner.token, body: { name: LONE_SURROGATE } }), 'name');
    expectFieldError(await send('GET', `/api/admin/users?search=${encodeURIComponent(NUL)}`, { token: admin.token }), 'search');
  });

  test('text from VK and Telegram is stored without NUL or lone surrogates, and handled', async () => {
    const eventId = `evt-nul-${randomUUID()}`;
    const event = {
      type: 'message_new',
      event_id: eventId,
      v: '5.199',
      group_id: GROUP,
      secret: SECRET,
      object: {
        message: { id: 1, date: Math.floor(Date.now() / 1000), peer_id: CLIENT, from_id: CLIENT, text: `Привет${'\u0000'} ${LONE_SURROGATE}`, out: 0 },
        [`key${'\u0000'}`]: LONE_SURROGATE,
      },
    };
    const res = await send('POST', `/api/v1/social/webhook/${agents.creator}`, { body: event });
    expect(res instanceof Error ? res : { status: res.status, text: res.text }).toEqual({ status: 200, text: 'ok' });
    const [row] = await app.sql<{ payload: unknown }>('select payload from social_events where agent_id = $1 and event_id = $2', [agents.creator, eventId]);
    const stored = JSON.stringify(row!.payload);
    expect(stored).not.toContain('\\u0000');
    expect(stored).not.toMatch(/\\ud[89ab]/i);
    expect(stored).toContain('Привет');
    const outcome = await waitFor(
      async () => {
        const [handled] = await app.sql<{ outcome: string | null; processed_at: unknown }>(
          'select outcome, processed_at from social_events where agent_id = $1 and event_id = $2',
          [agents.creator, eventId],
        );
        return handled?.processed_at ? (handled.outcome ?? 'none') : null;
      },
      10_000,
      'the VK event to be handled',
    );
    expect(outcome).not.toBe('failed');

    const updateId = 900_000_000 + Math.floor(Math.random() * 1000);
    const update = {
      update_id: updateId,
      message: {
        message_id: 77,
        date: Math.floor(Date.now() / 1000),
        from: { id: OPERATOR.id, is_bot: false, first_name: `Анна${'\u0000'}` },
        chat: { id: OPERATOR.id, type: 'private' },
        text: `ответ${'\u0000'} ${LONE_SURROGATE}`,
      },
    };
    const delivered = await send('POST', `/api/v1/messenger/${agents.creator}/webhook`, {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': telegramSecret },
    });
    expect(delivered instanceof Error ? delivered : delivered.status).toBe(200);
    const [stored2] = await app.sql<{ payload: unknown }>('select payload from messenger_updates where agent_id = $1 and update_id = $2', [agents.creator, updateId]);
    expect(JSON.stringify(stored2!.payload)).not.toContain('\\u0000');
    expect(JSON.stringify(stored2!.payload)).not.toMatch(/\\ud[89ab]/i);
  });
});

describe('top-ups (issue 28, point 9)', () => {
  test('a sixth unpaid top-up is a 400 and creates nothing', async () => {
    const payer = await registerUser(app.url);
    for (let i = 0; i < 5; i++) {
      const made = await send('POST', '/api/billing/topups', { token: payer.token, body: { amount: 100_000 } });
      expect(made instanceof Error ? made.message : made.status).toBe(201);
    }
    const sixth = await send('POST', '/api/billing/topups', { token: payer.token, body: { amount: 100_000 } });
    expect(sixth instanceof Error ? sixth.message : { status: sixth.status, type: sixth.body?.error?.type }).toEqual({ status: 400, type: 'invalid_request_error' });
    expect(await app.sql('select id from topups where user_id = $1', [payer.userId])).toHaveLength(5);
  });
});

describe('JSON nested deeper than 64 levels (issue 28, point 6)', () => {
  test('every route that reads JSON refuses it before anything is stored; the messenger webhooks acknowledge it', async () => {
    const before = await snapshot();
    /** `levels` levels of arrays and objects in all, the outer object included. */
    const deep = (levels: number, fields = '') => `{${fields}"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
    const tooDeep = (res: Answer | Error, where: string) => {
      const seen =
        res instanceof Error ? res.message : { status: res.status, type: res.body?.error?.type, deep: /вложенность JSON/.test(res.body?.error?.message ?? '') };
      expect({ where, seen }).toEqual({ where, seen: { status: 400, type: 'invalid_request_error', deep: true } });
    };
    const body = deep(65, '"name":"Агент","type":"creator",');
    tooDeep(await send('POST', '/api/agents', { token: owner.token, raw: body }), 'REST');
    tooDeep(await send('PATCH', `/api/keys/${keyId}`, { token: owner.token, raw: deep(65, '"name":"ключ",') }), 'REST PATCH');
    tooDeep(await send('POST', '/trpc/agents.create', { token: owner.token, raw: body }), '/trpc');
    tooDeep(await send('GET', `/trpc/account.usage?input=${encodeURIComponent(deep(65))}`, { token: owner.token }), '/trpc query');
    for (const path of ['/v1/chat/completions', '/v1/embeddings', '/v1/responses']) {
      const res = await send('POST', path, { token: gatewayKey, raw: deep(65, '"model":"acme/chat",') });
      tooDeep(res, path);
      if (!(res instanceof Error)) expect(res.body.error.code).toBe('invalid_json');
    }
    const payUrl = `/api/v1/commerce/webhook/${agents.shop}?token=${encodeURIComponent(paymentToken)}`;
    tooDeep(await send('POST', payUrl, { raw: deep(65, '"type":"notification","event":"payment.succeeded",') }), 'shop payments');
    tooDeep(await send('POST', '/api/billing/yookassa/notifications', { raw: deep(65, '"type":"notification","event":"payment.succeeded",') }), 'top-ups');

    // VK and Telegram: their answer, and the event dropped unstored (VK would only resend it, Telegram hold its queue).
    const vkEvents = await app.sql('select event_id from social_events where agent_id = $1', [agents.creator]);
    const vkAnswer = await send('POST', `/api/v1/social/webhook/${agents.creator}`, {
      raw: deep(65, `"type":"message_new","event_id":"evt-deep-65","secret":"${SECRET}",`),
    });
    expect(vkAnswer instanceof Error ? vkAnswer.message : { status: vkAnswer.status, text: vkAnswer.text }).toEqual({ status: 200, text: 'ok' });
    expect(await app.sql('select event_id from social_events where agent_id = $1', [agents.creator])).toEqual(vkEvents);
    const tgAnswer = await send('POST', `/api/v1/messenger/${agents.creator}/webhook`, {
      raw: deep(65, '"update_id":800000065,'),
      headers: { 'x-telegram-bot-api-secret-token': telegramSecret },
    });
    expect(tgAnswer instanceof Error ? tgAnswer.message : tgAnswer.status).toBe(200);
    expect(await app.sql('select update_id from messenger_updates where update_id = 800000065')).toEqual([]);

    expect(await snapshot()).toEqual(before);
  });
});
