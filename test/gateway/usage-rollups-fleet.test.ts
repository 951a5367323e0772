// The per-account and the whole service's rollups (usage_rollups_account, usage_rollups_account_hourly,
// usage_rollups_account_daily, usage_rollups_operator_daily; issue 46): kept by the settlement statement, they equal the rows summed
// for several accounts over several days, whichever stripe a writer's connection added to; every figure
// read from them (an account's summary per day in UTC, +05:30, +05:45 and −03:30 over periods that cut
// quarter hours, the list's totals, operators' daily figures, the users list's month) equals the same sums
// over usage_records; the migration's backfill from the older rollups builds them exactly; and a
// correction of rows by hand moves them.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate';
import { serialize, writeBatchStatement, type Pending } from '../../src/gateway/billing/rows';
import type { UsageFacts, UsageStatus } from '../../src/gateway/billing/types';
import { nanoToUnits } from '../../src/money';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { setBalanceNano, unbalancedUsers, usageByProviderFromRows } from '../helpers/gateway';

setDefaultTimeout(120_000);

const ADMIN = 'fleet-rollups-admin@example.com';
const ZONES = ['UTC', 'Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns'];
/** Local midnights of those zones as UTC offsets in minutes (St John's is −02:30 in summer). */
const OFFSETS_MIN = [0, 330, 345, -210, -150];
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2026, 4, 10);
const DAYS = 12;

let app: TestApp;
let admin: { token: string };
let accounts: { token: string; userId: string; keyIds: string[] }[];

function random(seed: number) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

/** Settlements of the accounts at these instants, through the settlement writer's own statement. */
async function writeAt(instants: number[], seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const statuses: UsageStatus[] = ['ok', 'ok', 'ok', 'client_closed', 'upstream_error'];
  const rows: Pending[] = instants.map((t, i) => {
    const account = pick(accounts);
    const prompt = Math.floor(next() * 500);
    const completion = Math.floor(next() * 300);
    const facts: UsageFacts = {
      userId: account.userId,
      apiKeyId: pick([...account.keyIds, null]),
      agentId: null,
      requestId: `fleet-${seed}-${i}`,
      endpoint: pick(['chat', 'chat', 'embeddings', 'responses'] as const),
      model: pick(['acme/chat', 'acme/large', 'other/model']),
      stream: next() < 0.5,
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      status: pick(statuses),
      usageSource: 'upstream',
      upstreamStatus: 200,
      error: null,
      durationMs: Math.floor(next() * 2000),
      providerId: pick([null, 'default', 'second']),
      attempts: pick([null, 1, 1, 2]),
    };
    const promptCostNano = BigInt(prompt) * 125n;
    const completionCostNano = BigInt(completion) * 250n;
    return {
      facts,
      promptCostNano,
      completionCostNano,
      costNano: promptCostNano + completionCostNano,
      providerCostNano: next() < 0.5 ? BigInt(prompt + completion) * 60n : null,
      leaseId: null,
      keyLeaseId: null,
      memberLeaseId: null,
      member: null,
      overage: null,
      createdAt: new Date(t),
      json: undefined,
      segment: null,
    };
  });
  // Batches in parallel: on PostgreSQL they go out on several of the pool's connections, so the service's
  // daily sums land in several stripes.
  const batches: Promise<unknown>[] = [];
  for (let from = 0; from < rows.length; from += 150) {
    const batch = rows.slice(from, from + 150).map((p) => serialize(p, p.costNano, 0n));
    batches.push(app.sql(writeBatchStatement, [`[${batch.join(',')}]`, 60]));
  }
  await Promise.all(batches);
}

