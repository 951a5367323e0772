// Organisations' alerts (issue 44 point 5, limits brief point 3): the organisation's low-balance alert is
// mailed to its owners and accountants (never to the organisation's own, unmailable address) and sent to the
// organisation's webhook; a member's monthly limit reached mails the member and the organisation's owners and
// admins, once a month. Spending goes through /v1 with the OpenAI SDK; the mail reaches the suite's SMTP
// server. Organisations, members (by their mailed invitation), keys, alert settings and limits go through the API.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { FakeSmtp } from '../fakes/smtp';
import type { TestApp } from '../helpers/app';
import { openaiClient, setBalanceNano, settleAll } from '../helpers/gateway';
import { inOrganization, joinAs, newOrganization, PUBLIC_BASE_URL, useOrganizationsApp, type OrganizationsSetup } from '../helpers/organizations';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(60_000);

/** One request with max_tokens 5 costs 12 prompt + 5 completion tokens at 125 nano-units. */
const ONE = 2125n;
/** Nano-units as the API's currency units (the decimal text read as a number, as the server renders it). */
const units = (nano: bigint) => Number(`${nano}e-9`);

let setup: OrganizationsSetup;
let smtp: FakeSmtp;
let app: TestApp;
useOrganizationsApp(
  (s) => {
    setup = s;
    smtp = s.smtp;
    app = s.app;
  },
  { OUTBOX_RETRY_BASE_MS: '200', OUTBOX_POLL_INTERVAL_MS: '100' },
);

const ask = (key: string) =>
  openaiClient(app, key)
    .chat.completions.create({ model: 'acme/chat', messages: [{ role: 'user', content: 'Привет!' }], max_tokens: 5 })
    .catch((e) => e);

/** Writes the settlements and waits for the alert checks they started. */
async function settled() {
  await app.instance.services.billing.flush();
  await app.instance.services.alerts.checker.idle();
}

const queued = async (recipient: string) =>
  Number((await app.sql<{ n: unknown }>(`select count(*)::int as n from outbox where kind = 'alerts.mail' and recipient = $1`, [recipient]))[0]!.n);

/** An organisation with one person in each role (the developer with `developerLimit`). */
async function company(balanceNano: bigint, developerLimit: bigint | null = null) {
  const { owner, org } = await newOrganization(app, 'ООО «Вектор»');
  await setBalanceNano(app, org.id, balanceNano);
  const admin = await joinAs(setup, owner.token, org.id, 'admin');
  const developer = await joinAs(setup, owner.token, org.id, 'developer', developerLimit === null ? null : units(developerLimit));
  const accountant = await joinAs(setup, owner.token, org.id, 'accountant');
  const key = okBody(await inOrganization(app, developer.token, org.id).keys.create({ name: 'org key' }));
  // The mails each person had before any alert (an invitation, any sign-up mail): an alert is the next one.
  const before = new Map([owner, admin, developer, accountant].map((p) => [p.email, smtp.messages.filter((m) => m.to.includes(p.email)).length]));
  const alertMail = (person: { email: string }) => smtp.waitFor(person.email, before.get(person.email) ?? 0);
  return { id: org.id, owner, admin, developer, accountant, key: key.key, alertMail };
}

describe('an organisation’s low balance', () => {
  test('goes to the owners and accountants once, naming the organisation, and to its webhook; never to its own address', async () => {
    const hooks: string[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        hooks.push(await req.text());
        return new Response('ok');
      },
    });
    try {
      // Threshold 1; the balance is above it for one request and below after the second.
      const org = await company(1_000_003_000n);
      // Set by the owner in the organisation, as the dashboard's alerts form does.
      okBody(await inOrganization(app, org.owner.token, org.id).alerts.update({ lowBalanceThreshold: 1, webhookUrl: `http://127.0.0.1:${receiver.port}/hook` }));
      expect((await ask(org.key)).object).toBe('chat.completion');
      await settled();
      expect(await queued(org.owner.email)).toBe(0);

      expect((await ask(org.key)).object).toBe('chat.completion');
      expect((await ask(org.key)).object).toBe('chat.completion');
      await settled();
      for (const person of [org.owner, org.accountant]) {
        const mail = await org.alertMail(person);
        expect(mail.subject).toBe('Баланс организации «ООО «Вектор»» в Conduit ниже 1,00\u00a0₽');
        expect(mail.text).toContain('Баланс организации «ООО «Вектор»» опустился ниже порога');
        expect(mail.text).toContain(`${PUBLIC_BASE_URL}/app/topups`);
        expect(await queued(person.email)).toBe(1);
      }
      for (const address of [org.admin.email, org.developer.email, `${org.id}@organizations.invalid`]) expect(await queued(address)).toBe(0);
      const deadline = Date.now() + 10_000;
      while (hooks.length === 0 && Date.now() < deadline) await Bun.sleep(25);
      expect(hooks).toHaveLength(1);
      expect(JSON.parse(hooks[0]!)).toMatchObject({ type: 'balance.low', threshold: 1 });
    } finally {
      receiver.stop(true);
    }
  });
});

