// The dashboard page in a real browser: Debian's chromium driven by playwright-core, against the real app.
// Shared by the browser test files; each starts its own app and browser.
import { afterAll, beforeAll, describe } from 'bun:test';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureWebBuilt } from '../../scripts/build-web';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { grantAdmin, startTestApp, uniqueEmail, type StartTestAppOptions, type TestApp } from './app';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENS_DIR = fileURLToPath(new URL('../../test-artifacts/screens/', import.meta.url));
/** Per browser test: each drives several screens; the preload's default does not reach every run. */
export const FLOW_TIMEOUT_MS = 60_000;
/** For beforeAll: a clean clone typechecks and builds the page first. */
export const SETUP_TIMEOUT_MS = 240_000;
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export const hasChromium = existsSync(CHROMIUM);

/** `describe`, or `describe.skip` with a warning saying how to get chromium when it is missing. */
export function browserDescribe(file: string): typeof describe | typeof describe.skip {
  if (hasChromium) return describe;
  console.warn(`${file}: ${CHROMIUM} не найден — тесты панели в браузере пропущены. Установите: apt-get install -y chromium (.ci/run делает это сам).`);
  return describe.skip;
}

/**
 * Builds the page when stale. With `types`, a server change the page's types rest on rebuilds too, so a
 * server type the page no longer fits fails here.
 */
export async function buildPage(): Promise<void> {
  await ensureWebBuilt(() => {}, { types: true });
}

/** Removes this file's old screenshots (only these: other browser test files keep theirs) and makes the folder. */
export function prepareScreens(names: readonly string[]): void {
  mkdirSync(SCREENS_DIR, { recursive: true });
  for (const name of names) rmSync(screenPath(name), { force: true });
}

export const screenPath = (name: string) => join(SCREENS_DIR, `${name}.png`);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // launch() gives every run a fresh temporary profile; the flags keep chromium off the network
    // and away from the sandbox and GPU this environment lacks.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface BrowserPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors the page raised: a test ends by expecting none. */
  pageErrors: string[];
}

/** A Russian-locale desktop page whose uncaught errors are collected. */
export async function openPage(browser: Browser): Promise<BrowserPage> {
  const context = await browser.newContext({ viewport: DESKTOP, locale: 'ru-RU' });
  const page = await context.newPage();
  // Generous: only a failing wait runs to it, and the suite's parallel shards slow a page down.
  page.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { context, page, pageErrors };
}

/** The JWT of the page's session, for API calls that check what the page did. */
export async function sessionToken(page: Page): Promise<string> {
  const raw = await page.evaluate(() => localStorage.getItem('conduit.session'));
  return (JSON.parse(raw!) as { token: string }).token;
}

/** How far the page is wider than the window (0 or less: nothing to scroll sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  // Measured once the layout settles: a chart sizes itself to its box from a ResizeObserver (UsageChart,
  // StatsChart), so for a moment after the viewport narrows it is as wide as before; on a busy machine that
  // moment is long enough to be measured. Overflow that lasts 2 s is real.
  const measure = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  let over = await measure();
  for (const until = Date.now() + 2000; over > 0 && Date.now() < until; over = await measure()) await page.waitForTimeout(50);
  return over;
}

/** Registers through the page's own form and waits for the overview: the start of every flow after login. */
export async function registerThroughPage(page: Page, baseUrl: string, user: { email: string; password: string }): Promise<void> {
  await page.goto(`${baseUrl}/app/register`);
  await page.getByLabel('E-mail').fill(user.email);
  await page.getByLabel('Пароль').fill(user.password);
  await page.getByRole('button', { name: 'Зарегистрироваться' }).click();
  await page.waitForURL(`${baseUrl}/app/`);
}

/**
 * The operator of a console test: registered through the page, granted the admin role as `npm run admin:grant`
 * does (registering an ADMIN_EMAILS address grants nothing), and the page reloaded so that it learns the role.
 */
export async function signInAsOperator(page: Page, app: TestApp, admin: { email: string; password: string }): Promise<void> {
  await registerThroughPage(page, app.url, admin);
  await grantAdmin(app, admin.email);
  await page.reload();
}

