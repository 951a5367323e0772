// Usage rollups (usage_rollups per quarter hour, usage_rollups_daily per UTC day): kept by the settlement
// statement itself, so after any mix of writes they equal the rows summed by quarter hour and by day; every figure read from them (the summary per day in any time
// zone, the list's totals over a from/to that cuts quarter hours, operators' daily figures and an
// account's detail) equals the same sums taken over the raw rows; the migration's backfill rebuilds them
// exactly; and a batch the database refuses leaves neither rows nor sums.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate';
import { serialize, writeBatchStatement, type Pending } from '../../src/gateway/billing/rows';
import type { UsageFacts, UsageStatus } from '../../src/gateway/billing/types';
import { nanoToUnits } from '../../src/money';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, type TestApp } from '../helpers/app';
import { openaiClient, setBalanceNano, settleAll, unbalancedUsers, usageByProviderFromRows } from '../helpers/gateway';

setDefaultTimeout(120_000);

const ADMIN = 'rollups-admin@example.com';
// America/Santiago moves its clocks at local midnight (back on April 5, 2026): a UTC day whose split
// cannot be shown is read from its quarter hours.
const ZONES = ['UTC', 'Europe/Moscow', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Eucla', 'America/St_Johns', 'Pacific/Chatham', 'America/Santiago'];
// Local midnights of those zones, in UTC offsets (both sides of DST where there is one).
const OFFSETS_MIN = [0, 180, 330, 345, 525, -210, -150, 765, 825, -180, -240];
const DAY_MS = 86_400_000;
/** The written rows span March 1 – April 12, 2026: St John's starts DST on March 8, Chatham ends it on April 5. */
const FIRST_DAY = Date.UTC(2026, 2, 1);
const DAYS = 42;

let fake: FakeUpstream;
let app: TestApp;
let main: { token: string; userId: string };
let other: { token: string; userId: string };
let admin: { token: string };
let keys: { key: string; id: string }[];

/** A deterministic generator, so a failure can be run again as it was. */
function random(seed: number) {
  let x = seed >>> 0;
  return () => {
    x = (x * 1664525 + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function pending(facts: UsageFacts, createdAt: Date, promptCostNano: bigint, completionCostNano: bigint, providerCostNano: bigint | null): Pending {
  return {
    facts,
    promptCostNano,
    completionCostNano,
    costNano: promptCostNano + completionCostNano,
    providerCostNano,
    leaseId: null,
    keyLeaseId: null,
    memberLeaseId: null,
    member: null,
    overage: null,
    createdAt,
    json: undefined,
    segment: null,
  };
}

/**
 * Settlements at chosen instants, written by the settlement writer's own statement (no lease: the charge
 * comes from the balance, which was credited first, so the books still balance).
 */
async function writeAt(instants: number[], seed: number) {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const statuses: UsageStatus[] = ['ok', 'ok', 'ok', 'client_closed', 'upstream_error'];
  const rows = instants.map((t, i) => {
    const user = next() < 0.8 ? main : other;
    const agent = next() < 0.15;
    const prompt = Math.floor(next() * 500);
    const completion = Math.floor(next() * 300);
    const facts: UsageFacts = {
      userId: user.userId,
      apiKeyId: agent ? null : user === main ? pick([keys[0]!.id, keys[1]!.id, null]) : null,
      agentId: agent ? pick([AGENT_A, AGENT_B]) : null,
      requestId: `seeded-${seed}-${i}`,
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
      attempts: pick([null, 1, 1, 2, 3]),
    };
    const priced = next() < 0.5;
    return pending(facts, new Date(t), BigInt(prompt) * 125n, BigInt(completion) * 250n, priced ? BigInt(prompt + completion) * 60n : null);
  });
  for (let from = 0; from < rows.length; from += 300) {
    const batch = rows.slice(from, from + 300).map((p) => serialize(p, p.costNano, 0n));
    await app.sql(writeBatchStatement, [`[${batch.join(',')}]`, 60]);
  }
}
const AGENT_A = randomUUID();
const AGENT_B = randomUUID();

/** The instants of interest: every zone's midnight of every day, a millisecond either side, and random ones. */
function chosenInstants(): number[] {
  const instants: number[] = [];
  const next = random(7);
  for (let d = 0; d < DAYS; d++) {
    for (const offset of OFFSETS_MIN) {
      const midnight = FIRST_DAY + d * DAY_MS - offset * 60_000;
      instants.push(midnight - 1, midnight, midnight + 1 + Math.floor(next() * 60_000));
    }
    for (let i = 0; i < 6; i++) instants.push(FIRST_DAY + d * DAY_MS + Math.floor(next() * DAY_MS));
  }
  return instants;
}

const SUMS = `count(*)::text as requests, coalesce(sum(prompt_tokens), 0)::text as "promptTokens",
  coalesce(sum(completion_tokens), 0)::text as "completionTokens", coalesce(sum(total_tokens), 0)::text as "totalTokens",
  coalesce(sum(cost_nano), 0)::text as cost, coalesce(sum(prompt_cost_nano), 0)::text as "promptCost",
  coalesce(sum(completion_cost_nano), 0)::text as "completionCost", coalesce(sum(unpaid_nano), 0)::text as unpaid`;

type RawSums = Record<'requests' | 'promptTokens' | 'completionTokens' | 'totalTokens' | 'cost' | 'promptCost' | 'completionCost' | 'unpaid', string>;

/** Raw SQL sums as the API shows them (counts as numbers, money in currency units). */
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

/** The rollups as the rows say they must be: every column, in one order. */
const ROLLUP_COLUMNS = `user_id::text, bucket, coalesce(api_key_id::text, '-') as key, coalesce(agent_id::text, '-') as agent, model,
  endpoint, coalesce(provider_id, '-') as provider, requests::text, failed_requests::text, retried_requests::text, attempts::text,
  prompt_tokens::text, completion_tokens::text, total_tokens::text, cost_nano::text, prompt_cost_nano::text,
  completion_cost_nano::text, unpaid_nano::text, priced_requests::text, priced_cost_nano::text, provider_cost_nano::text`;
const ORDER = `order by 1, 2, 3, 4, 5, 6, 7`;

/** Both rollup tables, as they are. */
async function rollupsNow() {
  return {
    quarters: await app.sql(`select ${ROLLUP_COLUMNS} from usage_rollups ${ORDER}`),
    days: await app.sql(`select ${ROLLUP_COLUMNS} from usage_rollups_daily ${ORDER}`),
  };
}

/** Both rollup tables, as the rows say they must be. */
async function rollupsFromRows() {
  return { quarters: await rowsBinned('15 minutes'), days: await rowsBinned('1 day') };
}

async function rowsBinned(width: string) {
  return app.sql(`select ${ROLLUP_COLUMNS} from (
      select user_id, date_bin('${width}', created_at, timestamptz '2000-01-01Z') as bucket, api_key_id, agent_id, model,
        endpoint, provider_id, count(*) as requests, count(*) filter (where status <> 'ok') as failed_requests,
        count(*) filter (where attempts > 1) as retried_requests, coalesce(sum(attempts), 0) as attempts,
        sum(prompt_tokens) as prompt_tokens, sum(completion_tokens) as completion_tokens, sum(total_tokens) as total_tokens,
        sum(cost_nano) as cost_nano, sum(prompt_cost_nano) as prompt_cost_nano, sum(completion_cost_nano) as completion_cost_nano,
        sum(unpaid_nano) as unpaid_nano, count(provider_cost_nano) as priced_requests,
        coalesce(sum(case when provider_cost_nano is null then 0 else cost_nano end), 0) as priced_cost_nano,
        coalesce(sum(provider_cost_nano), 0) as provider_cost_nano
      from usage_records group by 1, 2, 3, 4, 5, 6, 7) r ${ORDER}`);
}

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, ADMIN_EMAILS: ADMIN } });
  main = await registerUser(app.url);
  other = await registerUser(app.url);
  admin = await registerAdmin(app, ADMIN);
  keys = [await createApiKey(app.url, main.token, 'one'), await createApiKey(app.url, main.token, 'two')];
  await setBalanceNano(app, main.userId, 1_000_000_000_000n);
  await setBalanceNano(app, other.userId, 1_000_000_000_000n);

  // Real requests through /v1: two keys, several models and endpoints, streamed or not, some failing.
  const next = random(11);
  const requests: Promise<unknown>[] = [];
  for (let i = 0; i < 36; i++) {
    const client = openaiClient(app, keys[i % 2]!.key);
    const kind = Math.floor(next() * 5);
    const model = ['acme/chat', 'acme/large', 'fake/usage-30-40', 'fake/error-500'][Math.floor(next() * 4)]!;
    const messages = [{ role: 'user' as const, content: `вопрос ${i}` }];
    if (kind === 0) requests.push(client.embeddings.create({ model: 'acme/chat', input: `текст ${i}` }));
    else if (kind === 1) requests.push(client.responses.create({ model: 'acme/chat', input: `вопрос ${i}` }));
    else if (kind === 2) {
      requests.push(
        (async () => {
          const stream = await client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
          for await (const _ of stream) void _;
        })(),
      );
    } else requests.push(client.chat.completions.create({ model, messages, max_tokens: 20 }));
  }
  await Promise.allSettled(requests);
  await writeAt(chosenInstants(), 3);
  await settleAll(app);
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
});

