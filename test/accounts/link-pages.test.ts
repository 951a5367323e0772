// The pages a mailed link opens say what happened, in the site root's look (issue 41 point 9): an address
// confirmed («Адрес подтверждён»), confirmed already («Адрес уже подтверждён — войдите», never
// «недействительна»), a link out of date («Ссылка устарела — запросите новую»: expired, or replaced by a newer
// mail), one for an address the account has since changed, an unknown one — each with a link onward. The
// password-reset and e-mail change pages share the look.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp';
import { call, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

const PUBLIC_BASE_URL = 'https://conduit.example';
const VERIFY_LINK = /https:\/\/conduit\.example\/api\/auth\/verify-email\?token=([A-Za-z0-9_-]+)/;
const RESET_LINK = /https:\/\/conduit\.example\/api\/auth\/password-reset\/confirm\?token=([A-Za-z0-9_-]+)/;

let smtp: FakeSmtp;
let app: TestApp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  app = await startTestApp({ env: { REQUIRE_EMAIL_VERIFICATION: 'true', SMTP_URL: smtp.url, SMTP_FROM: 'Conduit <no-reply@conduit.example>', PUBLIC_BASE_URL } });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
});

function tokenIn(mail: ReceivedMail, pattern: RegExp): string {
  const match = pattern.exec(mail.text);
  if (!match) throw new Error(`no link in: ${mail.text}`);
  return match[1]!;
}

async function registered() {
  const email = uniqueEmail('link-pages');
  const res = await call(app.url, 'POST', '/api/auth/register', { body: { email, password: 'secret123' } });
  expect(res.status).toBe(201);
  return { email, jwt: res.body.token as string, userId: res.body.user.id as string };
}

const openVerify = (token: string) => fetch(`${app.url}/api/auth/verify-email?token=${encodeURIComponent(token)}`, { headers: { accept: 'text/html' } });
const submitVerify = (token: string) =>
  fetch(`${app.url}/api/auth/verify-email`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ token }).toString(),
  });

/** The site root's page, as a browser gets it: the look every link page must share. */
async function rootStyle(): Promise<string> {
  const html = await (await fetch(`${app.url}/`, { headers: { accept: 'text/html' } })).text();
  return /<style>([\s\S]*?)<\/style>/.exec(html)![1]!.trim();
}

/** A link page's heading, its state, its links onward; and that it wears the site root's styles. */
async function read(response: Response) {
  expect(response.headers.get('content-type')).toContain('text/html');
  expect(response.headers.get('cache-control')).toBe('no-store');
  const html = await response.text();
  expect(/<style>([\s\S]*?)<\/style>/.exec(html)?.[1]?.trim()).toBe(await rootStyle());
  expect(html).toContain('<p class="brand"><a href="/">Conduit</a></p>');
  return {
    status: response.status,
    html,
    heading: /<h1>([^<]*)<\/h1>/.exec(html)?.[1],
    state: /data-state="([^"]*)"/.exec(html)?.[1],
    links: [...html.matchAll(/<a class="button[^"]*" href="([^"]*)">([^<]*)<\/a>/g)].map((m) => ({ href: m[1], text: m[2] })),
  };
}

