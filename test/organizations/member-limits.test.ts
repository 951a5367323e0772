// A member's monthly spend limit in an organisation (issue 44 point 5, limits brief points 1, 2 and 4): the
// keys a member created in the organisation spend the organisation's balance within the member's limit, on
// /v1 through the OpenAI SDK, under concurrency and across two instances; the limit set by an owner or an
// admin (PATCH /api/organizations/{id}/members/{userId}) applies at once; keys handed over when a member is
// removed count against the new holder's limit; a new month starts with the whole limit; the members list
// reads what each member spent this month. Organisations, members and keys are made over the API.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { balanceNanoInDb, setBalanceNano, openaiClient, settleAll, unbalancedUsers, usageRows } from '../helpers/gateway';
import { inOrganization, joinAs, newOrganization, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
/** What the fake reports for one request with max_tokens 5: 12 prompt + 5 completion tokens at 125 nano-units. */
const ONE = 17n * 125n;
/** Nano-units as the API's currency units (the decimal text read as a number, as the server renders it). */
const units = (nano: bigint) => Number(`${nano}e-9`);

let setup: OrganizationsSetup;
let app: TestApp;
useOrganizationsApp((s) => {
  setup = s;
  app = s.app;
});

const ask = (target: TestApp, key: string) =>
  openaiClient(target, key)
    .chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 })
    .catch((e) => e);
const served = (results: any[]) => results.filter((r) => r.object === 'chat.completion').length;

/** An organisation with a large balance made by its owner over the API. */
async function fundedOrganization() {
  const { owner, org } = await newOrganization(app);
  await setBalanceNano(app, org.id, 1_000_000_000n);
  return { owner, org: org.id };
}

/** A member joined by invitation as a developer with this monthly limit (nano; null: none). */
const developer = (ownerToken: string, org: string, limitNano: bigint | null = null) =>
  joinAs(setup, ownerToken, org, 'developer', limitNano === null ? null : units(limitNano));

/** A key the member creates in the organisation (the full key, shown once, and its id). */
const keyOf = async (member: { token: string }, org: string, name = 'org key', limits: { spendLimit?: number; limitReset?: 'day' } = {}) =>
  okBody(await inOrganization(app, member.token, org).keys.create({ name, ...limits }));

/** Sets a member's limit as the owner or an admin does (null removes it). */
const setLimit = (actorToken: string, org: string, userId: string, limitNano: bigint | null) =>
  rest(app.url, actorToken).organizations.updateMember({ id: org, userId, spendLimit: limitNano === null ? null : units(limitNano) });

