// The link in the verification mail: GET /api/auth/verify-email?token=… opens a small Russian page that
// changes nothing (a mail scanner fetching every link must not verify anything); its form, submitted
// (POST /api/auth/verify-email, form-encoded), does. A client's JSON POST {token, password?, totpCode?} to
// the same path is the REST procedure auth.verifyEmail.
// The page works without JavaScript. For an ADMIN_EMAILS address the form also asks for the account's
// new password (and, after the server asks, for the two-factor code).
import { AppError } from '../http/errors';
import { readBodyText } from '../http/body';
import { VERIFY_EMAIL_PATH } from './email-verification';
import type { AccountService } from './service';
import { escapeHtml, messageCardHtml, sitePageHtml, type PageLink } from '../http/site-page';
import { accountsMessages, verificationPage, verifiedMessage } from './texts';

// The token is in the address: keep it out of caches, search engines and Referer headers; and a page whose
// button acts is never shown inside another site's frame.
export const PRIVATE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
};

/** A link's form carries a 43-character token, a password (twice) and a code: anything bigger is not one. */
const FORM_LIMIT_BYTES = 8 * 1024;

function html(status: number, title: string, main: string): Response {
  return new Response(sitePageHtml(title, main), { status, headers: { 'content-type': 'text/html; charset=utf-8', ...PRIVATE_HEADERS } });
}

const TO_DASHBOARD: PageLink = { href: '/app', text: verificationPage.toDashboard };

/**
 * A mailed link's page that says what happened, in the site's look (http/site-page.ts), with the ways on:
 * the `links` given (the first drawn as the main button), else the dashboard.
 */
export function page(
  status: number,
  title: string,
  message: string,
  links?: PageLink | readonly PageLink[],
  options: { ok?: boolean; state?: string } = {},
): Response {
  const onward = links === undefined ? [TO_DASHBOARD] : Array.isArray(links) ? (links as readonly PageLink[]) : [links as PageLink];
  return html(status, title, messageCardHtml({ title, message, links: onward, ...options }));
}

export interface LinkForm {
  action: string;
  token: string;
  title: string;
  text: string;
  button: string;
  /** A field to set the account's password (type="password"), and one to type it again if `repeat` is given. */
  password?: { label: string; hint: string; repeat?: string };
  /** The two-factor code's field. */
  totp?: boolean;
  error?: string;
}

/** The page a mailed link opens: a form that posts the token back, acting only when submitted. */
export function formPage(status: number, form: LinkForm): Response {
  const fields = [
    `<input type="hidden" name="token" value="${escapeHtml(form.token)}">`,
    form.password
      ? `<label for="password">${escapeHtml(form.password.label)}</label>` +
        `<input id="password" name="password" type="password" autocomplete="new-password" minlength="6" maxlength="1024" required>` +
        `<small>${escapeHtml(form.password.hint)}</small>` +
        (form.password.repeat
          ? `<label for="passwordRepeat">${escapeHtml(form.password.repeat)}</label>` +
            `<input id="passwordRepeat" name="passwordRepeat" type="password" autocomplete="new-password" minlength="6" maxlength="1024" required>`
          : '')
      : '',
    form.totp
      ? `<label for="totpCode">${escapeHtml(verificationPage.totpLabel)}</label>` +
        `<input id="totpCode" name="totpCode" autocomplete="one-time-code" maxlength="64" required>`
      : '',
  ].join('');
  const error = form.error ? `<p class="error" role="alert">${escapeHtml(form.error)}</p>` : '';
  return html(
    status,
    form.title,
    `<section class="card"><h1>${escapeHtml(form.title)}</h1><p>${escapeHtml(form.text)}</p>${error}` +
      `<form method="post" action="${escapeHtml(form.action)}">${fields}<div class="actions"><button type="submit">${escapeHtml(form.button)}</button></div></form></section>`,
  );
}

/** A browser (or anything else asking for HTML) gets the page; other clients get JSON. */
export const wantsHtml = (request: Request) => (request.headers.get('accept') ?? '').includes('text/html');