describe('a member’s limit reached', () => {
  test('a call refused for the limit mails the member, the owners and the admins once this month; a new month mails again', async () => {
    const org = await company(1_000_000_000_000n, 4n * ONE);
    // Spending under the limit tells nobody.
    expect((await ask(org.key)).object).toBe('chat.completion');
    await settled();
    expect(await queued(org.developer.email)).toBe(0);

    let refusal: any = null;
    for (let i = 0; i < 10 && !refusal; i++) {
      const answer = await ask(org.key);
      if (answer.object !== 'chat.completion') refusal = answer;
    }
    expect(refusal.code).toBe('member_spend_limit');
    await settled();
    const toMember = await org.alertMail(org.developer);
    expect(toMember.subject).toBe('Исчерпан месячный лимит расходов участника в организации «ООО «Вектор»»');
    expect(toMember.text).toContain('Ваши API-ключи в организации «ООО «Вектор»» израсходовали');
    expect(toMember.text).toContain('в месяц');
    for (const person of [org.owner, org.admin]) {
      const mail = await org.alertMail(person);
      expect(mail.text).toContain(`Участник ${org.developer.email} израсходовал в организации «ООО «Вектор»»`);
      // The dashboard's «Организация» screen (web/src/app/App.tsx NAV: /organization).
      expect(mail.text).toMatch(new RegExp(`${PUBLIC_BASE_URL.replaceAll('.', '\\.')}/app/organization(?![a-z])`));
    }
    expect(await queued(org.accountant.email)).toBe(0);

    // More refusals this month mail nothing more.
    expect((await ask(org.key)).code).toBe('member_spend_limit');
    await settled();
    for (const person of [org.developer, org.owner, org.admin]) expect(await queued(person.email)).toBe(1);

    // Next month (the budget and the notice belong to the month before): the whole limit again, and its end is news again.
    await settleAll(app);
    await app.sql(
      `update organization_members set budget_period_start = (date_trunc('month', now() at time zone 'UTC') - interval '1 month') at time zone 'UTC',
         limit_notified_period = (date_trunc('month', now() at time zone 'UTC') - interval '1 month') at time zone 'UTC'
       where organization_id = $1 and user_id = $2`,
      [org.id, org.developer.userId],
    );
    let served = 0;
    for (let i = 0; i < 10; i++) {
      const answer = await ask(org.key);
      if (answer.object !== 'chat.completion') break;
      served++;
    }
    expect(served).toBeGreaterThanOrEqual(1);
    await settled();
    for (const person of [org.developer, org.owner, org.admin]) expect(await queued(person.email)).toBe(2);
  });

  test('spending that crosses the limit without a refusal mails too (an upstream that reports more than was reserved)', async () => {
    const org = await company(1_000_000_000_000n, 4n * ONE);
    // 12 + 1000 tokens whatever max_tokens says: the answer costs far more than the limit.
    const answer = await openaiClient(app, org.key).chat.completions.create({
      model: 'fake/usage-12-1000',
      messages: [{ role: 'user', content: 'Привет!' }],
      max_tokens: 5,
    });
    expect(answer.object).toBe('chat.completion');
    await settled();
    await org.alertMail(org.developer);
    for (const person of [org.developer, org.owner, org.admin]) expect(await queued(person.email)).toBe(1);
    // The month's budget is used up: the next request is refused, and told of no more.
    await settleAll(app);
    const [member] = await app.sql<{ budget: string }>('select budget_nano::text as budget from organization_members where user_id = $1', [org.developer.userId]);
    expect(member!.budget).toBe('0');
    expect((await ask(org.key)).code).toBe('member_spend_limit');
    await settled();
    expect(await queued(org.developer.email)).toBe(1);
  });

  test('a new limit may be told again when it is reached; a member without a limit is never told', async () => {
    const org = await company(1_000_000_000_000n, 2n * ONE);
    while ((await ask(org.key)).object === 'chat.completion');
    await settled();
    expect(await queued(org.developer.email)).toBe(1);
    okBody(await rest(app.url, org.admin.token).organizations.updateMember({ id: org.id, userId: org.developer.userId, spendLimit: units(4n * ONE) }));
    while ((await ask(org.key)).object === 'chat.completion');
    await settled();
    expect(await queued(org.developer.email)).toBe(2);

    const free = await company(1_000_000_000_000n);
    for (let i = 0; i < 5; i++) expect((await ask(free.key)).object).toBe('chat.completion');
    await settled();
    expect(await queued(free.developer.email)).toBe(0);
    expect(await queued(free.owner.email)).toBe(0);
  });
});
