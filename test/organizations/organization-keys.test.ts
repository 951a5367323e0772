// An organisation's keys over HTTP and /v1 (the official SDK): a key belongs to the organisation and names its
// creator, spends from the organisation's balance (the person's own stays as it was), a developer reaches only
// their own keys and usage, and removing a member revokes their keys at once or hands them to another member.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import OpenAI from 'openai';
import { call, type TestApp } from '../helpers/app';
import { balanceNanoInDb, openaiClient, setBalanceNano, settleAll, START_NANO } from '../helpers/gateway';
import { inOrganization, joinAs, newOrganization, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(60_000);

let setup: OrganizationsSetup;
let app: TestApp;
useOrganizationsApp((s) => {
  setup = s;
  app = s.app;
});

const messages = [{ role: 'user' as const, content: 'Привет!' }];
const TEN = 10_000_000_000n;
const today = new Date().toISOString().slice(0, 10);

/** An organisation with 10.00 on its balance, an admin and a developer, each with a key made in it. */
async function fundedOrganization() {
  const { owner, org } = await newOrganization(app);
  await setBalanceNano(app, org.id, TEN);
  const admin = await joinAs(setup, owner.token, org.id, 'admin');
  const dev = await joinAs(setup, owner.token, org.id, 'developer');
  const devKey = okBody(await inOrganization(app, dev.token, org.id).keys.create({ name: 'dev key' }));
  const adminKey = okBody(await inOrganization(app, admin.token, org.id).keys.create({ name: 'admin key' }));
  return { owner, org, admin, dev, devKey, adminKey };
}

async function refusedOnV1(key: string): Promise<number> {
  try {
    await openaiClient(app, key).chat.completions.create({ model: 'acme/chat', messages });
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

describe("an organisation's keys", () => {
  test("a developer's key spends from the organisation's balance; the person's own balance and bonus stay", async () => {
    const { owner, org, dev, devKey } = await fundedOrganization();
    expect(devKey.createdBy).toBe(dev.userId);
    const [row] = await app.sql<{ user_id: string; created_by: string }>('select user_id, created_by from api_keys where id = $1', [devKey.id]);
    expect(row).toEqual({ user_id: org.id, created_by: dev.userId });

    const answer = await openaiClient(app, devKey.key).chat.completions.create({ model: 'acme/chat', messages });
    expect(answer.choices[0]!.message.content).toBeTruthy();
    await settleAll(app);
    const orgBalance = await balanceNanoInDb(app, org.id);
    expect(orgBalance).toBeLessThan(TEN);
    expect(await balanceNanoInDb(app, dev.userId)).toBe(START_NANO);
    expect(okBody(await rest(app.url, dev.token).account.balance()).balance).toBe(3);

    // The organisation's statement (its owner, in the organisation) shows the spending; the ledger balances.
    const statement = okBody(await inOrganization(app, owner.token, org.id).statement.get({ from: today, to: today, timeZone: 'UTC' }));
    expect(statement.debits).toBeLessThan(0);
    expect(statement.closing).toBe(Number(orgBalance) / 1e9);
    const [ledger] = await app.sql<{ sum: string }>('select sum(amount_nano)::text as sum from ledger_entries where user_id = $1', [org.id]);
    expect(BigInt(ledger!.sum)).toBe(orgBalance);
    expect(okBody(await inOrganization(app, owner.token, org.id).account.balance()).balance).toBe(Number(orgBalance) / 1e9);
  });

  test('a developer lists, changes and revokes only their own keys and reads only their usage; an admin reaches all', async () => {
    const { org, admin, dev, devKey, adminKey } = await fundedOrganization();
    const devs = inOrganization(app, dev.token, org.id);
    expect(okBody(await devs.keys.list()).keys.map((k) => k.id)).toEqual([devKey.id]);
    expect(
      okBody(await inOrganization(app, admin.token, org.id).keys.list())
        .keys.map((k) => k.id)
        .sort(),
    ).toEqual([devKey.id, adminKey.id].sort());
    expect((await devs.keys.update({ id: adminKey.id, name: 'taken over' })).status).toBe(404);
    expect((await devs.keys.revoke({ id: adminKey.id })).status).toBe(404);
    // The person's own key list is not the organisation's.
    expect(okBody(await rest(app.url, dev.token).keys.list()).keys).toEqual([]);

    await openaiClient(app, devKey.key).chat.completions.create({ model: 'acme/chat', messages });
    await openaiClient(app, adminKey.key).chat.completions.create({ model: 'acme/chat', messages });
    await openaiClient(app, adminKey.key).chat.completions.create({ model: 'acme/chat', messages });
    await settleAll(app);
    const devUsage = okBody(await devs.account.usage({}));
    expect(devUsage.data.map((r) => r.keyId)).toEqual([devKey.id]);
    expect(devUsage.totals.requests).toBe(1);
    const devSummary = okBody(await devs.account.usageSummary({ from: today, timeZone: 'UTC' }));
    expect(devSummary.totals.requests).toBe(1);
    const adminUsage = okBody(await inOrganization(app, admin.token, org.id).account.usage({}));
    expect(adminUsage.totals.requests).toBe(3);
    // The members list counts each member's spending this month.
    const members = okBody(await rest(app.url, admin.token).organizations.members({ id: org.id })).members;
    expect(members.find((m) => m.userId === dev.userId)!.spentThisMonth).toBeGreaterThan(0);
  });

  test("with an organisation's key the account routes act for its creator's role", async () => {
    const { owner, org, devKey } = await fundedOrganization();
    const ownerKey = okBody(await inOrganization(app, owner.token, org.id).keys.create({ name: 'owner key', scope: 'account' }));
    const ownerBalance = await call(app.url, 'GET', '/api/balance', { token: ownerKey.key });
    expect(ownerBalance.status).toBe(200);
    expect(ownerBalance.body.balance).toBe(10);
    // A developer is not shown the balance, with their key as with their login.
    expect((await call(app.url, 'GET', '/api/balance', { token: devKey.key })).status).toBe(403);
    expect((await call(app.url, 'GET', '/api/usage', { token: devKey.key })).status).toBe(200);
  });
});

describe('removing a member', () => {
  test("with revoke: the removed member's key is refused on /v1 at once", async () => {
    const { owner, org, dev, devKey } = await fundedOrganization();
    expect(await refusedOnV1(devKey.key)).toBe(200);
    const removed = okBody(await rest(app.url, owner.token).organizations.removeMember({ id: org.id, userId: dev.userId, keys: 'revoke' }));
    expect(removed).toEqual({ removed: true, keysRevoked: 1, keysTransferred: 0 });
    expect([401, 403]).toContain(await refusedOnV1(devKey.key));
    // Out of the organisation: its routes and its header are closed to them.
    expect((await inOrganization(app, dev.token, org.id).keys.list()).status).toBe(404);
  });

  test('with transfer: the key keeps working and names the member it was handed to', async () => {
    const { owner, org, admin, dev, devKey } = await fundedOrganization();
    const owners = rest(app.url, owner.token).organizations;
    // Only to another member who may hold keys.
    const accountant = await joinAs(setup, owner.token, org.id, 'accountant');
    expect((await owners.removeMember({ id: org.id, userId: dev.userId, keys: 'transfer', transferTo: accountant.userId })).status).toBe(400);
    expect((await owners.removeMember({ id: org.id, userId: dev.userId, keys: 'transfer' })).status).toBe(400);
    const removed = okBody(await owners.removeMember({ id: org.id, userId: dev.userId, keys: 'transfer', transferTo: admin.userId }));
    expect(removed).toEqual({ removed: true, keysRevoked: 0, keysTransferred: 1 });
    expect(await refusedOnV1(devKey.key)).toBe(200);
    const listed = okBody(await inOrganization(app, admin.token, org.id).keys.list()).keys.find((k) => k.id === devKey.id)!;
    expect(listed).toMatchObject({ isActive: true, createdBy: admin.userId });
  });
});
