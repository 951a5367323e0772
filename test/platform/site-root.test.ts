// GET / answers by Accept: a browser gets a page saying what the service is, with the ways into the dashboard's
// login and registration forms, the base URL and the support contact; an API client keeps the JSON
// information document (test/platform/openapi.test.ts pins its content).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('the site root', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ env: { PUBLIC_BASE_URL: 'https://conduit.example', SUPPORT_CONTACT: 'help@conduit.example' } });
  });
  afterAll(() => app?.close());

  test('a browser gets the page about the service, not a redirect', async () => {
    const res = await fetch(`${app.url}/`, { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('vary')).toBe('Accept');
    const html = await res.text();
    expect(html).toContain('<html lang="ru">');
    expect(html).toContain('name="viewport"');
    expect(html).toContain('Conduit');
    expect(html).toContain('<a class="button primary" href="/app/register" data-testid="root-register">Зарегистрироваться</a>');
    expect(html).toContain('<a class="button secondary" href="/app/login" data-testid="root-login">Войти</a>');
    expect(html).toContain('https://conduit.example/v1');
    expect(html).toContain('<a href="mailto:help@conduit.example">help@conduit.example</a>');
    expect(html).not.toContain('<script');
  });

  test('an API client (JSON, any type, or no Accept) keeps the information document', async () => {
    for (const accept of ['application/json', '*/*', undefined, 'text/html;q=0, application/json']) {
      const res = await fetch(`${app.url}/`, { headers: accept ? { accept } : {} });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('vary')).toBe('Accept');
      const body = (await res.json()) as { name: string; supportContact: string | null; dashboard: string; config: { upstreamProxy: string } };
      expect(body).toMatchObject({
        name: 'Conduit',
        dashboard: '/app',
        supportContact: 'help@conduit.example',
        config: { upstreamProxy: 'https://conduit.example/v1' },
      });
    }
  });

  test('without a support contact the page says so instead of showing an empty line', async () => {
    const bare = await startTestApp();
    try {
      const html = await (await fetch(`${bare.url}/`, { headers: { accept: BROWSER_ACCEPT } })).text();
      expect(html).toContain('Контакт поддержки оператор сервиса не указал.');
      expect(html).not.toContain('mailto:');
    } finally {
      await bare.close();
    }
  });
});
