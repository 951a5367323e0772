// The link in the password-reset mail, opened in a browser (no JWT): GET /api/auth/password-reset/confirm?token=…
// shows a small Russian page that changes nothing (a mail scanner fetching every link must not use it up),
// with a form (new password, the same again, and, when the account has two-factor login on, the code)
// whose POST (form-encoded, to the same path) sets the password through the same service call as the JSON
// confirm: the same limits, the same code rule, every session and link ended. The form hands out no
// session: the page says to sign in. A client's JSON POST to the path is the REST procedure
// accountSecurity.confirmPasswordReset; a client asking GET for JSON learns whether the link is live.
//
// The code's field is shown only when the account has two-factor login on: whoever holds the link can
// learn that anyway by submitting the form (the answer then asks for the code), so showing it up front
// tells the link holder nothing new and spares everyone else a field they cannot fill.
import { AppError } from '../http/errors';
import { accountsMessages } from './texts';
import { PASSWORD_RESET_LINK_PATH } from './password-reset';
import { passwordResetPage } from './password-reset-texts';
import type { AccountService } from './service';
import { formPage, page, PRIVATE_HEADERS, readLinkForm, wantsHtml, type LinkForm } from './verify-page';

type Accounts = Pick<AccountService, 'inspectPasswordResetLink' | 'resetPasswordByForm'>;

const MIN_PASSWORD = 6;
const MAX_PASSWORD = 1024;
/** As loginInput's totpCode: six digits or a recovery code, never longer. */
const MAX_CODE = 64;

const LOGIN_LINK = { href: '/app/login', text: passwordResetPage.toLogin };
const REQUEST_NEW_LINK = { href: '/app/forgot', text: passwordResetPage.requestNew };

function resetForm(token: string, twoFactor: boolean, error?: string): LinkForm {
  return {
    action: PASSWORD_RESET_LINK_PATH,
    token,
    title: passwordResetPage.title,
    text: twoFactor ? passwordResetPage.textTwoFactor : passwordResetPage.text,
    button: passwordResetPage.button,
    password: { label: passwordResetPage.passwordLabel, hint: passwordResetPage.passwordHint, repeat: passwordResetPage.repeatLabel },
    totp: twoFactor,
    ...(error ? { error } : {}),
  };
}

const deadLink = (message: string = accountsMessages.passwordResetLinkInvalid) => page(400, passwordResetPage.invalidTitle, message, REQUEST_NEW_LINK);

/** GET: the page with the form (or, to a client asking for JSON, whether the link is live). Changes nothing. */
export async function passwordResetPageResponse(accounts: Accounts, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const link = await accounts.inspectPasswordResetLink(token);
  if (!link) {
    if (wantsHtml(request)) return deadLink();
    throw new AppError('invalid_request_error', accountsMessages.passwordResetLinkInvalid, { param: 'token', headers: PRIVATE_HEADERS });
  }
  if (wantsHtml(request)) return formPage(200, resetForm(token, link.twoFactor));
  return new Response(
    JSON.stringify({
      reset: false,
      totpRequired: link.twoFactor,
      message: link.twoFactor ? passwordResetPage.textTwoFactor : passwordResetPage.text,
    }),
    { headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS } },
  );
}

/** What the form's fields lack before the link is tried (nothing is counted or changed for these). */
function formProblem(fields: Record<string, string | undefined>): string | null {
  const password = fields.password ?? '';
  if (password.length < MIN_PASSWORD) return accountsMessages.passwordTooShort;
  if (password.length > MAX_PASSWORD) return accountsMessages.passwordTooLong;
  if ((fields.passwordRepeat ?? '') !== password) return passwordResetPage.mismatch;
  if ((fields.totpCode ?? '').length > MAX_CODE) return accountsMessages.totpInvalid;
  return null;
}

/**
 * The form's POST (a client's JSON POST is the REST procedure): sets the password and answers a page. A
 * wrong or missing code, a too short password or a mismatch bring the form back with the message, the link
 * still usable; a dead link answers a page saying so.
 */
export async function passwordResetFormSubmit(accounts: Accounts, request: Request, clientAddress: string): Promise<Response> {
  const fields = await readLinkForm(request);
  const token = fields.token ?? '';
  const problem = formProblem(fields);
  if (problem) {
    const link = await accounts.inspectPasswordResetLink(token);
    return link ? formPage(400, resetForm(token, link.twoFactor, problem)) : deadLink();
  }
  const code = fields.totpCode?.trim() || undefined;
  try {
    const { blockedMessage } = await accounts.resetPasswordByForm(token, fields.password!, code, clientAddress);
    if (blockedMessage) return page(200, passwordResetPage.doneTitle, `${passwordResetPage.doneBlocked} ${blockedMessage}`);
    return page(200, passwordResetPage.doneTitle, passwordResetPage.done, LOGIN_LINK);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.param === 'token') return deadLink(error.message);
    // A code missing or wrong, or a limit met (429 with Retry-After): nothing changed, the form comes back
    // with the message (and the code's field) while the link lives.
    const link = await accounts.inspectPasswordResetLink(token);
    const askCode = link?.twoFactor || error.errorCode === 'totp_required' || error.errorCode === 'totp_invalid';
    const answer = link
      ? formPage(error.status, resetForm(token, askCode, error.message))
      : page(error.status, passwordResetPage.refusedTitle, error.message, REQUEST_NEW_LINK);
    for (const [name, value] of Object.entries(error.headers)) answer.headers.set(name, value);
    return answer;
  }
}
