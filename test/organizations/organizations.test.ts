// Organisations over HTTP: creation with requisites, the member lists, invitations followed from the mail
// (the right person only, 7 days, once), the rules that keep an owner and keep admins off owners, and the
// organisation's journal. The organisation's own account never signs in.
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { call, registerAdmin, registerUser, type TestApp } from '../helpers/app';
import { errorOf, okBody, rest } from '../helpers/rest';
import { companyInput, inOrganization, joinAs, mailedInviteToken, newOrganization, type OrganizationsSetup, useOrganizationsApp } from '../helpers/organizations';

setDefaultTimeout(30_000);

let setup: OrganizationsSetup;
let app: TestApp;
const OPERATOR = 'org-operator@example.com';
useOrganizationsApp(
  (s) => {
    setup = s;
    app = s.app;
  },
  { ADMIN_EMAILS: OPERATOR },
);

describe('creating an organisation', () => {
  test('the creator owns it; it has its own account with balance 0, its requisites, and it is listed', async () => {
    const { owner, org } = await newOrganization(app, 'ООО «Вектор»');
    expect(org).toMatchObject({ name: 'ООО «Вектор»', role: 'owner', balance: 0, currency: 'RUB' });
    expect(org.requisites).toMatchObject({ companyName: 'ООО «Вектор»', kpp: '770001001', ogrn: '1027700132195', bankName: '' });
    const [row] = await app.sql<{ kind: string; email: string; balance_nano: string }>('select kind, email, balance_nano::text from users where id = $1', [org.id]);
    expect(row).toEqual({ kind: 'organization', email: `${org.id}@organizations.invalid`, balance_nano: '0' });
    expect(okBody(await rest(app.url, owner.token).organizations.list()).organizations).toEqual([
      { id: org.id, name: 'ООО «Вектор»', role: 'owner', balance: 0, currency: 'RUB' },
    ]);
    expect(okBody(await rest(app.url, owner.token).organizations.get({ id: org.id })).id).toBe(org.id);
    // The person's own account keeps its registration bonus.
    expect(okBody(await rest(app.url, owner.token).account.balance()).balance).toBe(3);
  });

  test('requisites are checked: ИНН, КПП of a company, ОГРН, bank details together', async () => {
    const { token } = await registerUser(app.url);
    const bad = async (patch: Record<string, string>, field: string) => {
      const res = await call(app.url, 'POST', '/api/organizations', { token, body: { ...companyInput(), ...patch } });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/[А-Яа-я]/);
      expect(res.body.error.param ?? res.body.error.message).toBeTruthy();
      return { res, field };
    };
    await bad({ inn: '123' }, 'inn');
    await bad({ kpp: '' }, 'kpp');
    await bad({ ogrn: '12' }, 'ogrn');
    await bad({ bik: '044525225' }, 'bankName');
    const sole = await call(app.url, 'POST', '/api/organizations', {
      token,
      body: { ...companyInput('ИП Иванов'), inn: '500100732259', kpp: '', ogrn: '304500116000157' },
    });
    expect(sole.status).toBe(201);
    const banked = await call(app.url, 'POST', '/api/organizations', {
      token,
      body: { ...companyInput(), bankName: 'ПАО Сбербанк', bik: '044525225', account: '40702810900000000001', correspondentAccount: '30101810400000000225' },
    });
    expect(banked.status).toBe(201);
    expect(banked.body.requisites.bik).toBe('044525225');
  });

  test("the organisation's account cannot sign in, reset a password or be registered", async () => {
    const { org } = await newOrganization(app);
    const email = `${org.id}@organizations.invalid`;
    expect((await call(app.url, 'POST', '/api/auth/login', { body: { email, password: '!organization' } })).status).toBe(401);
    expect((await call(app.url, 'POST', '/api/auth/register', { body: { email: `x${Date.now()}@organizations.invalid`, password: 'secret123' } })).status).toBe(400);
    // The operators' list marks it.
    const operator = await registerAdmin(app, OPERATOR);
    const listed = await call(app.url, 'GET', `/api/admin/users?search=${org.id}`, { token: operator.token });
    expect(listed.body.data.map((u: { id: string; kind: string }) => [u.id, u.kind])).toEqual([[org.id, 'organization']]);
    // Refused as an address nobody can hold, and nothing is mailed there.
    expect((await call(app.url, 'POST', '/api/auth/password-reset', { body: { email } })).status).toBe(400);
    expect(setup.smtp.messages.some((m) => m.to.includes(email))).toBe(false);
  });

  test('owners and accountants change the requisites; an admin or developer cannot; a stranger gets 404', async () => {
    const { owner, org } = await newOrganization(app);
    const accountant = await joinAs(setup, owner.token, org.id, 'accountant');
    const admin = await joinAs(setup, owner.token, org.id, 'admin');
    const changed = okBody(await rest(app.url, accountant.token).organizations.update({ id: org.id, ...companyInput('ООО «Новое имя»') }));
    expect(changed).toMatchObject({ name: 'ООО «Новое имя»', role: 'accountant' });
    expect((await rest(app.url, admin.token).organizations.update({ id: org.id, ...companyInput() })).status).toBe(403);
    const stranger = await registerUser(app.url);
    expect((await rest(app.url, stranger.token).organizations.get({ id: org.id })).status).toBe(404);
    expect((await rest(app.url, stranger.token).organizations.get({ id: 'not-a-uuid' })).status).toBe(404);
  });
});

