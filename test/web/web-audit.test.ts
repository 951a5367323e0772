// The operator's «Журнал действий» in Russian (issue 41, point 7) in a real browser: actions by their
// Russian names, providers, routes and accounts by name rather than id, changes as lines («вес: 1 → 2»),
// a record deleted since marked «(удалён)» with its id in a detail; at 1280×800 and 390×844 with nothing
// wider than the window. Screenshots: test-artifacts/screens/audit-ru*.png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { call, createApiKey, grantAdmin, registerUser, uniqueEmail, type TestApp } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, sessionToken, useBrowserApp } from '../helpers/browser';

const SCREENS = ['audit-ru', 'audit-ru-phone'] as const;
const browserSuite = browserDescribe('web-audit.test.ts');
const DESKTOP_800 = { width: 1280, height: 800 };
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

const admin = { email: uniqueEmail('audit-web'), password: 'audit-secret-1' };
let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

browserSuite('the audit in Russian in chromium', () => {
  useBrowserApp({
    screens: SCREENS,
    app: () => ({ env: { ADMIN_EMAILS: admin.email } }),
    ready: (s) => ({ app, page, pageErrors } = s),
  });

  test(
    'actions, records and changes read in Russian at desktop and phone width; a deleted provider keeps its id in a detail',
    async () => {
      await registerThroughPage(page, app.url, admin);
      await grantAdmin(app, admin.email);
      const token = await sessionToken(page);
      const adminCall = async (method: string, path: string, body?: unknown) => {
        const res = await call(app.url, method, path, { token, body });
        expect(res.status).toBeLessThan(300);
        return res.body;
      };

      const spare = await adminCall('POST', '/api/admin/providers', { name: 'Запасной', baseUrl: 'https://spare.example.com/v1', timeoutMs: 5000 });
      const pattern = 'acme/audit-web';
      await adminCall('PUT', '/api/admin/routes', { pattern, targets: [{ providerId: spare.id, weight: 1 }] });
      await adminCall('PUT', '/api/admin/routes', { pattern, targets: [{ providerId: spare.id, weight: 2 }] });
      const old = await adminCall('POST', '/api/admin/providers', { name: 'Старый', baseUrl: 'https://old.example.com/v1', timeoutMs: 3000 });
      await adminCall('DELETE', `/api/admin/providers/${old.id}`);
      const client = await registerUser(app.url, uniqueEmail('audit-web-client'));
      const key = await createApiKey(app.url, client.token, 'Сайт');
      await adminCall('PUT', `/api/admin/users/${client.userId}/keys/${key.id}/budget`, { spendLimit: 200, limitReset: 'day' });

      await page.setViewportSize(DESKTOP_800);
      await page.goto(`${app.url}/app/admin/audit`);
      const table = page.getByTestId('audit-table');
      const row = (action: string) => table.locator(`tbody tr[data-action="${action}"]`);
      await row('provider.create').first().waitFor();

      const created = await row('provider.create').filter({ hasText: 'Запасной' }).textContent();
      expect(created).toContain('Провайдер добавлен');
      expect(created).toContain('Провайдер «Запасной»');
      expect(created).toContain('время ожидания ответа: 5 с');

      const routeRows = row('route.upsert');
      expect(await routeRows.count()).toBe(2);
      const changed = await routeRows.first().textContent();
      expect(changed).toContain('Маршрут изменён');
      expect(changed).toContain(`Маршрут ${pattern}`);
      expect(changed).toContain('провайдер «Запасной», вес: 1 → 2');

      const limit = await row('key.limit').textContent();
      expect(limit).toContain(client.email);
      expect(limit).toContain('ключ: Сайт');
      expect(limit).toMatch(/лимит расходов: без лимита → 200,00\s₽/);

      // No id on screen: every record is named; the only ids in the table are the deleted provider's, in the
      // closed details of its two rows.
      const ids = ((await table.textContent()) ?? '').match(new RegExp(UUID.source, 'gi')) ?? [];
      expect(ids).toEqual([old.id, old.id]);
      expect(await table.locator('details.audit-gone[open]').count()).toBe(0);

      const deleted = row('provider.delete');
      expect(await deleted.textContent()).toContain('Провайдер удалён');
      const gone = deleted.locator('details.audit-gone');
      const summary = gone.locator('summary');
      expect(await summary.textContent()).toBe('Провайдер «Старый» (удалён)');
      expect(await summary.getAttribute('title')).toBe(`Идентификатор: ${old.id}`);
      await summary.click();
      await gone.getByText(old.id).waitFor();

      // The action filter offers the Russian names and filters by them.
      const filters = page.getByTestId('audit-filters');
      await filters.getByLabel('Действие').selectOption({ label: 'Маршрут изменён' });
      await filters.getByRole('button', { name: 'Найти' }).click();
      await row('provider.create').first().waitFor({ state: 'detached' });
      await row('route.upsert').first().waitFor();
      expect(await table.locator('tbody tr').count()).toBe(2);
      await filters.getByLabel('Действие').selectOption('');
      await filters.getByRole('button', { name: 'Найти' }).click();
      await row('provider.delete').waitFor();
      await row('provider.delete').locator('summary').click();

      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: screenPath('audit-ru'), fullPage: true });
      await page.setViewportSize(PHONE);
      await page.evaluate(() => window.scrollTo(0, 0));
      // On the phone the table is cards: each cell still says what it is and the lines still read.
      await row('route.upsert').first().getByText('провайдер «Запасной», вес: 1 → 2').waitFor();
      expect(await row('route.upsert').first().getByText('провайдер «Запасной», вес: 1 → 2').isVisible()).toBe(true);
      expect(await horizontalOverflow(page)).toBe(0);
      await page.screenshot({ path: screenPath('audit-ru-phone'), fullPage: true });
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
