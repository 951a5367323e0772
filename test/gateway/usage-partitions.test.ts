// usage_records is partitioned by month (UTC) of created_at: rows land in their month's partition, the
// coming months' partitions exist from start-up, and USAGE_RETENTION_DAYS drops whole months of raw rows
// once they have passed the cutoff, never a month the cutoff falls in, never the ledger or the balance.
// One database, two instances in turn: the first keeps everything (USAGE_RETENTION_DAYS=0), the second,
// started on the same database, keeps USAGE_RETENTION_DAYS.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { openaiClient, settleAll } from '../helpers/gateway';
import type { TestDatabase } from '../helpers/database';

setDefaultTimeout(60_000);

const DAY_MS = 86_400_000;
const ADMIN_EMAIL = uniqueEmail('admin');

/** The first instant of the month `plus` months from the current one (UTC). */
function month(plus: number): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + plus, 1));
}
function at(monthOffset: number, day: number): string {
  return new Date(month(monthOffset).getTime() + (day - 1) * DAY_MS + 12 * 3600_000).toISOString();
}
/** The partition a month's rows belong in, as the migration and the upkeep job name it. */
function partitionOf(monthOffset: number): string {
  const m = month(monthOffset);
  return `usage_records_p${m.getUTCFullYear()}_${String(m.getUTCMonth() + 1).padStart(2, '0')}`;
}
/**
 * Days that put the cutoff on the 15th of the month before last: that month straddles it (its rows of the
 * 3rd are older, those of the 25th newer), the months before it end before it.
 */
const RETENTION_DAYS = Math.floor((Date.now() - Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 2, 15)) / DAY_MS);

let fake: FakeUpstream;
let database: TestDatabase;
let app: TestApp;
let user: { token: string; userId: string };
let admin: { token: string };
let key: { key: string; id: string };

async function partitionNames(target: TestApp): Promise<string[]> {
  const rows = await target.sql<{ name: string }>(
    `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'usage_records'::regclass order by 1`,
  );
  return rows.map((r) => r.name);
}