describe('invitations', () => {
  test('the invited person follows the mailed link, sees the invitation and joins with the role and limit', async () => {
    const { owner, org } = await newOrganization(app, 'ООО «Приглашение»');
    const dev = await registerUser(app.url);
    const invited = okBody(await rest(app.url, owner.token).organizations.invite({ id: org.id, email: dev.email.toUpperCase(), role: 'developer', spendLimit: 50 }));
    expect(invited).toMatchObject({ email: dev.email, role: 'developer', spendLimit: 50 });
    const days = (Date.parse(invited.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const mail = await setup.smtp.waitFor(dev.email);
    expect(mail.subject).toContain('ООО «Приглашение»');
    expect(mail.text).toContain('разработчик');
    const token = await mailedInviteToken(setup.smtp, dev.email);
    // Only the hash is stored.
    expect((await app.sql('select 1 from organization_invites where token_hash = $1', [token])).length).toBe(0);

    const listed = okBody(await rest(app.url, owner.token).organizations.members({ id: org.id }));
    expect(listed.invites).toEqual([{ email: dev.email, role: 'developer', spendLimit: 50, expiresAt: invited.expiresAt, invitedBy: owner.email }]);

    // Opening the link's page (a GET of the dashboard; the fragment never reaches the server) changes nothing.
    await (await fetch(`${app.url}/app`)).text();
    expect(okBody(await rest(app.url, owner.token).organizations.members({ id: org.id })).invites).toHaveLength(1);
    const preview = okBody(await rest(app.url, dev.token).organizations.previewInvite({ token }));
    expect(preview).toEqual({ organization: { name: 'ООО «Приглашение»' }, role: 'developer', email: dev.email, expiresAt: invited.expiresAt });
    expect(okBody(await rest(app.url, dev.token).organizations.list()).organizations).toEqual([]);

    const joined = okBody(await rest(app.url, dev.token).organizations.acceptInvite({ token }));
    expect(joined).toMatchObject({ id: org.id, role: 'developer' });
    const after = okBody(await rest(app.url, owner.token).organizations.members({ id: org.id }));
    expect(after.invites).toEqual([]);
    expect(after.members.map((m) => [m.email, m.role, m.spendLimit, m.spentThisMonth])).toEqual([
      [owner.email, 'owner', null, 0],
      [dev.email, 'developer', 50, 0],
    ]);
  });

  test('another person cannot accept: 403 naming the invited address; the invitation still works for its owner', async () => {
    const { owner, org } = await newOrganization(app);
    const invitee = await registerUser(app.url);
    const other = await registerUser(app.url);
    okBody(await rest(app.url, owner.token).organizations.invite({ id: org.id, email: invitee.email, role: 'accountant' }));
    const token = await mailedInviteToken(setup.smtp, invitee.email);
    const refused = await rest(app.url, other.token).organizations.acceptInvite({ token });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toContain(invitee.email);
    expect(okBody(await rest(app.url, invitee.token).organizations.acceptInvite({ token })).role).toBe('accountant');
  });

  test('a link used once, expired after 7 days, replaced or withdrawn is refused', async () => {
    const { owner, org } = await newOrganization(app);
    const person = await registerUser(app.url);
    const owners = rest(app.url, owner.token).organizations;
    okBody(await owners.invite({ id: org.id, email: person.email, role: 'developer' }));
    const first = await mailedInviteToken(setup.smtp, person.email, 0);
    okBody(await owners.invite({ id: org.id, email: person.email, role: 'admin' }));
    const second = await mailedInviteToken(setup.smtp, person.email, 1);
    // The second replaced the first.
    expect((await rest(app.url, person.token).organizations.acceptInvite({ token: first })).status).toBe(400);
    await app.sql("update organization_invites set expires_at = now() - interval '1 second'");
    const expired = await rest(app.url, person.token).organizations.acceptInvite({ token: second });
    expect(expired.status).toBe(400);
    expect(errorOf(expired).message).toMatch(/срок истёк/);
    expect((await rest(app.url, person.token).organizations.previewInvite({ token: second })).status).toBe(400);

    okBody(await owners.invite({ id: org.id, email: person.email, role: 'developer' }));
    const third = await mailedInviteToken(setup.smtp, person.email, 2);
    okBody(await rest(app.url, person.token).organizations.acceptInvite({ token: third }));
    expect((await rest(app.url, person.token).organizations.acceptInvite({ token: third })).status).toBe(400);

    const later = await registerUser(app.url);
    okBody(await owners.invite({ id: org.id, email: later.email, role: 'developer' }));
    const withdrawnToken = await mailedInviteToken(setup.smtp, later.email);
    expect(okBody(await owners.withdrawInvite({ id: org.id, email: later.email }))).toEqual({ withdrawn: true });
    expect((await rest(app.url, later.token).organizations.acceptInvite({ token: withdrawnToken })).status).toBe(400);
    expect((await owners.withdrawInvite({ id: org.id, email: later.email })).status).toBe(404);
  });

  test('an admin invites but not an owner; a member cannot be invited again', async () => {
    const { owner, org } = await newOrganization(app);
    const admin = await joinAs(setup, owner.token, org.id, 'admin');
    const admins = rest(app.url, admin.token).organizations;
    expect((await admins.invite({ id: org.id, email: 'new-owner@example.com', role: 'owner' })).status).toBe(403);
    expect((await admins.invite({ id: org.id, email: 'new-dev@example.com', role: 'developer' })).status).toBe(201);
    expect((await admins.invite({ id: org.id, email: owner.email, role: 'developer' })).status).toBe(409);
  });
});

describe('members', () => {
  test('the last owner cannot be demoted, removed or leave; with a second owner the first may leave', async () => {
    const { owner, org } = await newOrganization(app);
    const owners = rest(app.url, owner.token).organizations;
    expect((await owners.updateMember({ id: org.id, userId: owner.userId, role: 'admin' })).status).toBe(409);
    expect((await owners.removeMember({ id: org.id, userId: owner.userId, keys: 'revoke' })).status).toBe(409);
    const second = await joinAs(setup, owner.token, org.id, 'owner');
    expect(okBody(await owners.removeMember({ id: org.id, userId: owner.userId, keys: 'revoke' }))).toEqual({ removed: true, keysRevoked: 0, keysTransferred: 0 });
    expect((await owners.get({ id: org.id })).status).toBe(404);
    expect(okBody(await rest(app.url, second.token).organizations.get({ id: org.id })).role).toBe('owner');
  });

  test('an admin changes developers and their limits but neither touches owners nor makes one', async () => {
    const { owner, org } = await newOrganization(app);
    const admin = await joinAs(setup, owner.token, org.id, 'admin');
    const dev = await joinAs(setup, owner.token, org.id, 'developer');
    const admins = rest(app.url, admin.token).organizations;
    expect((await admins.updateMember({ id: org.id, userId: owner.userId, role: 'developer' })).status).toBe(403);
    expect((await admins.updateMember({ id: org.id, userId: dev.userId, role: 'owner' })).status).toBe(403);
    expect((await admins.removeMember({ id: org.id, userId: owner.userId, keys: 'revoke' })).status).toBe(403);
    const changed = okBody(await admins.updateMember({ id: org.id, userId: dev.userId, role: 'accountant', spendLimit: 12.5 }));
    expect(changed).toMatchObject({ userId: dev.userId, email: dev.email, role: 'accountant', spendLimit: 12.5, spentThisMonth: 0 });
    expect(okBody(await admins.updateMember({ id: org.id, userId: dev.userId, spendLimit: null })).spendLimit).toBeNull();
    expect((await admins.updateMember({ id: org.id, userId: '00000000-0000-4000-8000-000000000000', role: 'developer' })).status).toBe(404);
    // A developer manages nobody, but may leave.
    const devs = rest(app.url, dev.token).organizations;
    expect((await devs.members({ id: org.id })).status).toBe(403);
    expect((await devs.removeMember({ id: org.id, userId: admin.userId, keys: 'revoke' })).status).toBe(403);
    expect(okBody(await devs.removeMember({ id: org.id, userId: dev.userId, keys: 'revoke' })).removed).toBe(true);
  });

  test('a developer with keys becomes an accountant only once the keys are revoked: an accountant holds none', async () => {
    const { owner, org } = await newOrganization(app);
    const dev = await joinAs(setup, owner.token, org.id, 'developer');
    const key = okBody(await inOrganization(app, dev.token, org.id).keys.create({ name: 'ci' }));
    const owners = rest(app.url, owner.token).organizations;
    const refused = await owners.updateMember({ id: org.id, userId: dev.userId, role: 'accountant' });
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatchObject({ type: 'conflict', message: expect.stringContaining('сначала отзовите их') });
    expect(okBody(await owners.members({ id: org.id })).members.find((m) => m.userId === dev.userId)?.role).toBe('developer');
    okBody(await inOrganization(app, owner.token, org.id).keys.revoke({ id: key.id }));
    expect(okBody(await owners.updateMember({ id: org.id, userId: dev.userId, role: 'accountant' })).role).toBe('accountant');
  });

  test("everything is in the organisation's journal, which owners and admins read", async () => {
    const { owner, org } = await newOrganization(app, 'ООО «Журнал»');
    const admin = await joinAs(setup, owner.token, org.id, 'admin');
    const dev = await joinAs(setup, admin.token, org.id, 'developer');
    okBody(await rest(app.url, owner.token).organizations.updateMember({ id: org.id, userId: dev.userId, spendLimit: 10 }));
    okBody(await rest(app.url, owner.token).organizations.update({ id: org.id, ...companyInput('ООО «Журнал»'), address: 'г. Тверь' }));
    okBody(await rest(app.url, admin.token).organizations.removeMember({ id: org.id, userId: dev.userId, keys: 'revoke' }));
    const journal = okBody(await rest(app.url, admin.token).organizations.audit({ id: org.id })).entries;
    expect(journal.map((e) => [e.action, e.actorEmail]).reverse()).toEqual([
      ['organization.create', owner.email],
      ['organization.invite', owner.email],
      ['organization.join', admin.email],
      ['organization.invite', admin.email],
      ['organization.join', dev.email],
      ['organization.member_update', owner.email],
      ['organization.update', owner.email],
      ['organization.member_remove', admin.email],
    ]);
    expect(journal.every((e) => /[А-Яа-яЁё]/.test(e.detail) || e.detail.includes('@'))).toBe(true);
    expect(journal.find((e) => e.action === 'organization.update')!.detail).toContain('адрес');
    expect((await rest(app.url, dev.token).organizations.audit({ id: org.id })).status).toBe(404);
  });
});