describe('the verification link says what happened', () => {
  test('confirmed, then confirmed already (opened or submitted again): «войдите», never «недействительна»', async () => {
    const user = await registered();
    const token = tokenIn(await smtp.waitFor(user.email), VERIFY_LINK);

    const form = await read(await openVerify(token));
    expect(form.status).toBe(200);
    expect(form.heading).toBe('Подтверждение e-mail');
    expect(form.html).toContain('<form method="post" action="/api/auth/verify-email">');

    const done = await read(await submitVerify(token));
    expect(done).toMatchObject({ status: 200, heading: 'Адрес подтверждён', state: 'done' });
    expect(done.html).toContain('Стартовый бонус начислен');
    expect(done.links[0]).toEqual({ href: '/app', text: 'Перейти в панель' });

    for (const again of [await openVerify(token), await submitVerify(token)]) {
      const page = await read(again);
      expect(page).toMatchObject({ status: 200, heading: 'Адрес уже подтверждён', state: 'verified' });
      expect(page.html).not.toContain('недействительна');
      expect(page.html).not.toContain('<form');
      expect(page.links).toEqual([{ href: '/app/login', text: 'Войти' }]);
    }
    // Nothing more was credited.
    expect((await call(app.url, 'GET', '/api/balance', { token: user.jwt })).body.balance).toBe(3);
  });

  test('expired, or replaced by a newer mail: «Ссылка устарела» with the way to a new one; nothing is confirmed', async () => {
    const user = await registered();
    const first = tokenIn(await smtp.waitFor(user.email, 0), VERIFY_LINK);
    expect((await call(app.url, 'POST', '/api/auth/resend-verification', { token: user.jwt })).status).toBe(200);
    const second = tokenIn(await smtp.waitFor(user.email, 1), VERIFY_LINK);

    const replaced = await read(await openVerify(first));
    expect(replaced).toMatchObject({ status: 400, heading: 'Ссылка устарела', state: 'expired' });
    expect(replaced.links[0]).toEqual({ href: '/app/account', text: 'Запросить новую ссылку' });
    expect((await read(await submitVerify(first))).heading).toBe('Ссылка устарела');

    await app.sql(`update email_verifications set expires_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    const expired = await read(await openVerify(second));
    expect(expired).toMatchObject({ status: 400, heading: 'Ссылка устарела', state: 'expired' });
    expect(expired.html).toContain('Отправить письмо ещё раз');
    expect((await read(await submitVerify(second))).state).toBe('expired');
    expect((await call(app.url, 'GET', '/api/auth/me', { token: user.jwt })).body.user.emailVerified).toBe(false);
  });

  test('a link for an address the account has since changed, and an unknown one, each say so', async () => {
    const user = await registered();
    const token = tokenIn(await smtp.waitFor(user.email), VERIFY_LINK);
    await app.sql('update users set email = $1 where id = $2', [uniqueEmail('link-pages-moved'), user.userId]);
    const moved = await read(await openVerify(token));
    expect(moved).toMatchObject({ status: 400, heading: 'Ссылка для прежнего адреса', state: 'other_address' });
    expect(moved.links[0]?.href).toBe('/app/account');

    for (const made of ['A'.repeat(43), 'short', '']) {
      const unknown = await read(await openVerify(made));
      expect(unknown).toMatchObject({ status: 400, heading: 'Ссылка не найдена', state: 'unknown' });
      expect(unknown.html).toContain('скопирована не полностью');
      expect(unknown.links[0]).toEqual({ href: '/app/account', text: 'Запросить новую ссылку' });
    }
    // A client asking for JSON still gets the error document.
    const json = await fetch(`${app.url}/api/auth/verify-email?token=${'A'.repeat(43)}`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect((await json.json()).error.type).toBe('invalid_request_error');
  });
});

describe('the other mailed links wear the same look', () => {
  test('password reset: the form, the done page with «Войти», a dead link with «Запросить новую ссылку»', async () => {
    const user = await registered();
    await smtp.waitFor(user.email, 0);
    expect((await call(app.url, 'POST', '/api/auth/password-reset', { body: { email: user.email } })).status).toBe(200);
    const token = tokenIn(await smtp.waitFor(user.email, 1), RESET_LINK);
    const path = `${app.url}/api/auth/password-reset/confirm`;

    const form = await read(await fetch(`${path}?token=${token}`, { headers: { accept: 'text/html' } }));
    expect(form).toMatchObject({ status: 200, heading: 'Новый пароль' });
    expect(form.html).toContain('type="password"');

    const post = (body: Record<string, string>) =>
      fetch(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
        body: new URLSearchParams(body).toString(),
      });
    const done = await read(await post({ token, password: 'new-pass-1', passwordRepeat: 'new-pass-1' }));
    expect(done).toMatchObject({ status: 200, heading: 'Пароль изменён' });
    expect(done.links[0]).toEqual({ href: '/app/login', text: 'Войти' });

    const dead = await read(await fetch(`${path}?token=${token}`, { headers: { accept: 'text/html' } }));
    expect(dead.status).toBe(400);
    expect(dead.links[0]).toEqual({ href: '/app/forgot', text: 'Запросить новую ссылку' });
  });

  test('e-mail change: a dead confirmation or cancel link', async () => {
    for (const path of ['/api/account/email/confirm', '/api/account/email/revert']) {
      const dead = await read(await fetch(`${app.url}${path}?token=${'B'.repeat(43)}`, { headers: { accept: 'text/html' } }));
      expect(dead.status).toBe(400);
      expect(dead.heading).toBeTruthy();
      expect(dead.links.length).toBeGreaterThan(0);
      if (path.endsWith('/confirm'))
        expect(dead.links).toEqual([
          { href: '/app/account', text: 'Сменить e-mail ещё раз' },
          { href: '/app/login', text: 'Войти' },
        ]);
    }
  });
});
