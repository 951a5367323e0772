// Organisations in the dashboard (issue 44), in a real browser against the real app: an owner creates an
// organisation through the page and invites a developer; the developer opens the mailed link signed out,
// registers on the way and lands back on the invitation, accepts, sees only the organisation's keys and
// usage, and creates a key the owner then sees as the organisation's with its creator. An accountant sees
// the organisation's balance and its счета but no keys; «Личный» shows the person's own balance again; a
// remembered organisation the person has left falls back to «Личный» with a notice.
import { expect, setDefaultTimeout, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp';
import { call, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { setBalanceNano } from '../helpers/gateway';
import { browserDescribe, FLOW_TIMEOUT_MS, openPage, registerThroughPage, sessionToken, useBrowserApp, type BrowserApp } from '../helpers/browser';

setDefaultTimeout(FLOW_TIMEOUT_MS);

const INVITE_LINK = /\/app#\/invite\/([A-Za-z0-9_-]+)/;
const ORGANIZATION = {
  name: 'ООО «Ромашка»',
  inn: '7707083893',
  kpp: '773601001',
  ogrn: '1027700132195',
  address: '117997, г. Москва, ул. Вавилова, д. 19',
};

const browserSuite = browserDescribe('web-organizations.test.ts');

let smtp: FakeSmtp;
let session: BrowserApp;
let app: TestApp;
/** The owner's page, signed in through the page; the tests below run in order and build on each other. */
let owner: Page;
const ownerUser = { email: uniqueEmail('web-org-owner'), password: 'web-org-owner-1' };
const developerUser = { email: uniqueEmail('web-org-dev'), password: 'web-org-dev-1' };
let organizationId = '';

/** The sections the main navigation offers. */
const navLabels = (page: Page) => page.locator('#main-nav li a').allTextContents();

async function signIn(page: Page, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${app.url}/app/login`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Пароль').fill(user.password);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByTestId('account-email').waitFor();
}

browserSuite('organisations in the dashboard', () => {
  session = useBrowserApp({
    before: async () => {
      smtp = await startFakeSmtp();
    },
    app: () => ({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'Conduit <no-reply@conduit.example>' } }),
    ready: (s) => {
      app = s.app;
      owner = s.page;
    },
    after: () => smtp?.close(),
  });

  test('the owner creates an organisation through the page and the switcher shows it with the role', async () => {
    await registerThroughPage(owner, app.url, ownerUser);
    expect(await owner.getByLabel('Аккаунт').inputValue()).toBe('');
    await owner.goto(`${app.url}/app/organization`);
    const form = owner.getByTestId('create-organization');
    // A wrong ИНН is refused under its field, as the API names it.
    await form.getByLabel('Название организации').fill(ORGANIZATION.name);
    await form.getByLabel('ИНН').fill('12345');
    await form.getByLabel('КПП').fill(ORGANIZATION.kpp);
    await form.getByLabel('ОГРН').fill(ORGANIZATION.ogrn);
    await form.getByLabel('Юридический адрес').fill(ORGANIZATION.address);
    await form.getByRole('button', { name: 'Создать организацию' }).click();
    await form.locator('.field-invalid').filter({ hasText: 'ИНН' }).waitFor();

    await form.getByLabel('ИНН').fill(ORGANIZATION.inn);
    await form.getByRole('button', { name: 'Создать организацию' }).click();
    await owner.getByRole('heading', { name: `Организация «${ORGANIZATION.name}»` }).waitFor();
    organizationId = await owner.getByLabel('Аккаунт').inputValue();
    expect(organizationId).not.toBe('');
    expect(await owner.getByLabel('Аккаунт').locator('option:checked').textContent()).toBe(`${ORGANIZATION.name} — Владелец`);
    expect(await owner.getByTestId('organization-summary').textContent()).toContain('Ваша роль: Владелец');
    // In the organisation the person's own sections are gone.
    const nav = await navLabels(owner);
    expect(nav).not.toContain('Агенты');
    expect(nav).not.toContain('Аккаунт');
    expect(nav).toContain('API-ключи');
    expect(nav).toContain('Выписка');
    expect(session.pageErrors).toEqual([]);
  });

  test('the developer follows the mailed link, registers on the way, accepts, and sees only keys and usage', async () => {
    const members = owner.getByTestId('invite-form');
    await members.getByLabel('E-mail участника').fill(developerUser.email);
    await members.getByLabel('Роль').selectOption({ label: 'Разработчик' });
    await members.getByLabel(/^Лимит в месяц/).fill('500');
    await members.getByRole('button', { name: 'Отправить приглашение' }).click();
    await members.getByText(`Приглашение отправлено на ${developerUser.email}`).waitFor();
    await owner.getByTestId('pending-invites').getByText(developerUser.email).waitFor();

    const mail = await smtp.waitFor(developerUser.email);
    const token = INVITE_LINK.exec(mail.text)![1]!;
    const developer = await openPage(session.browser);
    await developer.page.goto(`${app.url}/app#/invite/${token}`);
    // Signed out: the login form says why, and the registration leads back to the invitation.
    await developer.page.getByTestId('invite-sign-in').waitFor();
    await developer.page.getByRole('link', { name: 'Зарегистрироваться' }).click();
    await developer.page.getByLabel('E-mail').fill(developerUser.email);
    await developer.page.getByLabel('Пароль').fill(developerUser.password);
    await developer.page.getByRole('button', { name: 'Зарегистрироваться' }).click();
    const offer = developer.page.getByTestId('invite-offer');
    await offer.waitFor();
    expect(await offer.textContent()).toBe(`Вас приглашают в «${ORGANIZATION.name}» как разработчик.`);
    // Opening the invitation joined nothing: only the button does.
    const before = await call(app.url, 'GET', '/api/organizations', { token: await sessionToken(developer.page) });
    expect(before.body.organizations).toEqual([]);

    await developer.page.getByRole('button', { name: 'Принять' }).click();
    await developer.page.waitForFunction(
      (id) => (document.querySelector('[data-testid="account-switcher"]') as HTMLSelectElement | null)?.value === id,
      organizationId,
    );
    expect(await developer.page.getByLabel('Аккаунт').locator('option:checked').textContent()).toBe(`${ORGANIZATION.name} — Разработчик`);
    expect((await navLabels(developer.page)).sort()).toEqual(['API-ключи', 'Использование', 'Организация'].sort());
    // No balance for a developer: the usage of their keys only.
    await developer.page.getByRole('heading', { name: 'Использование по дням' }).waitFor();
    expect(await developer.page.getByTestId('balance').count()).toBe(0);

    await developer.page.goto(`${app.url}/app/keys`);
    await developer.page.getByLabel('Название').fill('Бот разработчика');
    await developer.page.getByRole('button', { name: 'Создать ключ' }).click();
    await developer.page.getByTestId('keys-table').getByText('Бот разработчика').waitFor();
    // A personal-only address opened by hand says it is not available here.
    await developer.page.goto(`${app.url}/app/agents`);
    await developer.page.getByTestId('not-in-organization').waitFor();
    expect(developer.pageErrors).toEqual([]);

    // The owner sees the key as the organisation's, with its creator; the developer's own account has none.
    await owner.goto(`${app.url}/app/keys`);
    const row = owner.getByTestId('keys-table').locator('tr', { hasText: 'Бот разработчика' });
    await row.waitFor();
    expect(await row.getByTestId('key-creator').textContent()).toBe(developerUser.email);
    const personalKeys = await call(app.url, 'GET', '/api/keys', { token: await sessionToken(developer.page) });
    expect(personalKeys.body.keys).toEqual([]);
    const orgKeys = await call(app.url, 'GET', '/api/keys', { token: await sessionToken(owner), headers: { 'X-Conduit-Organization': organizationId } });
    expect(orgKeys.body.keys.map((k: { name: string }) => k.name)).toEqual(['Бот разработчика']);
    await developer.context.close();
  });

  test('an accountant sees the balance and the счета but no keys; «Личный» shows the own balance; a left organisation falls back', async () => {
    const ownerToken = await sessionToken(owner);
    const accountant = await registerUser(app.url, uniqueEmail('web-org-acc'), 'web-org-acc-1');
    const invited = await call(app.url, 'POST', `/api/organizations/${organizationId}/invites`, {
      token: ownerToken,
      body: { email: accountant.email, role: 'accountant' },
    });
    expect(invited.status).toBe(201);
    const token = INVITE_LINK.exec((await smtp.waitFor(accountant.email)).text)![1]!;
    expect((await call(app.url, 'POST', '/api/organizations/invites/accept', { token: accountant.token, body: { token } })).status).toBeLessThan(300);
    await setBalanceNano(app, organizationId, 1_234_500_000_000n);
    await setBalanceNano(app, (await call(app.url, 'GET', '/api/auth/me', { token: ownerToken })).body.user.id, 77_000_000_000n);

    const page = await openPage(session.browser);
    await signIn(page.page, accountant);
    await page.page.getByLabel('Аккаунт').selectOption(organizationId);
    await page.page.getByRole('heading', { name: 'Баланс организации' }).waitFor();
    expect(await page.page.getByTestId('balance').textContent()).toMatch(/1\s234,50/);
    const nav = await navLabels(page.page);
    expect(nav).toContain('Выписка');
    expect(nav).not.toContain('API-ключи');
    await page.page.getByRole('link', { name: 'Выписка' }).click();
    await page.page.getByRole('heading', { name: 'Счета на оплату' }).waitFor();
    await page.page.goto(`${app.url}/app/keys`);
    await page.page.getByTestId('not-in-organization').waitFor();

    // The owner goes back to «Личный»: the person's own balance, and their own sections.
    await owner.goto(`${app.url}/app/`);
    await owner.getByRole('heading', { name: 'Баланс организации' }).waitFor();
    expect(await owner.getByTestId('balance').textContent()).toMatch(/1\s234,50/);
    await owner.getByLabel('Аккаунт').selectOption('');
    await owner.getByRole('heading', { name: 'Баланс', exact: true }).waitFor();
    await owner.waitForFunction(() => document.querySelector('[data-testid="balance"]')?.textContent?.includes('77,00'));
    expect(await navLabels(owner)).toContain('Агенты');

    // The accountant is removed while the page remembers the organisation: a reload shows «Личный» and says why.
    const removed = await call(app.url, 'POST', `/api/organizations/${organizationId}/members/${accountant.userId}/remove`, {
      token: ownerToken,
      body: { keys: 'revoke' },
    });
    expect(removed.status).toBeLessThan(300);
    await page.page.reload();
    await page.page.getByTestId('organization-notice').waitFor();
    expect(await page.page.getByLabel('Аккаунт').inputValue()).toBe('');
    expect(await navLabels(page.page)).toContain('Агенты');
    expect(page.pageErrors).toEqual([]);
    expect(session.pageErrors).toEqual([]);
    await page.context.close();
  });
});
