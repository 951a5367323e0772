// A member's monthly spend limit in an organisation (issue 44 point 5, limits brief points 1, 2 and 4): the
// keys a member created in the organisation spend the organisation's balance within the member's limit, on
// /v1 through the OpenAI SDK, under concurrency and across two instances; the limit's change applies at
// once; a new month starts with the whole limit; what each member spent this month is read per member.
// The organisation is made in the database (test/helpers/organization.ts) until its API exists.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { registerUser, startTestApp, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';
import { createOrganization, organizationKey } from '../helpers/organization';
import { keysSlot, memberSpentThisMonth } from '../../src/keys';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
/** What the fake reports for one request with max_tokens 5: 12 prompt + 5 completion tokens at 125 nano-units. */
const ONE = 17n * 125n;

let fake: FakeUpstream;
let app: TestApp;

beforeAll(async () => {
  fake = await startFakeUpstream();
  app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url } });
});
afterAll(async () => {
  await app?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const ask = (target: TestApp, key: string) =>
  openaiClient(target, key)
    .chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 })
    .catch((e) => e);
const served = (results: any[]) => results.filter((r) => r.object === 'chat.completion').length;
const keys = (target: TestApp) => target.instance.services.feature(keysSlot).keys;

/**
 * Asks one request after another until one is refused (at most `max`): how many were served, and the
 * refusal. A request reserves a bound of its tokens (more than the 17 it costs), so a limit serves the
 * requests whose reservation still fits, not exactly limit / cost of them.
 */
async function untilRefused(target: TestApp, key: string, max = 20): Promise<{ served: number; refusal: any }> {
  for (let n = 0; n < max; n++) {
    const answer = await ask(target, key);
    if (answer.object !== 'chat.completion') return { served: n, refusal: answer };
  }
  return { served: max, refusal: null };
}

/**
 * Settles the instances until the organisation holds no lease or claim: an answer reaches the client a moment
 * before its settlement, so one settleAll right after the last answer may find a request still settling.
 */
async function atRest(organizationId: string, instances: TestApp[] = [app]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    for (const instance of instances) await settleAll(instance);
    const held = await app.sql(`select 1 from member_leases where organization_id = $1 union all select 1 from balance_leases where user_id = $1`, [organizationId]);
    if (held.length === 0) return;
    await Bun.sleep(20);
  }
}

/** The member's unclaimed budget once every claim went back. */
async function memberBudget(organizationId: string, userId: string, instances: TestApp[] = [app]): Promise<bigint> {
  await atRest(organizationId, instances);
  const [row] = await app.sql<{ budget: string }>('select budget_nano::text as budget from organization_members where organization_id = $1 and user_id = $2', [
    organizationId,
    userId,
  ]);
  return BigInt(row!.budget);
}