/** Every zone's midnight of every day, a millisecond either side, and random instants. */
function chosenInstants(): number[] {
  const instants: number[] = [];
  const next = random(5);
  for (let d = 0; d < DAYS; d++) {
    for (const offset of OFFSETS_MIN) {
      const midnight = FIRST_DAY + d * DAY_MS - offset * 60_000;
      instants.push(midnight - 1, midnight, midnight + 1 + Math.floor(next() * 60_000));
    }
    for (let i = 0; i < 25; i++) instants.push(FIRST_DAY + d * DAY_MS + Math.floor(next() * DAY_MS));
  }
  // This month's, for the users list (its spend since the 1st, UTC), up to an hour ago.
  const month = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1);
  for (let i = 0; i < 60; i++) instants.push(month + Math.floor(next() * Math.max(Date.now() - 3_600_000 - month, 1)));
  return instants;
}

const SUMS = [
  'requests',
  'failed_requests',
  'retried_requests',
  'attempts',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_nano',
  'prompt_cost_nano',
  'completion_cost_nano',
  'unpaid_nano',
  'priced_requests',
  'priced_cost_nano',
  'provider_cost_nano',
];
/** The sums of usage_records rows, named as the rollups name them. */
const ROW_SUMS = `count(*) as requests, count(*) filter (where status <> 'ok') as failed_requests,
  count(*) filter (where attempts > 1) as retried_requests, coalesce(sum(attempts), 0) as attempts,
  sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens, sum(total_tokens) as total_tokens,
  sum(cost_nano) as cost_nano, sum(prompt_cost_nano) as prompt_cost_nano, sum(completion_cost_nano) as completion_cost_nano,
  sum(unpaid_nano) as unpaid_nano, count(provider_cost_nano) as priced_requests,
  coalesce(sum(case when provider_cost_nano is null then 0 else cost_nano end), 0) as priced_cost_nano,
  coalesce(sum(provider_cost_nano), 0) as provider_cost_nano`;
const AS_TEXT = SUMS.map((c) => `${c}::text`).join(', ');
const SUMMED_AS_TEXT = SUMS.map((c) => `sum(${c})::text as ${c}`).join(', ');

/** The three tables as they are (the service's stripes summed), and as the rows say they must be. */
async function fleetRollups() {
  return {
    accountQuarters: await app.sql(`select user_id::text, bucket, model, coalesce(provider_id, '-') as provider, ${AS_TEXT}
      from usage_rollups_account order by 1, 2, 3, 4`),
    accountHours: await app.sql(`select user_id::text, bucket, model, coalesce(provider_id, '-') as provider, ${AS_TEXT}
      from usage_rollups_account_hourly order by 1, 2, 3, 4`),
    accountDays: await app.sql(`select user_id::text, bucket, model, coalesce(provider_id, '-') as provider, ${AS_TEXT}
      from usage_rollups_account_daily order by 1, 2, 3, 4`),
    operatorDays: await app.sql(`select bucket, model, coalesce(provider_id, '-') as provider, ${SUMMED_AS_TEXT}
      from usage_rollups_operator_daily group by 1, 2, 3
      -- A correction may leave a group's stripes summing to nothing (+n in one, −n in another): no group.
      having ${SUMS.map((c) => `sum(${c}) <> 0`).join(' or ')} order by 1, 2, 3`),
  };
}

async function fleetFromRows() {
  const binned = (width: string, user: boolean) =>
    app.sql(`select ${user ? 'user_id::text, ' : ''}bucket, model, coalesce(provider_id, '-') as provider, ${AS_TEXT} from (
        select ${user ? 'user_id, ' : ''}date_bin('${width}', created_at, timestamptz '2000-01-01Z') as bucket, model, provider_id, ${ROW_SUMS}
        from usage_records group by ${user ? '1, 2, 3, 4' : '1, 2, 3'}) r order by ${user ? '1, 2, 3, 4' : '1, 2, 3'}`);
  return {
    accountQuarters: await binned('15 minutes', true),
    accountHours: await binned('1 hour', true),
    accountDays: await binned('1 day', true),
    operatorDays: await binned('1 day', false),
  };
}

