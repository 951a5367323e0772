// The «Организация» screen's management in a real browser (issue 44): the owner changes a member's limit and
// role in the dialog, removes a member handing their keys to another, withdraws an invitation, edits the
// requisites and reads all of it in the organisation's journal; the invitation screen says what the API says
// for the wrong address and for an expired link; a member leaves through «Покинуть организацию».
import { expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, openPage, registerThroughPage, sessionToken, useBrowserApp, type BrowserApp } from '../helpers/browser';
import { companyInput, inOrganization, joinAs, mailedInviteToken, PUBLIC_BASE_URL } from '../helpers/organizations';
import { okBody, rest } from '../helpers/rest';

setDefaultTimeout(FLOW_TIMEOUT_MS);

const browserSuite = browserDescribe('web-organization-members.test.ts');

let smtp: FakeSmtp;
let session: BrowserApp;
let app: TestApp;
let page: Page;

async function signIn(p: Page, user: { email: string; password: string }): Promise<void> {
  await p.goto(`${app.url}/app/login`);
  await p.getByLabel('E-mail').fill(user.email);
  await p.getByLabel('Пароль').fill(user.password);
  await p.getByRole('button', { name: 'Войти' }).click();
  await p.getByTestId('account-email').waitFor();
}

/** A person signed in through the page who owns a new organisation, with the page switched to it. */
async function ownerWithOrganization(p: Page, name: string) {
  const user = { email: uniqueEmail('web-members-owner'), password: 'web-members-owner-1' };
  await registerThroughPage(p, app.url, user);
  const token = await sessionToken(p);
  const org = okBody(await rest(app.url, token).organizations.create(companyInput(name)));
  await p.reload();
  await p.getByLabel('Аккаунт').selectOption(org.id);
  await p.goto(`${app.url}/app/organization`);
  await p.getByRole('heading', { name: `Организация «${name}»` }).waitFor();
  return { token, org };
}

