// The keys screen in a real browser (issue 41 point 3), at 1280×800 and 390×844: «Скопировано» speaks of
// the key shown (after copying key A, the panel of a new key B is not marked copied while the clipboard
// still holds A), and a long key name stays one line cut with «…», its full text in the title, in the
// list, the new key's panel and the change and revoke dialogs. Screenshots: test-artifacts/screens/keys-long-name(-phone).png.
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app';
import { uniqueEmail } from '../helpers/app';
import { browserDescribe, FLOW_TIMEOUT_MS, horizontalOverflow, PHONE, registerThroughPage, screenPath, useBrowserApp } from '../helpers/browser';

const SCREENS = ['keys-long-name', 'keys-long-name-phone'] as const;
const VIEWPORTS = [
  { name: 'keys-long-name', size: { width: 1280, height: 800 } },
  { name: 'keys-long-name-phone', size: PHONE },
] as const;
/** 100 characters, the most a key's name may have; one per width, so each pass finds its own row. */
const longName = (width: number) => `${width} Интеграция с сайтом интернет-магазина «Лён и хлопок», раздел оптовых заказов ${'x'.repeat(100)}`.slice(0, 100);

const browserSuite = browserDescribe('web-keys-panel.test.ts');

let app: TestApp;
let page: Page;
let pageErrors: string[] = [];

async function createKey(name: string): Promise<string> {
  const before = await page
    .getByTestId('new-key-value')
    .textContent({ timeout: 100 })
    .catch(() => null);
  await page.getByLabel('Название', { exact: true }).fill(name);
  await page.getByRole('button', { name: 'Создать ключ' }).click();
  await page.waitForFunction((old) => {
    const shown = document.querySelector('[data-testid="new-key-value"]')?.textContent;
    return shown && shown !== old;
  }, before);
  return (await page.getByTestId('new-key-value').textContent())!;
}

/** What the new key's panel says of its own value's copy button. */
const keyCopyStatus = () => page.getByTestId('created-key').locator('.copy-value .copy-status').textContent();

/** Whether a name element is one line cut by the browser, and titled with the full name. */
async function cutInOneLine(selector: string) {
  return page.locator(selector).evaluate((element) => {
    const style = getComputedStyle(element);
    return {
      title: element.getAttribute('title'),
      cut: element.scrollWidth > element.clientWidth,
      oneLine: element.getBoundingClientRect().height < 2 * Number.parseFloat(style.lineHeight || '24'),
      ellipsis: style.textOverflow,
    };
  });
}

