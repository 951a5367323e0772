// Settlement batching and back-pressure of src/gateway/billing.ts, against the real database (PostgreSQL
// with DATABASE_URL, PGlite otherwise). Each test drives its own billing instance on the app's database,
// so it controls batch sizes and the backlog bound; writes are held up for real by a transaction that
// locks usage_records (on PGlite it holds the one connection, which stalls the writer just the same).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createBilling, type Billing, type UsageFacts } from '../../src/gateway/billing';
import { createLogger } from '../../src/logger';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { balanceNanoInDb, setBalanceNano, unbalancedUsers, usageRows, waitFor } from '../helpers/gateway';

const PRICE = 125n;

let app: TestApp;
let upstream: ReturnType<typeof startBurstUpstream>;

/**
 * A model host that writes its whole SSE answer in one burst (as a cached or very short completion
 * arrives), or, for model `burst/drop`, the first events and then closes the connection mid-stream.
 * Raw HTTP/1.1 over TCP, so the burst and the drop are exactly what goes on the wire.
 */
function startBurstUpstream() {
  const event = (chunk: unknown) => `data: ${JSON.stringify(chunk)}\n\n`;
  const base = { id: 'chatcmpl-burst', object: 'chat.completion.chunk', created: 1, model: 'burst/chat' };
  const content = (text: string) => event({ ...base, choices: [{ index: 0, delta: { content: text }, finish_reason: null }], usage: null });
  const events = [
    event({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }], usage: null }),
    content('Hello'),
    content(' burst'),
    event({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null }),
    event({ ...base, choices: [], usage: { prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 } }),
    'data: [DONE]\n\n',
  ];
  const chunked = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
  const headers = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n';
  const server = Bun.listen<{ request: string }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { request: '' };
      },
      data(socket, data) {
        socket.data.request += data.toString();
        const headerEnd = socket.data.request.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const length = Number(/content-length: *(\d+)/i.exec(socket.data.request)?.[1] ?? 0);
        if (socket.data.request.length < headerEnd + 4 + length) return;
        const drop = socket.data.request.includes('burst/drop');
        const body = drop ? events.slice(0, 2).map(chunked).join('') : `${events.map(chunked).join('')}0\r\n\r\n`;
        socket.write(headers + body);
        if (socket.data.request.includes('burst/drop-later')) setTimeout(() => socket.end(), 50);
        else socket.end();
      },
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, events, stop: () => server.stop(true) };
}

beforeAll(async () => {
  upstream = startBurstUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: upstream.url } });
});
afterAll(async () => {
  await app?.close();
  upstream?.stop();
});

function newBilling(
  options: {
    maxBatch?: number;
    statementRows?: number;
    maxPending?: number;
    usageFlushMs?: number;
    admissionWaitMs?: number;
    journalDir?: string;
    stopWriteMs?: number;
  } = {},
) {
  const errors: string[] = [];
  const logger = createLogger('warn', {}, (line) => {
    if (line.includes('"error"')) errors.push(line);
  });
  const billing = createBilling({
    db: app.instance.services.database.db,
    query: app.instance.services.database.query,
    config: { tokenPriceNano: PRICE, leaseChunkNano: 10_000_000n, usageFlushMs: options.usageFlushMs ?? 20 },
    logger,
    instanceId: `billing-test-${crypto.randomUUID()}`,
    maxBatch: options.maxBatch,
    statementRows: options.statementRows,
    maxPending: options.maxPending,
    admissionWaitMs: options.admissionWaitMs,
    journalDir: options.journalDir,
    stopWriteMs: options.stopWriteMs,
  });
  return { billing, errors };
}

async function customer(balance = 1_000_000_000n) {
  const user = await registerUser(app.url);
  await setBalanceNano(app, user.userId, balance);
  return user.userId;
}