/** What the members list says each member spent this month. */
async function spentThisMonth(ownerToken: string, org: string): Promise<Map<string, number>> {
  const { members } = okBody(await rest(app.url, ownerToken).organizations.members({ id: org }));
  return new Map(members.map((m) => [m.userId, m.spentThisMonth]));
}

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
    const { owner, org } = await fundedOrganization();
    const alice = await developer(owner.token, org, 10n * ONE);
    const bob = await developer(owner.token, org, 4n * ONE);
    const [aliceKey, bobKey, ownerKey] = [await keyOf(alice, org), await keyOf(bob, org), await keyOf(owner, org)];
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
    const spent = await spentThisMonth(owner.token, org);
    expect(spent.get(alice.userId)).toBe(units(BigInt(served(a!)) * ONE));
    expect(spent.get(bob.userId)).toBe(units(BigInt(bobServed) * ONE));
    expect(spent.get(owner.userId)).toBe(units(24n * ONE));
  });

  test('the member limit counts every key the member created in the organisation, beside a key’s own limit', async () => {
    const { owner, org } = await fundedOrganization();
    const dev = await developer(owner.token, org, 6n * ONE);
    const first = await keyOf(dev, org, 'first');
    // The second key's own limit is tighter still: it stops at its own limit first.
    const second = await keyOf(dev, org, 'second', { spendLimit: units(2n * ONE), limitReset: 'day' });
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

  test('a new limit set over the API applies at once: raised, the member goes on; lowered to what was spent, refused; removed, no limit', async () => {
    const { owner, org } = await fundedOrganization();
    const admin = await joinAs(setup, owner.token, org, 'admin');
    const dev = await developer(owner.token, org, 2n * ONE);
    const key = await keyOf(dev, org);
    const before = await untilRefused(app, key.key);
    expect(before.served).toBeGreaterThanOrEqual(1);
    expect(before.refusal.code).toBe('member_spend_limit');

    // Raised by the owner: the answer and the members list show the new limit.
    expect(okBody(await setLimit(owner.token, org, dev.userId, 8n * ONE))).toMatchObject({ userId: dev.userId, role: 'developer', spendLimit: units(8n * ONE) });
    const listed = okBody(await rest(app.url, owner.token).organizations.members({ id: org })).members.find((m) => m.userId === dev.userId);
    expect(listed!.spendLimit).toBe(units(8n * ONE));
    expect((await ask(app, key.key)).object).toBe('chat.completion');
    await settleAll(app);
    const spent = BigInt(before.served + 1) * ONE;
    expect(await memberBudget(org, dev.userId)).toBe(8n * ONE - spent);

    // Lowered by an admin to what was spent: nothing left this month.
    expect(okBody(await setLimit(admin.token, org, dev.userId, spent)).spendLimit).toBe(units(spent));
    expect((await ask(app, key.key)).code).toBe('member_spend_limit');
    expect(okBody(await setLimit(admin.token, org, dev.userId, null)).spendLimit).toBeNull();
    const results = await Promise.all(Array.from({ length: 10 }, () => ask(app, key.key)));
    expect(served(results)).toBe(10);
    // Not a member of it: nothing to change. A developer changes no limit, not even their own.
    expect((await setLimit(owner.token, org, crypto.randomUUID(), 1n)).status).toBe(404);
    expect((await setLimit(dev.token, org, dev.userId, 100n * ONE)).status).toBe(403);
    expect(await unbalancedUsers(app)).toEqual([]);
  });

  test('keys handed to another member when their creator is removed count against that member’s limit at once', async () => {
    const { owner, org } = await fundedOrganization();
    const leaving = await developer(owner.token, org);
    const staying = await developer(owner.token, org, 0n);
    const key = await keyOf(leaving, org);
    expect((await ask(app, key.key)).object).toBe('chat.completion');
    const removed = okBody(
      await rest(app.url, owner.token).organizations.removeMember({ id: org, userId: leaving.userId, keys: 'transfer', transferTo: staying.userId }),
    );
    expect(removed.keysTransferred).toBe(1);
    const refused = await ask(app, key.key);
    expect(refused.code).toBe('member_spend_limit');
    expect(refused.message).toContain('0\u00a0₽ в месяц');
  });

  test('a claim of an instance that stopped renewing it goes back to the member’s budget when it expires', async () => {
    const { owner, org } = await fundedOrganization();
    const dev = await developer(owner.token, org, 10n * ONE);
    // As a crashed instance leaves it: 6 of the 10 claimed this month, the budget holding the other 4.
    await app.sql(
      `update organization_members set budget_nano = $3::bigint, budget_period_start = date_trunc('month', now() at time zone 'UTC') at time zone 'UTC'
       where organization_id = $1 and user_id = $2`,
      [org, dev.userId, (4n * ONE).toString()],
    );
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
    const { owner, org } = await fundedOrganization();
    const dev = await developer(owner.token, org, 2n * ONE);
    const key = await keyOf(dev, org);
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
    // A second instance on the same database, calling the same upstream.
    const other = await startTestApp({ database: app.database, env: { UPSTREAM_BASE_URL: setup.fake.url, UPSTREAM_API_KEY: 'upstream-secret' } });
    try {
      const { owner, org } = await fundedOrganization();
      const dev = await developer(owner.token, org, 10n * ONE);
      const one = await keyOf(dev, org, 'one');
      const two = await keyOf(dev, org, 'two');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? ask(app, one.key) : ask(other, two.key))));
      const n = served(results);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(10);
      await settleAll(app);
      await settleAll(other);
      expect(await memberBudget(org, dev.userId, [app, other])).toBe(10n * ONE - BigInt(n) * ONE);
      expect((await spentThisMonth(owner.token, org)).get(dev.userId)).toBe(units(BigInt(n) * ONE));

      // Used up on both; raised on this instance, the other serves at once (its cached key was dropped).
      okBody(await setLimit(owner.token, org, dev.userId, BigInt(n) * ONE));
      expect((await ask(other, two.key)).code).toBe('member_spend_limit');
      okBody(await setLimit(owner.token, org, dev.userId, BigInt(n + 4) * ONE));
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