browserSuite('managing an organisation in the dashboard', () => {
  session = useBrowserApp({
    before: async () => {
      smtp = await startFakeSmtp();
    },
    app: () => ({ env: { PUBLIC_BASE_URL, SMTP_URL: smtp.url, SMTP_FROM: 'Conduit <no-reply@conduit.example>' } }),
    ready: (s) => {
      app = s.app;
      page = s.page;
    },
    after: () => smtp?.close(),
  });

  test('the owner changes a limit and a role, removes a member handing the keys over, withdraws an invitation, edits the requisites; the journal lists it', async () => {
    const { token, org } = await ownerWithOrganization(page, 'ООО «Лютик»');
    const setup = { app, smtp };
    const leaving = await joinAs(setup, token, org.id, 'developer');
    const heir = await joinAs(setup, token, org.id, 'developer');
    const key = okBody(await inOrganization(app, leaving.token, org.id).keys.create({ name: 'Ключ уходящего' }));
    await page.reload();
    const table = page.getByTestId('members-table');
    await table.getByText(heir.email).waitFor();

    // The heir's limit and role, in the dialog.
    await page.getByRole('button', { name: `Изменить роль или лимит: ${heir.email}` }).click();
    const dialog = page.getByTestId('member-dialog');
    await dialog.getByLabel('Лимит в месяц').fill('250');
    await dialog.getByLabel('Роль').selectOption({ label: 'Администратор' });
    await dialog.getByRole('button', { name: 'Сохранить' }).click();
    const heirRow = table.locator('tr', { hasText: heir.email });
    await heirRow.getByText('Администратор').waitFor();
    expect(await heirRow.textContent()).toMatch(/250,00/);

    // The leaving member's key goes to the heir.
    await page.getByRole('button', { name: `Удалить из организации: ${leaving.email}` }).click();
    await page.getByLabel('Передать ключи участнику…').check();
    await page.getByLabel('Кому передать ключи').selectOption({ label: `${heir.email} (Администратор)` });
    await page.getByRole('button', { name: 'Удалить', exact: true }).click();
    await table.getByText(leaving.email).waitFor({ state: 'detached' });
    const keys = okBody(await inOrganization(app, token, org.id).keys.list());
    const handed = keys.keys.find((k) => k.id === key.id)!;
    expect(handed.isActive).toBe(true);
    expect(handed.createdBy).toBe(heir.userId);

    // An invitation sent and withdrawn.
    const invitee = uniqueEmail('web-members-invitee');
    const form = page.getByTestId('invite-form');
    await form.getByLabel('E-mail участника').fill(invitee);
    await form.getByLabel('Роль').selectOption({ label: 'Бухгалтер' });
    await form.getByRole('button', { name: 'Отправить приглашение' }).click();
    const pending = page.getByTestId('pending-invites');
    await pending.getByText(invitee).waitFor();
    expect(await pending.textContent()).toContain('Бухгалтер');
    await page.getByRole('button', { name: `Отозвать приглашение: ${invitee}` }).click();
    await pending.waitFor({ state: 'detached' });

    // The requisites, changed by the owner.
    const requisites = page.getByTestId('organization-requisites');
    await requisites.getByLabel('Юридический адрес').fill('г. Казань, ул. Баумана, д. 1');
    await requisites.getByRole('button', { name: 'Сохранить реквизиты' }).click();
    await requisites.getByText('Сохранено').waitFor();
    expect(okBody(await rest(app.url, token).organizations.get({ id: org.id })).requisites.address).toBe('г. Казань, ул. Баумана, д. 1');

    await page.reload();
    const journal = page.getByTestId('organization-audit');
    await journal.getByText('Реквизиты изменены').waitFor();
    const text = await journal.textContent();
    for (const action of ['Организация создана', 'Участник присоединился', 'Роль или лимит изменены', 'Участник удалён', 'Приглашение отозвано'])
      expect(text).toContain(action);
    expect(session.pageErrors).toEqual([]);
  });

  test('the invitation screen: the wrong address is refused as the API says, an expired link too; nothing is joined', async () => {
    const owner = await registerUser(app.url);
    const org = okBody(await rest(app.url, owner.token).organizations.create(companyInput('ООО «Василёк»')));
    const invited = uniqueEmail('web-members-invited');
    okBody(await rest(app.url, owner.token).organizations.invite({ id: org.id, email: invited, role: 'developer' }));
    const token = await mailedInviteToken(smtp, invited);

    const other = await registerUser(app.url, uniqueEmail('web-members-other'), 'web-members-other-1');
    const visitor = await openPage(session.browser);
    await signIn(visitor.page, other);
    await visitor.page.goto(`${app.url}/app#/invite/${token}`);
    await visitor.page.getByTestId('invite-offer').waitFor();
    expect(await visitor.page.getByTestId('invite-offer').textContent()).toBe('Вас приглашают в «ООО «Василёк»» как разработчик.');
    await visitor.page.getByRole('button', { name: 'Принять' }).click();
    const refusal = visitor.page.getByTestId('invite').getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain(invited);
    expect(okBody(await rest(app.url, other.token).organizations.list()).organizations).toEqual([]);

    // Expired: the screen says so instead of the offer.
    await app.sql("update organization_invites set expires_at = now() - interval '1 second' where email = $1", [invited]);
    await visitor.page.goto(`${app.url}/app#/invite/${token}`);
    await visitor.page.reload();
    const expired = visitor.page.getByTestId('invite').getByRole('alert');
    await expired.waitFor();
    expect(await expired.textContent()).toContain('срок истёк');
    expect(await visitor.page.getByTestId('invite-offer').count()).toBe(0);
    await visitor.page.getByRole('button', { name: 'На главную' }).click();
    await visitor.page.getByRole('heading', { name: 'Баланс и использование' }).waitFor();
    expect(visitor.pageErrors).toEqual([]);
    await visitor.context.close();
  });

  test('a member leaves through «Покинуть организацию» and the page is back on «Личный»', async () => {
    const owner = await registerUser(app.url);
    const org = okBody(await rest(app.url, owner.token).organizations.create(companyInput('ООО «Ландыш»')));
    const member = await joinAs({ app, smtp }, owner.token, org.id, 'accountant');
    const visitor = await openPage(session.browser);
    await signIn(visitor.page, member);
    await visitor.page.getByLabel('Аккаунт').selectOption(org.id);
    await visitor.page.getByRole('link', { name: 'Организация' }).click();
    await visitor.page.getByRole('button', { name: 'Покинуть организацию' }).click();
    await visitor.page.getByRole('button', { name: 'Покинуть', exact: true }).click();
    await visitor.page.waitForFunction(() => (document.querySelector('[data-testid="account-switcher"]') as HTMLSelectElement | null)?.value === '');
    // The organisation is no longer offered.
    await visitor.page.waitForFunction(() => document.querySelectorAll('[data-testid="account-switcher"] option').length === 1);
    expect(okBody(await rest(app.url, member.token).organizations.list()).organizations).toEqual([]);
    expect(visitor.pageErrors).toEqual([]);
    await visitor.context.close();
  });
});