browserSuite('the keys screen', () => {
  useBrowserApp({ screens: SCREENS, ready: (s) => ({ app, page, pageErrors } = s) });

  test(
    'the copied state belongs to the key shown, and long names are cut with a title at both widths',
    async () => {
      await registerThroughPage(page, app.url, { email: uniqueEmail('keys-panel'), password: 'keys-panel-secret-1' });
      for (const viewport of VIEWPORTS) {
        const LONG_NAME = longName(viewport.size.width);
        await page.setViewportSize(viewport.size);
        await page.goto(`${app.url}/app/keys`);
        await page.getByRole('heading', { name: 'API-ключи' }).waitFor();

        const first = await createKey(`Ключ A ${viewport.size.width}`);
        await page.getByTestId('created-key').locator('.copy-value').getByRole('button', { name: 'Копировать', exact: true }).click();
        await page.getByTestId('created-key').getByText('Скопировано').waitFor();
        // At once, while A's «Скопировано» would still be showing (it fades after 2.5 s).
        const second = await createKey(`Ключ B ${viewport.size.width}`);
        expect(second).not.toBe(first);
        expect(await keyCopyStatus()).toBe('');
        await page.getByTestId('created-key').locator('.copy-value').getByRole('button', { name: 'Копировать', exact: true }).click();
        await page.getByTestId('created-key').getByText('Скопировано').waitFor();

        await createKey(LONG_NAME);
        const row = page.locator('[data-testid="keys-table"] tbody tr', { hasText: LONG_NAME.slice(0, 30) }).first();
        await row.waitFor();
        const listed = await row.locator('.key-title').evaluate((e) => e.getAttribute('title'));
        expect(listed).toBe(LONG_NAME);
        const inList = await cutInOneLine(`[data-testid="keys-table"] tbody tr:has(.key-title[title="${LONG_NAME}"]) .key-title`);
        expect(inList).toEqual({ title: LONG_NAME, cut: true, oneLine: true, ellipsis: 'ellipsis' });
        const inPanel = await cutInOneLine('[data-testid="created-key"] .key-title');
        // The panel is as wide as the card: at 1280 px the whole name fits there, on the phone it is cut.
        expect(inPanel).toEqual({ title: LONG_NAME, cut: viewport.size.width < 600, oneLine: true, ellipsis: 'ellipsis' });
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await page.screenshot({ path: screenPath(viewport.name), fullPage: true });

        await row.getByRole('button', { name: `Изменить ключ «${LONG_NAME}»` }).click();
        const dialog = page.getByRole('dialog', { name: `Изменить ключ «${LONG_NAME}»` });
        await dialog.waitFor();
        expect(await cutInOneLine('[data-testid="edit-key-dialog"] h2')).toEqual({
          title: `Изменить ключ «${LONG_NAME}»`,
          cut: true,
          oneLine: true,
          ellipsis: 'ellipsis',
        });
        await dialog.getByRole('button', { name: 'Отмена' }).click();

        await row.getByRole('button', { name: `Отозвать ключ «${LONG_NAME}»` }).click();
        const confirm = page.getByRole('dialog', { name: 'Отозвать ключ?' });
        await confirm.waitFor();
        expect((await cutInOneLine('dialog[open] .key-title')).title).toBe(LONG_NAME);
        await confirm.getByRole('button', { name: 'Отозвать' }).click();
        await row.getByText('Отозван').waitFor();
      }
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS * 2,
  );

  test(
    "a key's rpm, tpm and rpd: set at creation, checked before sending, changed in the dialog, listed under its limit",
    async () => {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(`${app.url}/app/keys`);
      const form = page.getByTestId('new-key-form');
      await form.getByLabel('Название', { exact: true }).fill('Ключ с лимитами');
      await form.getByLabel('Запросов в минуту (rpm)').fill('0');
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      await form.getByText('Запросов в минуту: не меньше 1 (пусто — по умолчанию)').waitFor();
      await form.getByLabel('Запросов в минуту (rpm)').fill('60');
      await form.getByLabel('Токенов в минуту (tpm)').fill('100 000');
      await page.getByRole('button', { name: 'Создать ключ' }).click();
      await page.getByTestId('created-key').waitFor();
      const row = page.locator('[data-testid="keys-table"] tbody tr', { hasText: 'Ключ с лимитами' });
      const rates = row.getByTestId('key-rates');
      await rates.waitFor();
      expect((await rates.textContent())!.replace(/\s/g, ' ')).toBe('60 запр./мин · 100 000 ток./мин');

      await row.getByRole('button', { name: 'Изменить ключ «Ключ с лимитами»' }).click();
      const dialog = page.getByRole('dialog', { name: 'Изменить ключ «Ключ с лимитами»' });
      expect(await dialog.getByLabel('Запросов в минуту (rpm)').inputValue()).toBe('60');
      await dialog.getByLabel('Запросов в минуту (rpm)').fill('');
      await dialog.getByLabel('Запросов в сутки (rpd)').fill('500');
      await dialog.getByRole('button', { name: 'Сохранить' }).click();
      await page.getByText('Ключ «Ключ с лимитами» сохранён').waitFor();
      await row
        .getByTestId('key-rates')
        .getByText(/500 запр\.\/сутки/)
        .waitFor();
      expect((await rates.textContent())!.replace(/\s/g, ' ')).toBe('100 000 ток./мин · 500 запр./сутки');
      expect(pageErrors).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