type RawSums = Record<'requests' | 'promptTokens' | 'completionTokens' | 'totalTokens' | 'cost' | 'promptCost' | 'completionCost' | 'unpaid', string>;
const SHOWN_SUMS = `count(*)::text as requests, coalesce(sum(prompt_tokens), 0)::text as "promptTokens",
  coalesce(sum(completion_tokens), 0)::text as "completionTokens", coalesce(sum(total_tokens), 0)::text as "totalTokens",
  coalesce(sum(cost_nano), 0)::text as cost, coalesce(sum(prompt_cost_nano), 0)::text as "promptCost",
  coalesce(sum(completion_cost_nano), 0)::text as "completionCost", coalesce(sum(unpaid_nano), 0)::text as unpaid`;
function shown(row: RawSums) {
  return {
    requests: Number(row.requests),
    promptTokens: Number(row.promptTokens),
    completionTokens: Number(row.completionTokens),
    totalTokens: Number(row.totalTokens),
    cost: nanoToUnits(BigInt(row.cost)),
    promptCost: nanoToUnits(BigInt(row.promptCost)),
    completionCost: nanoToUnits(BigInt(row.completionCost)),
    unpaid: nanoToUnits(BigInt(row.unpaid)),
  };
}

beforeAll(async () => {
  app = await startTestApp({ env: { ADMIN_EMAILS: ADMIN } });
  admin = await registerAdmin(app, ADMIN);
  accounts = [];
  for (let i = 0; i < 4; i++) {
    const user = await registerUser(app.url);
    const keyIds = [(await createApiKey(app.url, user.token, 'one')).id, (await createApiKey(app.url, user.token, 'two')).id];
    await setBalanceNano(app, user.userId, 1_000_000_000_000n);
    accounts.push({ ...user, keyIds });
  }
  await writeAt(chosenInstants(), 3);
});

afterAll(async () => {
  await app?.close();
});