/** Where each of the user's rows is stored, by its created_at. */
async function placement(target: TestApp): Promise<Map<string, string>> {
  const rows = await target.sql<{ created_at: string; partition: string }>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at, tableoid::regclass::text as partition
     from usage_records where user_id = $1`,
    [user.userId],
  );
  return new Map(rows.map((r) => [r.created_at, r.partition]));
}

async function insertAt(target: TestApp, instants: string[]) {
  await target.sql(
    `insert into usage_records (user_id, api_key_id, model, status, prompt_tokens, completion_tokens, total_tokens,
                                cost_nano, prompt_cost_nano, completion_cost_nano, created_at)
     select $1, $2, 'acme/history', 'ok', 10, 20, 30, 3750, 1250, 2500, t::timestamptz from unnest($3::text[]) as t`,
    [user.userId, key.id, instants],
  );
}

async function listedInstants(target: TestApp): Promise<string[]> {
  const instants: string[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: any } = await call(target.url, 'GET', `/api/usage?limit=5${cursor ? `&cursor=${cursor}` : ''}`, {
      token: user.token,
    });
    expect(res.status).toBe(200);
    instants.push(...res.body.data.map((r: { createdAt: string }) => r.createdAt));
    cursor = res.body.nextCursor;
  } while (cursor);
  return instants;
}

// Rows of the months before the current one, written at chosen instants (as the seed or an import would):
// three months wholly before the cutoff, the month it falls in (a row on each side), the last month.
const OLD = [at(-5, 3), at(-5, 25), at(-4, 10), at(-3, 28)];
const STRADDLING = [at(-2, 3), at(-2, 25)];
const RECENT = [at(-1, 2), at(-1, 20)];
const NEXT_MONTH = [at(1, 2)];
/** A month no partition was made for by the time its row arrives, older than the cutoff. */
const STRAY_OLD = [at(-7, 9)];

let gatewayRowAt: string;
let balanceBefore: unknown;
let ledgerBefore: unknown;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN_EMAIL } });
  database = app.database;
  admin = await registerAdmin(app, ADMIN_EMAIL);
  user = await registerUser(app.url);
  key = await createApiKey(app.url, user.token, 'history');
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe('usage_records partitions', () => {
  test('from start-up, this month and the next two have their partitions, and a billed request lands in this month’s', async () => {
    const names = await partitionNames(app);
    expect(names).toEqual(expect.arrayContaining([partitionOf(0), partitionOf(1), partitionOf(2), 'usage_records_default']));

    await openaiClient(app, key.key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }] });
    await settleAll(app);
    const placed = await placement(app);
    expect([...placed.values()]).toEqual([partitionOf(0)]);
    gatewayRowAt = [...placed.keys()][0]!;
  });

  test('rows of months without a partition wait in DEFAULT; the job makes their months and moves them there', async () => {
    await insertAt(app, [...OLD, ...STRADDLING, ...RECENT, ...NEXT_MONTH]);
    let placed = await placement(app);
    for (const instant of [...OLD, ...STRADDLING, ...RECENT]) expect(placed.get(instant)).toBe('usage_records_default');
    expect(placed.get(NEXT_MONTH[0]!)).toBe(partitionOf(1));

    const run = await app.instance.services.usagePartitions.runOnce();
    expect(run).toMatchObject({ ran: true, moved: OLD.length + STRADDLING.length + RECENT.length, dropped: [], deletedFromDefault: 0 });
    expect(run.created.toSorted()).toEqual([-5, -4, -3, -2, -1].map(partitionOf));

    placed = await placement(app);
    for (const instant of [...OLD, ...STRADDLING, ...RECENT, ...NEXT_MONTH]) {
      const offset = [-5, -4, -3, -2, -1, 0, 1].find((m) => instant >= month(m).toISOString() && instant < month(m + 1).toISOString())!;
      expect({ instant, partition: placed.get(instant) }).toEqual({ instant, partition: partitionOf(offset) });
    }
    const [inDefault] = await app.sql<{ n: number }>('select count(*)::int as n from usage_records_default');
    expect(inDefault!.n).toBe(0);
    // Every row is still one row under its id, and new ones take ids after them.
    const [ids] = await app.sql<{ n: number; distinct_ids: number }>('select count(*)::int as n, count(distinct id)::int as distinct_ids from usage_records');
    expect(ids!.distinct_ids).toBe(ids!.n);

    // A second pass has nothing to do.
    expect(await app.instance.services.usagePartitions.runOnce()).toMatchObject({ ran: true, created: [], moved: 0, dropped: [] });
  });

  test('with USAGE_RETENTION_DAYS=0 nothing is dropped, however old', async () => {
    await insertAt(app, STRAY_OLD);
    const run = await app.instance.services.usagePartitions.runOnce();
    expect(run).toMatchObject({ ran: true, created: [partitionOf(-7)], moved: 1, dropped: [], deletedFromDefault: 0 });
    const all = [...OLD, ...STRADDLING, ...RECENT, ...NEXT_MONTH, ...STRAY_OLD, gatewayRowAt];
    expect((await listedInstants(app)).toSorted()).toEqual(all.toSorted());
  });

  test('with USAGE_RETENTION_DAYS set, whole months older than the cutoff go; the month it falls in, newer rows, balance and ledger stay', async () => {
    // A row of a month long gone, with no partition of its own: it waits in DEFAULT, past the cutoff.
    const strayInDefault = at(-9, 14);
    await insertAt(app, [strayInDefault]);
    expect((await placement(app)).get(strayInDefault)).toBe('usage_records_default');

    balanceBefore = (await call(app.url, 'GET', '/api/balance', { token: user.token })).body;
    ledgerBefore = (await call(app.url, 'GET', `/api/admin/users/${user.userId}`, { token: admin.token })).body.ledger;
    expect(ledgerBefore).toEqual(expect.arrayContaining([expect.objectContaining({ kind: expect.any(String) })]));
    await app.stop();

    // The same database under an instance that keeps RETENTION_DAYS: its start-up run applies it.
    app = await startTestApp({
      database,
      env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN_EMAIL, USAGE_RETENTION_DAYS: String(RETENTION_DAYS) },
    });
    // The full pass (retention, rows out of DEFAULT) runs after start-up, in the background: a pass asked
    // for now waits for it and runs once more.
    await app.instance.services.usagePartitions.runOnce();
    const names = await partitionNames(app);
    for (const gone of [-7, -5, -4, -3]) expect(names).not.toContain(partitionOf(gone));
    for (const kept of [-2, -1, 0, 1, 2]) expect(names).toContain(partitionOf(kept));
    expect(names).toContain('usage_records_default');

    const kept = [...STRADDLING, ...RECENT, gatewayRowAt, ...NEXT_MONTH];
    const placed = await placement(app);
    expect([...placed.keys()].toSorted()).toEqual(kept.toSorted());
    // The straddling month keeps its row from before the cutoff: only whole months are dropped.
    expect(placed.get(STRADDLING[0]!)).toBe(partitionOf(-2));

    // Every read still works, and shows what is left.
    expect((await listedInstants(app)).toSorted()).toEqual(kept.toSorted());
    const exported = await fetch(`${app.url}/api/usage/export`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(exported.status).toBe(200);
    const rows: { created_at: string }[] = parse((await exported.text()).replace(/^\uFEFF/, ''), { columns: true });
    expect(rows.map((r) => r.created_at).toSorted()).toEqual(kept.toSorted());
    const summary = await call(app.url, 'GET', `/api/usage/summary?from=${encodeURIComponent(month(-2).toISOString())}`, { token: user.token });
    expect(summary.status).toBe(200);
    for (const path of ['/api/admin/users', `/api/admin/users/${user.userId}`, '/api/admin/stats/daily']) {
      expect((await call(app.url, 'GET', path, { token: admin.token })).status).toBe(200);
    }

    // The money is another table's: untouched.
    expect((await call(app.url, 'GET', '/api/balance', { token: user.token })).body).toEqual(balanceBefore);
    expect((await call(app.url, 'GET', `/api/admin/users/${user.userId}`, { token: admin.token })).body.ledger).toEqual(ledgerBefore);

    // Writing goes on into this month's partition, ids after every id ever given.
    await openaiClient(app, key.key).chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Ещё раз' }] });
    await settleAll(app);
    const newest = await app.sql<{ partition: string; newest: boolean }>(
      `select tableoid::regclass::text as partition, id > all (select id from usage_records r where r.id <> u.id) as newest
       from usage_records u where user_id = $1 order by id desc limit 1`,
      [user.userId],
    );
    expect(newest[0]).toEqual({ partition: partitionOf(0), newest: true });

    // A later pass finds nothing more to drop.
    expect(await app.instance.services.usagePartitions.runOnce()).toMatchObject({ ran: true, created: [], dropped: [], deletedFromDefault: 0 });
  });

  test('the upkeep runs once across instances: while another holds its lock, a pass does not run', async () => {
    const services = app.instance.services;
    await services.usagePartitions.runOnce(); // the start-up's background pass is over
    // Holding the job's lock as another instance would: the pass is refused, and nothing is done.
    const held = await services.database.withLock('usage-partitions', () => services.usagePartitions.runOnce());
    expect(held).toEqual({ acquired: true, value: { ran: false, created: [], moved: 0, dropped: [], deletedFromDefault: 0 } });
    expect(await services.usagePartitions.runOnce()).toMatchObject({ ran: true });
  });
});