/** A browser test file's app, browser and page, live once its beforeAll has run. */
export interface BrowserApp {
  readonly app: TestApp;
  readonly browser: Browser;
  /** Absent with `page: false`. */
  readonly page: Page;
  readonly context: BrowserContext;
  /** Uncaught errors the page raised: a test ends by expecting none. */
  readonly pageErrors: string[];
}

export interface BrowserAppOptions {
  /** This file's screenshots: the old ones are removed first. */
  screens?: readonly string[];
  /** false: the file needs no built dashboard (it serves its own page). */
  build?: boolean;
  /** Before the app starts, e.g. the fakes whose addresses go into its environment. */
  before?: () => Promise<unknown>;
  /** startTestApp's options, asked for once `before` has run. */
  app?: () => StartTestAppOptions;
  /** false: no page is opened; the tests open their own with openPage(browser). */
  page?: boolean;
  /** Once the app, the browser and the page are up: users, keys, routes the tests start from. */
  ready?: (session: BrowserApp) => Promise<unknown> | unknown;
  /** After the browser and the app are closed: the fakes and servers `before` started. */
  after?: () => Promise<unknown> | unknown;
}

/**
 * The setup every browser test file shares, for use inside its describe: builds the page when stale,
 * clears the file's screenshots, starts the app and chromium and opens a Russian-locale desktop page
 * (beforeAll); closes the browser, the app and then what `after` names (afterAll). Returns the session,
 * filled in once the beforeAll has run.
 */
export function useBrowserApp(options: BrowserAppOptions = {}): BrowserApp {
  const state: { app?: TestApp; browser?: Browser; opened?: BrowserPage } = {};
  const missing = (what: string): never => {
    throw new Error(`useBrowserApp: ${what} is not ready (read it inside a test or after the beforeAll)`);
  };
  const session: BrowserApp = {
    get app() {
      return state.app ?? missing('the app');
    },
    get browser() {
      return state.browser ?? missing('the browser');
    },
    get page() {
      return state.opened?.page ?? missing('the page');
    },
    get context() {
      return state.opened?.context ?? missing('the page');
    },
    get pageErrors() {
      return state.opened?.pageErrors ?? missing('the page');
    },
  };
  beforeAll(async () => {
    if (options.build !== false) await buildPage();
    if (options.screens) prepareScreens(options.screens);
    await options.before?.();
    state.app = await startTestApp(options.app?.());
    state.browser = await launchChromium();
    if (options.page !== false) state.opened = await openPage(state.browser);
    await options.ready?.(session);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await state.browser?.close();
    await state.app?.close();
    await options.after?.();
  });
  return session;
}

const failWith = (message: string): never => {
  throw new Error(message);
};

/** A console test file's session: its operator, signed in by `signIn`, and the fake upstream with `upstream`. */
export interface ConsoleApp extends BrowserApp {
  readonly operator: { email: string; password: string };
  /** Only with `upstream: true`. */
  readonly upstream: FakeUpstream;
  /** The operator signed in on `page` (the session's own by default) as signInAsOperator does; the session token, for API calls. */
  signIn(page?: Page): Promise<string>;
}

/**
 * useBrowserApp for a file that drives the admin console: an operator of its own (an address starting with
 * `operator`, named in ADMIN_EMAILS) and, with `upstream`, a fake model upstream the app routes to, closed after.
 */
export function useConsoleApp(options: { screens: readonly string[]; operator: string; upstream?: boolean; ready?: (session: ConsoleApp) => unknown }): ConsoleApp {
  const operator = { email: uniqueEmail(options.operator), password: `${options.operator}-secret-1` };
  let upstream: FakeUpstream | undefined;
  const browser = useBrowserApp({
    screens: options.screens,
    before: async () => {
      if (options.upstream) upstream = await startFakeUpstream();
    },
    app: () => ({ env: { ADMIN_EMAILS: operator.email, ...(upstream ? { UPSTREAM_BASE_URL: upstream.url } : {}) } }),
    ready: () => options.ready?.(session),
    after: () => upstream?.close(),
  });
  const session: ConsoleApp = Object.create(browser, {
    operator: { value: operator },
    upstream: {
      get: () => upstream ?? failWith('useConsoleApp: the fake upstream is not there (`upstream: true`, read inside a test or after the beforeAll)'),
    },
    signIn: {
      value: async (page: Page = browser.page) => {
        await signInAsOperator(page, browser.app, operator);
        return sessionToken(page);
      },
    },
  });
  return session;
}