describe('the rollups are the rows summed', () => {
  test('after requests through /v1 and settlements at every zone’s midnight: no drift, the books balance', async () => {
    const [count] = await app.sql<{ n: string; endpoints: string; statuses: string }>(
      `select count(*)::text as n, count(distinct endpoint)::text as endpoints, count(distinct status)::text as statuses from usage_records`,
    );
    expect(Number(count!.n)).toBeGreaterThan(1000);
    expect(Number(count!.endpoints)).toBe(3);
    expect(Number(count!.statuses)).toBeGreaterThanOrEqual(3);
    expect(await rollupsNow()).toEqual(await rollupsFromRows());
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('the migration’s backfill, run again on the same rows, builds the same rollups', async () => {
    const file = readdirSync(MIGRATIONS_FOLDER).find((f) => /_usage_rollups\.sql$/.test(f));
    const statements = readFileSync(join(MIGRATIONS_FOLDER, file!), 'utf8').split('--> statement-breakpoint');
    const quarters = statements.find((s) => /INSERT INTO "usage_rollups"/.test(s));
    const days = statements.find((s) => /INSERT INTO "usage_rollups_daily"/.test(s));
    const before = await rollupsNow();
    expect(before.quarters.length).toBeGreaterThan(before.days.length);
    await app.sql('delete from usage_rollups');
    await app.sql('delete from usage_rollups_daily');
    expect(await rollupsNow()).toEqual({ quarters: [], days: [] });
    await app.sql(quarters!);
    await app.sql(days!);
    expect(await rollupsNow()).toEqual(before);
  });
});

describe('a correction of rows by hand moves their sums', () => {
  test('rows moved in time and re-priced by an UPDATE: the rollups follow, emptied sums go', async () => {
    await app.sql(
      `update usage_records set created_at = created_at + interval '7 minutes', cost_nano = cost_nano + 5, provider_id = 'moved'
       where id % 7 = 0 and created_at < '2026-04-13Z'`,
    );
    await app.sql(`update usage_records set status = 'ok', attempts = 1 where id % 11 = 0`);
    expect(await rollupsNow()).toEqual(await rollupsFromRows());
  });
});

describe('readers sum the rollups and the cut quarter hours', () => {
  const periods: [string, string | undefined][] = [
    ['2026-03-02T18:37:12.345Z', '2026-04-08T05:03:01.001Z'],
    ['2026-03-01T00:00:00.000Z', '2026-04-13T00:00:00.000Z'],
    ['2026-03-07T21:14:59.999Z', '2026-03-09T03:30:00.001Z'],
    ['2026-04-04T10:00:00.001Z', undefined],
  ];

  for (const timeZone of ZONES) {
    test(`the summary per day, per model and in all equals the rows’ sums in ${timeZone}`, async () => {
      for (const [from, to] of periods) {
        for (const key of [undefined, keys[0]!.id]) {
          const params = new URLSearchParams({ from, timeZone });
          if (to) params.set('to', to);
          if (key) params.set('keyId', key);
          const res = await call(app.url, 'GET', `/api/usage/summary?${params}`, { token: main.token });
          expect(res.status).toBe(200);
          const filter = `user_id = $1 and created_at >= $2::timestamptz and ($3::timestamptz is null or created_at < $3::timestamptz)
            and ($4::uuid is null or api_key_id = $4::uuid)`;
          const args = [main.userId, from, to ?? null, key ?? null];
          const days = await app.sql<RawSums & { day: string; model: string }>(
            `select to_char(created_at at time zone $5, 'YYYY-MM-DD') as day, model, ${SUMS}
             from usage_records where ${filter} group by 1, 2 order by 1, 2`,
            [...args, timeZone],
          );
          const models = await app.sql<RawSums & { model: string }>(`select model, ${SUMS} from usage_records where ${filter} group by 1 order by 1`, args);
          const [totals] = await app.sql<RawSums>(`select ${SUMS} from usage_records where ${filter}`, args);
          expect(days.length).toBeGreaterThan(0);
          expect(res.body.days).toEqual(days.map((d) => ({ day: d.day, model: d.model, ...shown(d) })));
          const byModel = (list: { model: string }[]) => [...list].sort((a, b) => a.model.localeCompare(b.model));
          expect(byModel(res.body.models)).toEqual(byModel(models.map((m) => ({ model: m.model, ...shown(m) }))));
          expect(res.body.totals).toEqual(shown(totals!));
        }
      }
    });
  }

  test('the list’s totals over a from/to that cuts quarter hours equal the rows’ sums', async () => {
    const cuts: [string | undefined, string | undefined][] = [
      ['2026-03-02T18:37:12.345Z', '2026-04-08T05:03:01.001Z'],
      // Both ends in one quarter hour, in adjacent ones, and on bucket edges.
      ['2026-03-05T18:30:00.000Z', '2026-03-05T18:44:59.999Z'],
      ['2026-03-05T18:29:59.999Z', '2026-03-05T18:30:00.001Z'],
      ['2026-03-05T18:20:00.000Z', '2026-03-05T18:40:00.000Z'],
      ['2026-03-05T18:15:00.000Z', '2026-03-05T18:45:00.000Z'],
      [undefined, '2026-03-20T10:15:00.001Z'],
      ['2026-03-20T10:14:59.999Z', undefined],
      [undefined, undefined],
    ];
    for (const [from, to] of cuts) {
      for (const [key, model] of [
        [undefined, undefined],
        [keys[1]!.id, undefined],
        [undefined, 'acme/large'],
      ] as const) {
        const params = new URLSearchParams({ limit: '1' });
        if (from) params.set('from', from);
        if (to) params.set('to', to);
        if (key) params.set('keyId', key);
        if (model) params.set('model', model);
        const res = await call(app.url, 'GET', `/api/usage?${params}`, { token: main.token });
        expect([params.toString(), res.status]).toEqual([params.toString(), 200]);
        const [raw] = await app.sql<RawSums>(
          `select ${SUMS} from usage_records where user_id = $1
             and ($2::timestamptz is null or created_at >= $2::timestamptz) and ($3::timestamptz is null or created_at < $3::timestamptz)
             and ($4::uuid is null or api_key_id = $4::uuid) and ($5::text is null or model = $5::text)`,
          [main.userId, from ?? null, to ?? null, key ?? null, model ?? null],
        );
        expect({ from, to, key, model, totals: res.body.totals }).toEqual({ from, to, key, model, totals: shown(raw!) });
      }
    }
  });

  test('operators’ daily figures and an account’s detail equal the rows’ sums', async () => {
    const stats = await call(app.url, 'GET', '/api/admin/stats/daily?from=2026-03-01&to=2026-04-12', { token: admin.token });
    expect(stats.status).toBe(200);
    const daily = await app.sql<{ day: string; requests: string; spend: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::text as requests, sum(cost_nano)::text as spend
       from usage_records where created_at >= '2026-03-01Z' and created_at < '2026-04-13Z' group by 1 order by 1`,
    );
    const shownDays = stats.body.days.filter((d: { requests: number }) => d.requests > 0);
    expect(shownDays.map((d: { day: string; requests: number; spend: number }) => [d.day, d.requests, d.spend])).toEqual(
      daily.map((d) => [d.day, Number(d.requests), nanoToUnits(BigInt(d.spend))]),
    );
    const groups = await app.sql<{ day: string; model: string; provider: string | null; priced: boolean; requests: string; spend: string; cost: string }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, model, provider_id as provider,
         provider_cost_nano is not null as priced, count(*)::text as requests, sum(cost_nano)::text as spend,
         coalesce(sum(provider_cost_nano), 0)::text as cost
       from usage_records where created_at >= '2026-03-01Z' and created_at < '2026-04-13Z' group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
    );
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

    const detail = await call(app.url, 'GET', `/api/admin/users/${main.userId}`, { token: admin.token });
    expect(detail.status).toBe(200);
    expect(detail.body.usageByProvider).toEqual(await usageByProviderFromRows(app, main.userId));
    const byModel = await app.sql<RawSums & { model: string }>(
      `select model, ${SUMS} from usage_records where user_id = $1 group by 1 order by sum(cost_nano) desc, 1`,
      [main.userId],
    );
    expect(detail.body.usageByModel).toEqual(byModel.map((m) => ({ model: m.model, ...shown(m) })));
  });
});

describe('the rollup is written in the same statement as the rows', () => {
  test('a batch the database refuses leaves neither its rows nor their sums', async () => {
    // The database refuses a row of one model (as it would a malformed one); the writer then writes that
    // settlement with its texts made safe (model "invalid"), as it does for any refused row.
    await app.sql(`create function refuse_marked_usage() returns trigger language plpgsql as $$
      begin
        if new.model = 'refused/by-rows' then raise exception 'refused'; end if;
        return new;
      end $$`);
    await app.sql(`create trigger refuse_marked_usage before insert on usage_records for each row execute function refuse_marked_usage()`);
    await app.sql(`create function refuse_marked_rollup() returns trigger language plpgsql as $$
      begin
        if new.model = 'refused/by-rollups' then raise exception 'refused'; end if;
        return new;
      end $$`);
    await app.sql(`create trigger refuse_marked_rollup before insert on usage_rollups for each row execute function refuse_marked_rollup()`);
    try {
      const client = openaiClient(app, keys[0]!.key);
      for (const model of ['refused/by-rows', 'refused/by-rollups']) {
        await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'привет' }], max_tokens: 5 });
      }
      await settleAll(app);
      const marked = await app.sql<{ rows: string; rollups: string; invalid: string }>(
        `select (select count(*) from usage_records where model like 'refused/%')::text as rows,
                (select count(*) from usage_rollups where model like 'refused/%')::text
                  || '/' || (select count(*) from usage_rollups_daily where model like 'refused/%')::text as rollups,
                (select coalesce(sum(requests), 0) from usage_rollups where model = 'invalid')::text as invalid`,
      );
      expect(marked).toEqual([{ rows: '0', rollups: '0/0', invalid: '2' }]);
      expect(await rollupsNow()).toEqual(await rollupsFromRows());
      expect(await unbalancedUsers(app)).toEqual([]);
    } finally {
      await app.sql('drop trigger refuse_marked_usage on usage_records');
      await app.sql('drop trigger refuse_marked_rollup on usage_rollups');
    }
  });
});