/** True for a page's own form post; a client's JSON POST to the same path goes to the REST procedure. */
export const isFormPost = (request: Request) => (request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');

/** A link form's fields, as the page posts them (form-encoded). */
export async function readLinkForm(request: Request): Promise<Record<string, string | undefined>> {
  const params = new URLSearchParams(await readBodyText(request, FORM_LIMIT_BYTES));
  const fields: Record<string, string | undefined> = {};
  for (const name of ['token', 'password', 'passwordRepeat', 'totpCode']) fields[name] = params.get(name) ?? undefined;
  return fields;
}

type Accounts = Pick<AccountService, 'verifyEmail' | 'inspectVerificationLink' | 'explainVerificationLink'>;

const LOGIN: PageLink = { href: '/app/login', text: verificationPage.toLogin };
const REQUEST_NEW: PageLink = { href: '/app/account', text: verificationPage.requestNew };

/**
 * The page of a link that cannot be used, saying what happened: an address confirmed already is good news
 * (200, «войдите»), not «недействительна»; an expired link, one for an address since changed, or an
 * unknown one say so, each with the way to a new link (400).
 */
async function deadLinkPage(accounts: Accounts, token: string): Promise<Response> {
  const why = await accounts.explainVerificationLink(token);
  switch (why) {
    case 'verified':
      return page(200, verificationPage.alreadyTitle, verificationPage.already, [LOGIN], { ok: true, state: why });
    case 'expired':
      return page(400, verificationPage.expiredTitle, verificationPage.expired, [REQUEST_NEW, LOGIN], { state: why });
    case 'other_address':
      return page(400, verificationPage.otherAddressTitle, verificationPage.otherAddress, [REQUEST_NEW], { state: why });
    case 'unknown':
      return page(400, verificationPage.unknownTitle, verificationPage.unknown, [REQUEST_NEW], { state: why });
  }
}

function verifyForm(token: string, setsPassword: boolean, extra: { totp?: boolean; error?: string } = {}): LinkForm {
  return {
    action: VERIFY_EMAIL_PATH,
    token,
    title: verificationPage.confirmTitle,
    text: setsPassword ? verificationPage.confirmAdminText : verificationPage.confirmText,
    button: verificationPage.confirmButton,
    ...(setsPassword ? { password: { label: verificationPage.passwordLabel, hint: verificationPage.passwordHint } } : {}),
    ...extra,
  };
}

/** GET: the page (or, to a client asking for JSON, what the link is for). Changes nothing. */
export async function verifyEmailPage(accounts: Accounts, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const link = await accounts.inspectVerificationLink(token);
  if (!link) {
    if (wantsHtml(request)) return deadLinkPage(accounts, token);
    throw new AppError('invalid_request_error', accountsMessages.verificationLinkInvalid, { headers: PRIVATE_HEADERS });
  }
  if (wantsHtml(request)) return formPage(200, verifyForm(token, link.setsPassword));
  return new Response(
    JSON.stringify({
      emailVerified: false,
      passwordRequired: link.setsPassword,
      message: link.setsPassword ? verificationPage.confirmAdminText : verificationPage.confirmText,
    }),
    { headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS } },
  );
}

/** The form's POST (a client's JSON POST is the REST procedure auth.verifyEmail): verifies, answers a page. */
export async function verifyEmailSubmit(accounts: Accounts, request: Request): Promise<Response> {
  const fields = await readLinkForm(request);
  const token = fields.token ?? '';
  try {
    const verified = await accounts.verifyEmail(token, { password: fields.password, totpCode: fields.totpCode });
    if (!verified) throw new AppError('invalid_request_error', accountsMessages.verificationLinkInvalid, { param: 'token' });
    return page(200, verificationPage.verifiedTitle, verifiedMessage(verified), [{ href: '/app', text: verificationPage.toDashboard }], { ok: true, state: 'done' });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    // A password or a code the form lacked: the link is still unused, the form comes back with the message.
    const link = error.param === 'token' ? null : await accounts.inspectVerificationLink(token);
    if (!link) return error.status >= 500 ? page(error.status, verificationPage.invalidTitle, error.message) : deadLinkPage(accounts, token);
    const askCode = error.errorCode === 'totp_required' || error.errorCode === 'totp_invalid';
    return formPage(error.status, verifyForm(token, link.setsPassword, { totp: askCode, error: error.message }));
  }
}