function facts(userId: string, i: number, totalTokens = 10): UsageFacts {
  return {
    userId,
    requestId: `req-${i}`,
    model: 'acme/chat',
    stream: false,
    promptTokens: totalTokens - 2,
    completionTokens: 2,
    totalTokens,
    status: 'ok',
    usageSource: 'upstream',
    upstreamStatus: 200,
    durationMs: 1,
  };
}

/** Holds writes to usage_records until the returned function is called. */
async function holdWrites(): Promise<() => Promise<void>> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = app.instance.services.database.db.transaction(async (tx) => {
    await tx.execute(sql`lock table usage_records in exclusive mode`);
    locked();
    await gate;
  });
  await isLocked;
  return async () => {
    release();
    await done;
  };
}

async function usageStats(userId: string) {
  const [row] = await app.sql<{ rows: unknown; statements: unknown; cost: unknown }>(
    `select count(*) as rows, count(distinct xmin::text) as statements, coalesce(sum(cost_nano), 0)::text as cost
     from usage_records where user_id = $1`,
    [userId],
  );
  return { rows: Number(row!.rows), statements: Number(row!.statements), cost: BigInt(String(row!.cost)) };
}

async function ledgerDebits(userId: string): Promise<bigint> {
  const [row] = await app.sql<{ total: unknown }>(`select coalesce(sum(-amount_nano), 0)::text as total from ledger_entries where user_id = $1 and kind = 'usage'`, [
    userId,
  ]);
  return BigInt(String(row!.total));
}

async function settleMany(billing: Billing, userId: string, n: number, from = 0) {
  for (let i = from; i < from + n; i++) {
    const reservation = await billing.reserve(userId, 20n * PRICE);
    billing.settle(reservation, facts(userId, i));
  }
}

