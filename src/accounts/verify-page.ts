// The link in the verification mail: GET /api/auth/verify-email?token=… opens a small Russian page that
// changes nothing (a mail scanner fetching every link must not verify anything); its form, submitted
// (POST /api/auth/verify-email, form-encoded from the page, or JSON {token, password?, totpCode?}), does.
// The page works without JavaScript. For an ADMIN_EMAILS address the form also asks for the account's
// new password (and, after the server asks, for the two-factor code).
import { AppError, errorResponse } from '../http/errors';
import { readBodyText } from '../http/body';
import { errorMessages } from '../http/messages';
import { VERIFY_EMAIL_PATH } from './email-verification';
import type { AccountService } from './service';
import { escapeHtml, verificationPage } from './texts';

// The token is in the address: keep it out of caches, search engines and Referer headers; and a page whose
// button acts is never shown inside another site's frame.
export const PRIVATE_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
};

/** A link's form carries a 43-character token, a password and a code: anything bigger is not one. */
const FORM_LIMIT_BYTES = 8 * 1024;

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}a{color:#2456d3}' +
  'label{display:block;margin:1rem 0 .25rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}' +
  'button{font:inherit;margin-top:1rem;padding:.5rem 1.2rem;cursor:pointer}.error{color:#b3261e}';

function html(status: number, title: string, body: string): Response {
  const text = `<!doctype html>
<html lang="ru">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} — Conduit</title>
<style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}<p><a href="/app">${escapeHtml(verificationPage.toDashboard)}</a></p></body>
</html>
`;
  return new Response(text, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...PRIVATE_HEADERS } });
}

/** A small Russian page with a link back to the dashboard (also the e-mail change link's page). */
export function page(status: number, title: string, message: string): Response {
  return html(status, title, `<p>${escapeHtml(message)}</p>`);
}

export interface LinkForm {
  action: string;
  token: string;
  title: string;
  text: string;
  button: string;
  /** A field to set the account's password (type="password"). */
  password?: { label: string; hint: string };
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
        `<small>${escapeHtml(form.password.hint)}</small>`
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
    `<p>${escapeHtml(form.text)}</p>${error}<form method="post" action="${escapeHtml(form.action)}">${fields}` +
      `<button type="submit">${escapeHtml(form.button)}</button></form>`,
  );
}

const wantsHtml = (request: Request) => (request.headers.get('accept') ?? '').includes('text/html');

/** A link form's POST body: form-encoded (the page) or a JSON object (a client). */
export async function readLinkForm(request: Request): Promise<{ fromPage: boolean; fields: Record<string, string | undefined> }> {
  const type = (request.headers.get('content-type') ?? '').toLowerCase();
  const text = await readBodyText(request, FORM_LIMIT_BYTES);
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const params = new URLSearchParams(text);
    const fields: Record<string, string | undefined> = {};
    for (const name of ['token', 'password', 'totpCode']) fields[name] = params.get(name) ?? undefined;
    return { fromPage: true, fields };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('invalid_request_error', errorMessages.malformedJson);
  }
  const fields: Record<string, string | undefined> = {};
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const name of ['token', 'password', 'totpCode']) {
      const value = (parsed as Record<string, unknown>)[name];
      fields[name] = typeof value === 'string' ? value : undefined;
    }
  }
  return { fromPage: false, fields };
}

type Accounts = Pick<AccountService, 'verifyEmail' | 'inspectVerificationLink'>;

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
    if (wantsHtml(request)) return page(400, verificationPage.invalidTitle, errorMessages.verificationLinkInvalid);
    return errorResponse(new AppError('invalid_request_error', errorMessages.verificationLinkInvalid), PRIVATE_HEADERS);
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

/** POST: verifies (and for a listed address sets the password and makes the account admin). */
export async function verifyEmailSubmit(accounts: Accounts, request: Request): Promise<Response> {
  let fromPage = wantsHtml(request);
  let token = '';
  try {
    const form = await readLinkForm(request);
    fromPage ||= form.fromPage;
    token = form.fields.token ?? '';
    const verified = await accounts.verifyEmail(token, { password: form.fields.password, totpCode: form.fields.totpCode });
    if (!verified) throw new AppError('invalid_request_error', errorMessages.verificationLinkInvalid, { param: 'token' });
    const message = [
      verificationPage.verified,
      verified.creditedNano > 0n ? verificationPage.bonusCredited : '',
      verified.promoted ? verificationPage.promoted : '',
    ]
      .filter(Boolean)
      .join(' ');
    if (fromPage) return page(200, verificationPage.verifiedTitle, message);
    return new Response(JSON.stringify({ emailVerified: true, role: verified.promoted ? 'admin' : undefined, message }), {
      headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS },
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (!fromPage) return errorResponse(error, PRIVATE_HEADERS);
    // A password or a code the form lacked: the link is still unused, the form comes back with the message.
    const link = error.param === 'token' ? null : await accounts.inspectVerificationLink(token);
    if (!link) return page(error.status >= 500 ? error.status : 400, verificationPage.invalidTitle, error.message);
    const askCode = error.errorCode === 'totp_required' || error.errorCode === 'totp_invalid';
    return formPage(error.status, verifyForm(token, link.setsPassword, { totp: askCode, error: error.message }));
  }
}