describe('a member’s limit on /v1', () => {
  test('two members with limits spending at once each stop at their own limit with 402; the organisation pays; a member without a limit goes on', async () => {
    const [owner, alice, bob] = [await registerUser(app.url), await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: alice.userId, role: 'developer', spendLimitNano: 10n * ONE },
        { userId: bob.userId, role: 'developer', spendLimitNano: 4n * ONE },
      ],
      balanceNano: 1_000_000_000n,
    });
    const [aliceKey, bobKey, ownerKey] = [
      await organizationKey(app, org, alice.userId),
      await organizationKey(app, org, bob.userId),
      await organizationKey(app, org, owner.userId),
    ];
    const personal = await Promise.all([owner, alice, bob].map((u) => balanceNanoInDb(app, u.userId)));

    const [a, b, o] = await Promise.all([aliceKey, bobKey, ownerKey].map((k) => Promise.all(Array.from({ length: 24 }, () => ask(app, k.key)))));
    expect(served(a!)).toBeGreaterThanOrEqual(1);
    expect(served(a!)).toBeLessThanOrEqual(10);
    expect(served(b!)).toBeGreaterThanOrEqual(1);
    expect(served(b!)).toBeLessThanOrEqual(4);
    expect(served(o!)).toBe(24);
    for (const refused of [...a!, ...b!].filter((r) => r.object !== 'chat.completion')) {
      expect(refused.status).toBe(402);
      expect(refused.error?.type ?? refused.type).toBe('insufficient_balance');
      expect(refused.code).toBe('member_spend_limit');
      expect(refused.message).toMatch(/Достигнут лимит расходов участника организации \(.+ в месяц\)/);
    }
    // Asked again one by one (what concurrent reservations held back may serve one more): refused, naming
    // the member's limit.
    const again = await untilRefused(app, bobKey.key);
    expect(again.refusal.message).toContain('0,0000085\u00a0₽ в месяц');
    const bobServed = served(b!) + again.served;
    expect(bobServed).toBeLessThanOrEqual(4);

    await atRest(org);
    const total = BigInt(served(a!) + bobServed + served(o!)) * ONE;
    expect(await balanceNanoInDb(app, org)).toBe(1_000_000_000n - total);
    expect(await Promise.all([owner, alice, bob].map((u) => balanceNanoInDb(app, u.userId)))).toEqual(personal);
    // Claims returned: what is left of each budget is the limit less what was spent.
    expect(await memberBudget(org, alice.userId)).toBe(10n * ONE - BigInt(served(a!)) * ONE);
    expect(await memberBudget(org, bob.userId)).toBe(4n * ONE - BigInt(bobServed) * ONE);
    // The refusals are usage rows of the organisation, no tokens, no cost, saying why.
    const rows = await usageRows(app, org);
    const refusedRows = rows.filter((r) => r.status === 'refused_member_limit');
    expect(refusedRows).toHaveLength(48 - served(a!) - served(b!) + 1);
    expect(refusedRows.every((r) => r.api_key_id === aliceKey.id || r.api_key_id === bobKey.id)).toBe(true);
    expect(refusedRows.every((r) => BigInt(r.cost_nano as string) === 0n && r.total_tokens === 0)).toBe(true);
    expect(await unbalancedUsers(app)).toEqual([]);

    // What each member spent this month, for the members list.
    const spent = await memberSpentThisMonth(app.instance.services.database.db, org);
    expect(spent.get(alice.userId)).toBe(BigInt(served(a!)) * ONE);
    expect(spent.get(bob.userId)).toBe(BigInt(bobServed) * ONE);
    expect(spent.get(owner.userId)).toBe(24n * ONE);
  });

  test('the member limit counts every key the member created in the organisation, beside a key’s own limit', async () => {
    const [owner, dev] = [await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: dev.userId, role: 'developer', spendLimitNano: 6n * ONE },
      ],
      balanceNano: 1_000_000_000n,
    });
    const first = await organizationKey(app, org, dev.userId, 'first');
    const second = await organizationKey(app, org, dev.userId, 'second');
    // The second key's own limit is tighter still: it stops at its own limit first.
    await app.sql(
      `update api_keys set spend_limit_nano = $2::bigint, budget_nano = $2::bigint, limit_reset = 'day', budget_period_start = date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' where id = $1`,
      [second.id, (2n * ONE).toString()],
    );
    const viaSecond = await untilRefused(app, second.key);
    expect(viaSecond.served).toBeGreaterThanOrEqual(1);
    expect(viaSecond.refusal.code).toBe('key_spend_limit');
    const viaFirst = await untilRefused(app, first.key);
    expect(viaFirst.refusal.code).toBe('member_spend_limit');
    // The member's six requests' worth is shared by both keys.
    const spent = BigInt(viaFirst.served + viaSecond.served) * ONE;
    expect(spent).toBeLessThanOrEqual(6n * ONE);
    expect(spent).toBeGreaterThanOrEqual(4n * ONE);
    await settleAll(app);
    expect(await memberBudget(org, dev.userId)).toBe(6n * ONE - spent);
  });

  test('a new limit applies at once: raised, the member goes on; lowered to what was spent, refused; removed, no limit', async () => {
    const [owner, dev] = [await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: dev.userId, role: 'developer', spendLimitNano: 2n * ONE },
      ],
      balanceNano: 1_000_000_000n,
    });
    const key = await organizationKey(app, org, dev.userId);
    const before = await untilRefused(app, key.key);
    expect(before.served).toBeGreaterThanOrEqual(1);
    expect(before.refusal.code).toBe('member_spend_limit');

    expect(await keys(app).setMemberLimit(org, dev.userId, 8n * ONE)).toEqual({ before: 2n * ONE, after: 8n * ONE });
    expect((await ask(app, key.key)).object).toBe('chat.completion');
    await settleAll(app);
    const spent = BigInt(before.served + 1) * ONE;
    expect(await memberBudget(org, dev.userId)).toBe(8n * ONE - spent);

    // Lowered to what was spent: nothing left this month.
    await keys(app).setMemberLimit(org, dev.userId, spent);
    expect((await ask(app, key.key)).code).toBe('member_spend_limit');
    await keys(app).setMemberLimit(org, dev.userId, null);
    const results = await Promise.all(Array.from({ length: 10 }, () => ask(app, key.key)));
    expect(served(results)).toBe(10);
    // Not a member of it: nothing to change.
    expect(await keys(app).setMemberLimit(org, crypto.randomUUID(), 1n)).toBeNull();
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('keys handed to another member count against that member’s limit at once (memberChanged)', async () => {
    const [owner, leaving, staying] = [await registerUser(app.url), await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: leaving.userId, role: 'developer' },
        { userId: staying.userId, role: 'developer', spendLimitNano: 0n },
      ],
      balanceNano: 1_000_000_000n,
    });
    const key = await organizationKey(app, org, leaving.userId);
    expect((await ask(app, key.key)).object).toBe('chat.completion');
    // The organisations feature hands the key over, then tells the caches.
    await app.sql('update api_keys set created_by = $2 where id = $1', [key.id, staying.userId]);
    await keys(app).memberChanged(org, staying.userId);
    const refused = await ask(app, key.key);
    expect(refused.code).toBe('member_spend_limit');
    expect(refused.message).toContain('0\u00a0₽ в месяц');
  });

  test('a claim of an instance that stopped renewing it goes back to the member’s budget when it expires', async () => {
    const [owner, dev] = [await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: dev.userId, role: 'developer', spendLimitNano: 10n * ONE },
      ],
      balanceNano: 1_000_000_000n,
    });
    // As a crashed instance leaves it: 6 of the 10 claimed, the budget holding the other 4.
    await app.sql('update organization_members set budget_nano = $3::bigint where organization_id = $1 and user_id = $2', [org, dev.userId, (4n * ONE).toString()]);
    await app.sql(
      `insert into member_leases (organization_id, user_id, instance_id, period_start, amount_nano, expires_at)
       values ($1, $2, 'crashed', (select budget_period_start from organization_members where organization_id = $1 and user_id = $2),
               $3::bigint, now() - interval '1 second')`,
      [org, dev.userId, (6n * ONE).toString()],
    );
    await app.instance.services.billing.reapExpiredLeases();
    expect(await app.sql('select 1 from member_leases where organization_id = $1', [org])).toHaveLength(0);
    expect(await memberBudget(org, dev.userId)).toBe(10n * ONE);
  });

  test('a new month starts with the whole limit', async () => {
    const [owner, dev] = [await registerUser(app.url), await registerUser(app.url)];
    const org = await createOrganization(app, {
      members: [
        { userId: owner.userId, role: 'owner' },
        { userId: dev.userId, role: 'developer', spendLimitNano: 2n * ONE },
      ],
      balanceNano: 1_000_000_000n,
    });
    const key = await organizationKey(app, org, dev.userId);
    const first = await untilRefused(app, key.key);
    expect(first.served).toBeGreaterThanOrEqual(1);
    await settleAll(app);
    expect(await memberBudget(org, dev.userId)).toBe(2n * ONE - BigInt(first.served) * ONE);
    // As when the month is over: the budget belongs to the month before.
    await app.sql(
      `update organization_members set budget_period_start = (date_trunc('month', now() at time zone 'UTC') - interval '1 month') at time zone 'UTC'
       where organization_id = $1 and user_id = $2`,
      [org, dev.userId],
    );
    const next = await untilRefused(app, key.key);
    expect(next.served).toBe(first.served);
    expect(next.refusal.code).toBe('member_spend_limit');
  });

  test.skipIf(!onPostgres)('two instances on one database cannot overspend a member’s limit; a change reaches the other instance at once', async () => {
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: fake.url } });
    try {
      const [owner, dev] = [await registerUser(app.url), await registerUser(app.url)];
      const org = await createOrganization(app, {
        members: [
          { userId: owner.userId, role: 'owner' },
          { userId: dev.userId, role: 'developer', spendLimitNano: 10n * ONE },
        ],
        balanceNano: 1_000_000_000n,
      });
      const one = await organizationKey(app, org, dev.userId, 'one');
      const two = await organizationKey(app, org, dev.userId, 'two');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? ask(app, one.key) : ask(other, two.key))));
      const n = served(results);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(10);
      await settleAll(app);
      await settleAll(other);
      expect(await memberBudget(org, dev.userId, [app, other])).toBe(10n * ONE - BigInt(n) * ONE);
      expect((await memberSpentThisMonth(app.instance.services.database.db, org)).get(dev.userId)).toBe(BigInt(n) * ONE);

      // Used up on both; raised on this instance, the other serves at once (its cached key was dropped).
      await keys(app).setMemberLimit(org, dev.userId, BigInt(n) * ONE);
      expect((await ask(other, two.key)).code).toBe('member_spend_limit');
      await keys(app).setMemberLimit(org, dev.userId, BigInt(n + 4) * ONE);
      const deadline = Date.now() + 5000;
      let answer = await ask(other, two.key);
      while (answer.object !== 'chat.completion' && Date.now() < deadline) {
        await Bun.sleep(50);
        answer = await ask(other, two.key);
      }
      expect(answer.object).toBe('chat.completion');
      expect(await unbalancedUsers(app)).toEqual([]);
    } finally {
      await other.stop();
    }
  });
});