describe('settlement batches', () => {
  test('rows settled during a slow write all land, in the next batch rather than one write each', async () => {
    const { billing, errors } = newBilling({ maxBatch: 5_000 });
    const userId = await customer();
    await settleMany(billing, userId, 1);
    const release = await holdWrites();
    await Bun.sleep(60); // the timer fires and the first write waits on the lock
    await settleMany(billing, userId, 1_500, 1);
    expect(billing.backlog).toBe(1_501);
    await release();
    await billing.flush();
    expect(billing.backlog).toBe(0);
    const stats = await usageStats(userId);
    expect(stats.rows).toBe(1_501);
    // One statement for the row that was waiting, one for everything settled while it waited.
    expect(stats.statements).toBeLessThanOrEqual(3);
    expect(stats.cost).toBe(1_501n * 10n * PRICE);
    expect(await ledgerDebits(userId)).toBe(stats.cost);
    expect(await unbalancedUsers(app)).toEqual([]);
    await billing.stop();
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000_000n - stats.cost);
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a backlog larger than maxBatch is written in statements of at most maxBatch rows', async () => {
    const { billing } = newBilling({ maxBatch: 400, maxPending: 10_000, usageFlushMs: 10_000 });
    const userId = await customer();
    await settleMany(billing, userId, 1_000);
    await billing.flush();
    const stats = await usageStats(userId);
    expect(stats.rows).toBe(1_000);
    expect(stats.statements).toBeGreaterThanOrEqual(3);
    expect(stats.statements).toBeLessThanOrEqual(4);
    await billing.stop();
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a batch is written in statements of at most statementRows rows, every row and the books kept', async () => {
    const { billing, errors } = newBilling({ statementRows: 64, maxPending: 10_000, usageFlushMs: 10_000 });
    const userId = await customer();
    await settleMany(billing, userId, 300);
    await billing.flush();
    const stats = await usageStats(userId);
    expect(stats.rows).toBe(300);
    expect(stats.statements).toBe(5);
    expect(await ledgerDebits(userId)).toBe(stats.cost);
    await billing.stop();
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000_000n - stats.cost);
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a writer behind by more than eight statements writes the backlog in whole batches again', async () => {
    const { billing, errors } = newBilling({ statementRows: 16, maxPending: 10_000, usageFlushMs: 10_000 });
    const userId = await customer();
    await settleMany(billing, userId, 300);
    await billing.flush();
    const stats = await usageStats(userId);
    expect(stats.rows).toBe(300);
    expect(stats.statements).toBe(1);
    await billing.stop();
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('stop() writes every queued row and hands the lease back', async () => {
    const { billing } = newBilling({ usageFlushMs: 60_000 });
    const userId = await customer();
    await settleMany(billing, userId, 700);
    expect(billing.backlog).toBe(700);
    await billing.stop();
    expect(billing.backlog).toBe(0);
    expect((await usageStats(userId)).rows).toBe(700);
    expect(await app.sql('select * from balance_leases where user_id = $1', [userId])).toEqual([]);
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000_000n - 700n * 10n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a charge whose lease is gone is taken from the balance, never below zero, and the books balance', async () => {
    const { billing, errors } = newBilling({ usageFlushMs: 60_000 });
    const userId = await customer(20n * PRICE * 2n);
    const first = await billing.reserve(userId, 20n * PRICE);
    const second = await billing.reserve(userId, 20n * PRICE);
    // The lease expired and another instance returned it to the balance while these were in flight.
    await app.sql(
      `with gone as (delete from balance_leases where user_id = $1 returning amount_nano)
       update users set balance_nano = balance_nano + (select sum(amount_nano) from gone) where id = $1`,
      [userId],
    );
    billing.settle(first, facts(userId, 1, 20));
    billing.settle(second, facts(userId, 2, 20));
    await billing.flush();
    expect(await balanceNanoInDb(app, userId)).toBe(0n);
    expect(await ledgerDebits(userId)).toBe(40n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors.some((line) => line.includes('the lease was gone'))).toBe(true);
    await billing.stop();
  });

  test('text PostgreSQL cannot store (NUL, a lone surrogate) in an upstream message does not block the batch', async () => {
    const { billing } = newBilling();
    const userId = await customer();
    const reservation = await billing.reserve(userId, 20n * PRICE);
    billing.release(reservation, { ...facts(userId, 1), status: 'upstream_error', error: 'bad\u0000byte \ud800 here' });
    await settleMany(billing, userId, 3, 2);
    await billing.flush();
    expect(billing.backlog).toBe(0);
    const rows = await app.sql<{ error: string | null }>('select error from usage_records where user_id = $1 order by id', [userId]);
    expect(rows).toHaveLength(4);
    expect(rows[0]!.error).toBe('badbyte \ufffd here');
    await billing.stop();
  });

  test('texts with tabs, newlines and backslashes reach the usage row as they were', async () => {
    const { billing } = newBilling();
    const userId = await customer();
    const reservation = await billing.reserve(userId, 20n * PRICE);
    const text = 'tab\there\nline\r\\N back\\slash \\t';
    billing.settle(reservation, { ...facts(userId, 1), requestId: `req\t${crypto.randomUUID()}`, error: text });
    await billing.flush();
    const [row] = await app.sql<{ error: string; request_id: string }>('select error, request_id from usage_records where user_id = $1', [userId]);
    expect(row!.error).toBe(text);
    expect(row!.request_id).toStartWith('req\t');
    await billing.stop();
  });

  test('a batch adds one ledger entry per user and kind, of what its rows cost, referenced requests:<count>', async () => {
    const { billing, errors } = newBilling({ usageFlushMs: 10_000 });
    const [a, b] = [await customer(), await customer()];
    const agentId = crypto.randomUUID();
    await settleMany(billing, a, 3);
    for (let i = 3; i < 5; i++) {
      const reservation = await billing.reserve(a, 20n * PRICE);
      billing.settle(reservation, { ...facts(a, i, 12), agentId, apiKeyId: null });
    }
    await settleMany(billing, b, 2, 10);
    // A failed request costs nothing and adds no entry.
    billing.release(await billing.reserve(b, 20n * PRICE), { ...facts(b, 20), status: 'upstream_error', upstreamStatus: 500 });
    await billing.flush();
    const ledger = await app.sql<{ user_id: string; kind: string; amount: string; reference: string }>(
      `select user_id, kind, amount_nano::text as amount, reference from ledger_entries
       where user_id in ($1, $2) and kind in ('usage', 'assistant_usage') order by user_id = $1 desc, kind`,
      [a, b],
    );
    expect(ledger).toEqual([
      { user_id: a, kind: 'assistant_usage', amount: String(-2n * 12n * PRICE), reference: 'requests:2' },
      { user_id: a, kind: 'usage', amount: String(-3n * 10n * PRICE), reference: 'requests:3' },
      { user_id: b, kind: 'usage', amount: String(-2n * 10n * PRICE), reference: 'requests:2' },
    ]);
    expect((await usageStats(a)).rows).toBe(5);
    expect((await usageStats(b)).rows).toBe(3);
    expect(await unbalancedUsers(app)).toEqual([]);
    await billing.stop();
    expect(await balanceNanoInDb(app, a)).toBe(1_000_000_000n - 54n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a row the database refuses is set aside and logged; the rest of its batch is written and the books balance', async () => {
    const { billing, errors } = newBilling({ usageFlushMs: 10_000 });
    const userId = await customer();
    await settleMany(billing, userId, 3);
    // A key id that is no uuid: the database refuses the row (standing in for whatever a row can break).
    const reservation = await billing.reserve(userId, 20n * PRICE);
    billing.settle(reservation, { ...facts(userId, 3), apiKeyId: 'not-a-uuid' });
    await settleMany(billing, userId, 3, 4);
    await billing.flush();
    expect(billing.backlog).toBe(0);
    const rows = await app.sql<{ request_id: string }>('select request_id from usage_records where user_id = $1 order by request_id', [userId]);
    expect(rows.map((r) => r.request_id)).toEqual(['req-0', 'req-1', 'req-2', 'req-4', 'req-5', 'req-6']);
    expect(await ledgerDebits(userId)).toBe(6n * 10n * PRICE);
    expect(errors.some((line) => line.includes('usage row refused twice; dropped') && line.includes('req-3'))).toBe(true);
    await billing.stop();
    // The refused charge never left the lease, which went back whole: balance = start − what was written.
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000_000n - 6n * 10n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('back-pressure', () => {
  test('when maxPending rows wait, reserve() waits for the writer; nothing is dropped and the books balance', async () => {
    const { billing, errors } = newBilling({ maxBatch: 50, maxPending: 100 });
    const userId = await customer();
    // The lease is taken before writes stall (on PGlite the held transaction would block it too).
    await settleMany(billing, userId, 1);
    await billing.flush();
    const release = await holdWrites();
    await settleMany(billing, userId, 100, 1000);
    expect(billing.backlog).toBe(100);

    let admitted = false;
    const blocked = billing.reserve(userId, 20n * PRICE).then((r) => {
      admitted = true;
      return r;
    });
    await Bun.sleep(150);
    expect(admitted).toBe(false);
    expect(billing.backlog).toBe(100);

    await release();
    const reservation = await blocked;
    expect(admitted).toBe(true);
    billing.settle(reservation, facts(userId, 100));
    // Load keeps coming while the writer catches up: 400 more requests, 4 at a time.
    await Promise.all(Array.from({ length: 4 }, (_, w) => settleMany(billing, userId, 100, 101 + w * 100)));
    await billing.flush();
    const stats = await usageStats(userId);
    expect(stats.rows).toBe(502);
    expect(stats.cost).toBe(502n * 10n * PRICE);
    expect(await ledgerDebits(userId)).toBe(stats.cost);
    expect(await unbalancedUsers(app)).toEqual([]);
    await billing.stop();
    expect(await unbalancedUsers(app)).toEqual([]);
    expect(errors).toEqual([]);
  });

  test('a writer that stays stuck (database gone) turns waiting requests away with 429 and Retry-After instead of holding them', async () => {
    const { billing } = newBilling({ maxBatch: 50, maxPending: 20, admissionWaitMs: 200 });
    const userId = await customer();
    await settleMany(billing, userId, 1);
    await billing.flush();
    const release = await holdWrites();
    try {
      await settleMany(billing, userId, 20, 1000);
      const started = performance.now();
      const refused = await billing.reserve(userId, 20n * PRICE).catch((e) => e);
      expect(performance.now() - started).toBeGreaterThanOrEqual(190);
      expect(refused).toMatchObject({ type: 'rate_limit_exceeded', status: 429, headers: { 'retry-after': '5' } });
    } finally {
      await release();
    }
    await billing.flush();
    expect(billing.backlog).toBe(0);
    // Room again: the next request is admitted at once.
    billing.release(await billing.reserve(userId, 20n * PRICE), facts(userId, 2000));
    await billing.stop();
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('stop() during a stalled write waits for it and still writes everything', async () => {
    const { billing } = newBilling({ maxBatch: 100, maxPending: 1_000 });
    const userId = await customer();
    await settleMany(billing, userId, 250);
    const release = await holdWrites();
    await Bun.sleep(60);
    const stopped = billing.stop();
    await Bun.sleep(100);
    await release();
    await stopped;
    expect((await usageStats(userId)).rows).toBe(250);
    expect(await app.sql('select * from balance_leases where user_id = $1', [userId])).toEqual([]);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('reservation size without the tokenizer', () => {
  test('the byte bound of a prompt is never below the exact count, and only large prompts are counted', async () => {
    const { estimatePromptTokens, reservePromptTokens, BYTE_BOUND_LIMIT } = await import('../../src/gateway/tokens');
    const prompts: { messages: { role: string; content: unknown; name?: string }[]; tools?: unknown }[] = [
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Привет!' },
        ],
      },
      { messages: [{ role: 'user', content: '日本語のテキスト 😀😀 <|endoftext|> code: x += 1;', name: 'ann' }] },
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image_url', image_url: { url: 'x' } },
            ],
          },
        ],
      },
      {
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [{ type: 'function', function: { name: 'get', description: 'Weather.', parameters: { properties: { unit: { type: 'string', enum: ['c', 'f'] } } } } }],
      },
      { messages: [{ role: 'user', content: 'word '.repeat(5_000) }] },
    ];
    for (const { messages, tools } of prompts) {
      const exact = estimatePromptTokens(messages, tools);
      const reserved = reservePromptTokens(messages, tools);
      expect(reserved).toBeGreaterThanOrEqual(exact);
      if (reserved > BYTE_BOUND_LIMIT) expect(reserved).toBe(exact);
    }
  });

  test('a small prompt is reserved without loading the encoding', async () => {
    const script = `
      const t = await import(${JSON.stringify(`${import.meta.dir}/../../src/gateway/tokens.ts`)});
      const n = t.reservePromptTokens([{ role: 'user', content: 'Привет, как дела?' }]);
      console.log(JSON.stringify({ n, loaded: t.tokenizerLoaded() }));
      t.countTextTokens('hello world');
      console.log(JSON.stringify({ loaded: t.tokenizerLoaded() }));`;
    const child = Bun.spawnSync([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' });
    const lines = child.stdout
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({ n: 3 + 3 + 4 + 30, loaded: false });
    expect(lines[1]).toEqual({ loaded: true });
  });
});

describe('a stream that arrives whole', () => {
  async function post(model: string, extra: Record<string, unknown> = {}) {
    const user = await registerUser(app.url);
    await setBalanceNano(app, user.userId, 1_000_000_000n);
    const { key } = await createApiKey(app.url, user.token);
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true, ...extra }),
    });
    return { res, userId: user.userId };
  }

  test('the client gets the stream minus the usage parts it did not ask for, billed by the upstream usage', async () => {
    const { res, userId } = await post('burst/chat');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const expected = upstream.events
      .filter((e) => !e.includes('"choices":[]'))
      .join('')
      .replaceAll(',"usage":null', '');
    expect(text).toBe(expected);
    const [row] = await usageRows(app, userId);
    expect(row).toEqual(expect.objectContaining({ status: 'ok', usage_source: 'upstream', total_tokens: 13 }));
    expect(BigInt(row!.cost_nano as string)).toBe(13n * PRICE);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('with include_usage the client gets the upstream bytes exactly, but for the cost added to the usage chunk', async () => {
    const { res } = await post('burst/chat', { stream_options: { include_usage: true } });
    const cost = Number(13n * PRICE) / 1e9;
    expect(await res.text()).toBe(upstream.events.join('').replace('"usage":{', `"usage":{"cost":${cost},`));
  });

  test.each([
    ['at once', 'burst/drop'],
    ['a moment later', 'burst/drop-later'],
  ])('an upstream that drops %s after a burst: what came, an SSE error event, and that much billed', async (_when, model) => {
    const { res, userId } = await post(model);
    expect(res.status).toBe(200);
    const text = await res.text();
    const sent = (upstream.events[0]! + upstream.events[1]!).replaceAll(',"usage":null', '');
    // Bun's fetch may discard bytes that arrived in the same read as the reset; what the client got is billed.
    if (model === 'burst/drop-later') expect(text.startsWith(sent)).toBe(true);
    else expect(text.startsWith(sent) || text.startsWith('data: {"error"')).toBe(true);
    expect(text).toContain('"error":{');
    expect(text.endsWith('\n\n')).toBe(true);
    await waitFor(async () => (await usageRows(app, userId)).length === 1);
    const [row] = await usageRows(app, userId);
    expect(row).toEqual(expect.objectContaining({ status: 'upstream_dropped', usage_source: 'tokenizer' }));
    expect(row!.completion_tokens).toBe(text.includes('Hello') ? 1 : 0);
    expect(await unbalancedUsers(app)).toEqual([]);
  });
});

describe('a shutdown the database does not let finish', () => {
  test('what it could not write stays in the journal and is written exactly once at the next start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    const userId = await customer();
    const first = newBilling({ journalDir: dir, stopWriteMs: 300 });
    await first.billing.start();
    await settleMany(first.billing, userId, 1);
    await first.billing.flush();
    const release = await holdWrites();
    await settleMany(first.billing, userId, 25, 1);
    await first.billing.stop(); // the writes hang: after 300 ms the rows are left to the journal
    expect(readdirSync(dir).filter((f) => f.startsWith('settlements-'))).toHaveLength(1);
    expect(first.errors.some((l) => l.includes('the journal keeps them for the next start'))).toBe(true);
    await release();
    // The write that hung finishes (committing its rows, or not); the first instance starts no other.
    await first.billing.flush();

    const second = newBilling({ journalDir: dir });
    await second.billing.start();
    // Rows the released write committed are not written again: each request has exactly one row.
    const rows = await app.sql<{ request_id: string; n: unknown }>('select request_id, count(*) as n from usage_records where user_id = $1 group by request_id', [
      userId,
    ]);
    expect(rows).toHaveLength(26);
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    await second.billing.stop();
    expect(readdirSync(dir)).toEqual([]);
    expect(await unbalancedUsers(app)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('texts that look like tagged amounts ("42n") stay texts on replay, and a row already written is not written again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    const userId = await customer(1_000_000n);
    // X-Request-Id is the client's: "42n" is a valid one. Amounts in the journal are tagged "125n"; ids are not amounts.
    const row = (requestId: string, cost: string) =>
      JSON.stringify([
        userId,
        null,
        null,
        requestId,
        'acme/chat',
        false,
        1,
        1,
        2,
        cost,
        cost,
        '0',
        '0',
        'ok',
        'upstream',
        200,
        null,
        1,
        '2026-11-20T10:00:00.000Z',
        null,
        null,
        'chat',
      ]);
    // An overage line (a settlement that outgrew its lease) as this version writes it: amounts tagged by name.
    const overageLine = JSON.stringify({
      facts: {
        userId,
        apiKeyId: null,
        agentId: null,
        requestId: '44n',
        model: 'acme/chat',
        stream: false,
        promptTokens: 1,
        completionTokens: 1,
        totalTokens: 2,
        status: 'ok',
        usageSource: 'upstream',
        upstreamStatus: 200,
        error: null,
        durationMs: 1,
      },
      promptCostNano: '300n',
      completionCostNano: '200n',
      costNano: '0n',
      leaseId: null,
      keyLeaseId: null,
      createdAt: '2026-11-20T10:00:02.000Z',
      overage: { keyId: null, fromBalanceNano: '500n', keyLeaseCostNano: '0n', fromKeyBudgetNano: '0n' },
    });
    writeFileSync(join(dir, 'settlements-1073741823-old-2.jsonl'), `${row('42n', '100')}\n${row('43n', '200')}\n${overageLine}\n`);
    // "43n" committed before the crash (its journal line not yet released): its replay must be skipped, not charged twice.
    await app.sql(
      `insert into usage_records (user_id, request_id, model, status, cost_nano, created_at)
       values ($1, '43n', 'acme/chat', 'ok', 200, '2026-11-20T10:00:00.000Z')`,
      [userId],
    );

    const next = newBilling({ journalDir: dir });
    await next.billing.start();
    const rows = await app.sql<{ request_id: string; cost_nano: unknown }>('select request_id, cost_nano from usage_records where user_id = $1 order by request_id', [
      userId,
    ]);
    expect(rows.map((r) => [r.request_id, String(r.cost_nano)])).toEqual([
      ['42n', '100'],
      ['43n', '200'],
      ['44n', '500'],
    ]);
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000n - 100n - 500n);
    await next.billing.stop();
    expect(readdirSync(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a request id the client repeats does not make the replay skip settlements: a written row is matched by user, id and time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    const userId = await customer(1_000_000n);
    const other = await customer(1_000_000n);
    const row = (user: string, at: string, cost: string) =>
      JSON.stringify([user, null, null, 'same-id', 'acme/chat', false, 1, 1, 2, cost, cost, '0', '0', 'ok', 'upstream', 200, null, 1, at, null, null, 'chat']);
    // The client sends X-Request-Id "same-id" with every request. One of its requests is long written; another user
    // used the id too, at the very time of a journaled row.
    await app.sql(
      `insert into usage_records (user_id, request_id, model, status, cost_nano, created_at)
       values ($1, 'same-id', 'acme/chat', 'ok', 10, '2026-11-19T09:00:00.000Z'), ($2, 'same-id', 'acme/chat', 'ok', 10, '2026-11-20T10:00:01.000Z')`,
      [userId, other],
    );
    writeFileSync(
      join(dir, 'settlements-1073741823-old-3.jsonl'),
      `${row(userId, '2026-11-20T10:00:00.000Z', '100')}\n${row(userId, '2026-11-20T10:00:01.000Z', '200')}\n`,
    );
    const next = newBilling({ journalDir: dir });
    await next.billing.start();
    const rows = await app.sql<{ cost_nano: unknown }>(`select cost_nano from usage_records where user_id = $1 and request_id = 'same-id' order by created_at`, [
      userId,
    ]);
    expect(rows.map((r) => String(r.cost_nano))).toEqual(['10', '100', '200']);
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000n - 300n);
    await next.billing.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a journal written before routing (rows without provider and attempts) or before cost prices replays beside one that has them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    const userId = await customer(1_000_000n);
    const row = (id: string, at: string, tail: unknown[]) =>
      JSON.stringify([userId, null, null, id, 'acme/chat', false, 1, 1, 2, '100', '50', '50', '0', 'ok', 'upstream', 200, null, 1, at, null, null, 'chat', ...tail]);
    writeFileSync(
      join(dir, 'settlements-1073741823-old-4.jsonl'),
      `${row('before-routing', '2026-11-20T10:00:00.000Z', [])}\n${row('routed', '2026-11-20T10:00:01.000Z', ['backup', 2])}\n` +
        `${row('with-cost', '2026-11-20T10:00:02.000Z', ['backup', 1, '1300'])}\n`,
    );
    const next = newBilling({ journalDir: dir });
    await next.billing.start();
    const rows = await app.sql<{ request_id: string; provider_id: string | null; attempts: number | null; provider_cost_nano: string | null }>(
      'select request_id, provider_id, attempts, provider_cost_nano::text from usage_records where user_id = $1 order by created_at',
      [userId],
    );
    expect(rows.map((r) => [r.request_id, r.provider_id, r.attempts, r.provider_cost_nano])).toEqual([
      ['before-routing', null, null, null],
      ['routed', 'backup', 2, null],
      ['with-cost', 'backup', 1, '1300'],
    ]);
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000n - 300n);
    await next.billing.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a journal left by the previous version (rows as objects) is replayed as well as one of arrays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
    const userId = await customer(1_000_000n);
    const common = { user_id: userId, api_key_id: null, agent_id: null, model: 'acme/chat', stream: false };
    // An older version wrote each row as an object; this one writes the same values as an array.
    const objectLine = JSON.stringify({
      ...common,
      request_id: 'journal-object',
      prompt_tokens: 3,
      completion_tokens: 4,
      total_tokens: 7,
      cost_nano: '875',
      prompt_cost_nano: '375',
      completion_cost_nano: '500',
      unpaid_nano: '0',
      status: 'ok',
      usage_source: 'upstream',
      upstream_status: 200,
      error: null,
      duration_ms: 5,
      created_at: '2026-11-20T10:00:00.000Z',
      lease_id: null,
      key_lease_id: null,
      endpoint: 'chat',
    });
    const arrayLine = JSON.stringify([
      userId,
      null,
      null,
      'journal-array',
      'acme/chat',
      true,
      10,
      20,
      30,
      '3750',
      '1250',
      '2500',
      '0',
      'ok',
      'upstream',
      200,
      null,
      9,
      '2026-11-20T10:00:01.000Z',
      null,
      null,
      'chat',
    ]);
    // Its writer (a pid no process has) is gone, so the next start takes the segment over.
    writeFileSync(join(dir, 'settlements-1073741823-old-1.jsonl'), `${objectLine}\n${arrayLine}\n`);

    const next = newBilling({ journalDir: dir });
    await next.billing.start();
    const rows = await app.sql<{ request_id: string; stream: boolean; total_tokens: unknown; cost_nano: unknown; created_at: Date }>(
      'select request_id, stream, total_tokens, cost_nano, created_at from usage_records where user_id = $1 order by request_id',
      [userId],
    );
    expect(rows.map((r) => [r.request_id, r.stream, Number(r.total_tokens), String(r.cost_nano)])).toEqual([
      ['journal-array', true, 30, '3750'],
      ['journal-object', false, 7, '875'],
    ]);
    expect(new Date(rows[1]!.created_at).toISOString()).toBe('2026-11-20T10:00:00.000Z');
    // Their leases are gone, so the charges came from the balance, and the books still balance.
    expect(await balanceNanoInDb(app, userId)).toBe(1_000_000n - 875n - 3750n);
    expect(await unbalancedUsers(app)).toEqual([]);
    await next.billing.stop();
    expect(readdirSync(dir)).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });
});