describe('the per-account and service rollups are the rows summed', () => {
  test('after batches on several connections: no drift, the books balance', async () => {
    const [count] = await app.sql<{ n: string; users: string }>(`select count(*)::text as n, count(distinct user_id)::text as users from usage_records`);
    expect(Number(count!.n)).toBeGreaterThan(500);
    expect(Number(count!.users)).toBe(4);
    expect(await fleetRollups()).toEqual(await fleetFromRows());
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('a day of the service split over stripes reads as its sum', async () => {
    // Half of every sum of the first day moved to a stripe of its own: what two writers leave.
    await app.sql(
      `insert into usage_rollups_operator_daily (bucket, model, provider_id, stripe, ${SUMS.join(', ')})
      select bucket, model, provider_id, 99, ${SUMS.map((c) => `${c} / 2`).join(', ')}
      from usage_rollups_operator_daily where bucket = $1::timestamptz and stripe <> 99`,
      [new Date(FIRST_DAY).toISOString()],
    );
    await app.sql(
      `update usage_rollups_operator_daily set ${SUMS.map((c) => `${c} = ${c} - ${c} / 2`).join(', ')}
      where bucket = $1::timestamptz and stripe <> 99`,
      [new Date(FIRST_DAY).toISOString()],
    );
    const [stripes] = await app.sql<{ n: string }>(`select count(distinct stripe)::text as n from usage_rollups_operator_daily where bucket = $1::timestamptz`, [
      new Date(FIRST_DAY).toISOString(),
    ]);
    expect(Number(stripes!.n)).toBeGreaterThan(1);
    expect(await fleetRollups()).toEqual(await fleetFromRows());
  });
});

describe('readers of the per-account and service rollups', () => {
  const periods: [string, string | undefined][] = [
    ['2026-05-10T18:37:12.345Z', '2026-05-20T05:03:01.001Z'],
    ['2026-05-10T00:00:00.000Z', '2026-05-22T00:00:00.000Z'],
    ['2026-05-11T18:29:59.999Z', '2026-05-13T18:15:00.001Z'],
    ['2026-05-15T03:31:00.000Z', undefined],
  ];
  for (const timeZone of ZONES) {
    test(`every account's summary in ${timeZone} equals its rows' sums`, async () => {
      for (const account of accounts) {
        for (const [from, to] of periods) {
          const params = new URLSearchParams({ from, timeZone });
          if (to) params.set('to', to);
          const res = await call(app.url, 'GET', `/api/usage/summary?${params}`, { token: account.token });
          expect(res.status).toBe(200);
          const filter = `user_id = $1 and created_at >= $2::timestamptz and ($3::timestamptz is null or created_at < $3::timestamptz)`;
          const args = [account.userId, from, to ?? null];
          const days = await app.sql<RawSums & { day: string; model: string }>(
            `select to_char(created_at at time zone $4, 'YYYY-MM-DD') as day, model, ${SHOWN_SUMS}
             from usage_records where ${filter} group by 1, 2 order by 1, 2`,
            [...args, timeZone],
          );
          const [totals] = await app.sql<RawSums>(`select ${SHOWN_SUMS} from usage_records where ${filter}`, args);
          expect(days.length).toBeGreaterThan(0);
          expect({ from, to, days: res.body.days }).toEqual({ from, to, days: days.map((d) => ({ day: d.day, model: d.model, ...shown(d) })) });
          expect(res.body.totals).toEqual(shown(totals!));
        }
      }
    });
  }

  test('the list’s totals over cut quarter hours, by model or none, equal the rows’ sums', async () => {
    const cuts: [string | undefined, string | undefined][] = [
      ['2026-05-10T18:37:12.345Z', '2026-05-20T05:03:01.001Z'],
      ['2026-05-12T18:29:59.999Z', '2026-05-12T18:30:00.001Z'],
      [undefined, '2026-05-14T10:15:00.001Z'],
      [undefined, undefined],
    ];
    for (const account of accounts) {
      for (const [from, to] of cuts) {
        for (const model of [undefined, 'acme/large']) {
          const params = new URLSearchParams({ limit: '1' });
          if (from) params.set('from', from);
          if (to) params.set('to', to);
          if (model) params.set('model', model);
          const res = await call(app.url, 'GET', `/api/usage?${params}`, { token: account.token });
          expect(res.status).toBe(200);
          const [raw] = await app.sql<RawSums>(
            `select ${SHOWN_SUMS} from usage_records where user_id = $1
               and ($2::timestamptz is null or created_at >= $2::timestamptz) and ($3::timestamptz is null or created_at < $3::timestamptz)
               and ($4::text is null or model = $4::text)`,
            [account.userId, from ?? null, to ?? null, model ?? null],
          );
          expect({ from, to, model, totals: res.body.totals }).toEqual({ from, to, model, totals: shown(raw!) });
        }
      }
    }
  });

  test('operators’ daily figures, the users list’s month and an account’s detail equal the rows’ sums', async () => {
    const stats = await call(app.url, 'GET', '/api/admin/stats/daily?from=2026-05-09&to=2026-05-23', { token: admin.token });
    expect(stats.status).toBe(200);
    const groups = await app.sql<{ day: string; model: string; provider: string | null; priced: boolean; requests: string; spend: string; cost: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, model, provider_id as provider,
         provider_cost_nano is not null as priced, count(*)::text as requests, sum(cost_nano)::text as spend,
         coalesce(sum(provider_cost_nano), 0)::text as cost
       from usage_records where created_at >= '2026-05-09Z' and created_at < '2026-05-24Z' group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
    );
    expect(groups.length).toBeGreaterThan(20);
    expect(stats.body.byModelProvider).toEqual(
      groups.map((g) => ({
        day: g.day,
        model: g.model,
        provider: g.provider,
        requests: Number(g.requests),
        spend: nanoToUnits(BigInt(g.spend)),
        providerCost: g.priced ? nanoToUnits(BigInt(g.cost)) : null,
        margin: g.priced ? nanoToUnits(BigInt(g.spend) - BigInt(g.cost)) : null,
      })),
    );
    const daily = await app.sql<{ day: string; requests: string; spend: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::text as requests, sum(cost_nano)::text as spend
       from usage_records where created_at >= '2026-05-09Z' and created_at < '2026-05-24Z' group by 1 order by 1`,
    );
    expect(
      stats.body.days.filter((d: { requests: number }) => d.requests > 0).map((d: { day: string; requests: number; spend: number }) => [d.day, d.requests, d.spend]),
    ).toEqual(daily.map((d) => [d.day, Number(d.requests), nanoToUnits(BigInt(d.spend))]));

    const list = await call(app.url, 'GET', '/api/admin/users?limit=100', { token: admin.token });
    expect(list.status).toBe(200);
    const month = await app.sql<{ user_id: string; spend: string }>(
      `select user_id::text, coalesce(sum(cost_nano), 0)::text as spend from usage_records
       where created_at >= date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' group by 1`,
    );
    for (const account of accounts) {
      const listed = list.body.data.find((u: { id: string }) => u.id === account.userId);
      const spend = month.find((m) => m.user_id === account.userId)?.spend ?? '0';
      expect({ id: account.userId, spend: listed.spendThisMonth }).toEqual({ id: account.userId, spend: nanoToUnits(BigInt(spend)) });
    }
    expect(month.length).toBeGreaterThan(0);

    for (const account of accounts) {
      const detail = await call(app.url, 'GET', `/api/admin/users/${account.userId}`, { token: admin.token });
      expect(detail.status).toBe(200);
      const byModel = await app.sql<RawSums & { model: string }>(
        `select model, ${SHOWN_SUMS} from usage_records where user_id = $1 group by 1 order by sum(cost_nano) desc, 1`,
        [account.userId],
      );
      expect(detail.body.usageByModel).toEqual(byModel.map((m) => ({ model: m.model, ...shown(m) })));
      expect(detail.body.usageByProvider).toEqual(await usageByProviderFromRows(app, account.userId));
    }
  });
});

describe('the migration and corrections', () => {
  test('the migration’s backfill from the per-key rollups builds the same sums', async () => {
    const file = readdirSync(MIGRATIONS_FOLDER).find((f) => /_fleet_rollups\.sql$/.test(f));
    const statements = readFileSync(join(MIGRATIONS_FOLDER, file!), 'utf8').split('--> statement-breakpoint');
    const backfills = statements.filter((s) => /INSERT INTO "usage_rollups_(account|account_hourly|account_daily|operator_daily)"/.test(s));
    expect(backfills).toHaveLength(4);
    const before = await fleetRollups();
    expect(before.accountQuarters.length).toBeGreaterThan(before.accountDays.length);
    await app.sql('delete from usage_rollups_account');
    await app.sql('delete from usage_rollups_account_hourly');
    await app.sql('delete from usage_rollups_account_daily');
    await app.sql('delete from usage_rollups_operator_daily');
    // The raw rows of the older days gone (retention): the backfill reads the per-key sums, not the rows.
    await app.sql(`create table fleet_kept_rows as select * from usage_records where created_at < '2026-05-15Z'`);
    await app.sql(`delete from usage_records where created_at < '2026-05-15Z'`);
    for (const statement of backfills) await app.sql(statement);
    await app.sql(`insert into usage_records overriding system value select * from fleet_kept_rows`);
    await app.sql('drop table fleet_kept_rows');
    expect(await fleetRollups()).toEqual(before);
    expect(await fleetRollups()).toEqual(await fleetFromRows());
  });

  test('rows moved in time and re-priced by an UPDATE: the per-account and service sums follow', async () => {
    await app.sql(
      `update usage_records set created_at = created_at + interval '11 minutes', cost_nano = cost_nano + 3, provider_id = 'moved'
       where id % 5 = 0 and created_at < '2026-05-23Z'`,
    );
    await app.sql(`update usage_records set model = 'other/model' where id % 9 = 0`);
    expect(await fleetRollups()).toEqual(await fleetFromRows());
  });
});
