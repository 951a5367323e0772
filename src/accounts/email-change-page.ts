// The link in the e-mail change mail, opened in a browser (no JWT): GET /api/account/email/confirm?token=…
// shows a small Russian page that changes nothing, with a form whose POST (form-encoded, to the same path)
// switches the address. A client that asks for JSON gets, on GET, whether the link is live; its JSON POST
// is the REST procedure (accounts/email-change-router.ts). The cancel link in the notice to the old address
// (GET /api/account/email/revert?token=…) works the same way: its form's POST cancels; a JSON POST is the REST procedure.
import { AppError } from '../http/errors';
import { accountsMessages } from './texts';
import { EMAIL_CHANGE_CONFIRM_PATH, EMAIL_CHANGE_REVERT_PATH, type EmailChange } from './email-change';
import { emailChangePage } from './email-change-texts';
import { formPage, page, PRIVATE_HEADERS, readLinkForm } from './verify-page';

export { isFormPost } from './verify-page';

const wantsHtml = (request: Request) => (request.headers.get('accept') ?? '').includes('text/html');

/** Where a person goes from a change link that cannot act: ask again from the account page, or sign in. */
const ONWARD = [
  { href: '/app/account', text: emailChangePage.requestAgain },
  { href: '/app/login', text: emailChangePage.toLogin },
];

const form = (token: string) => ({
  action: EMAIL_CHANGE_CONFIRM_PATH,
  token,
  title: emailChangePage.confirmTitle,
  text: emailChangePage.confirmText,
  button: emailChangePage.confirmButton,
});

/** GET: the page with its button; nothing is changed. */
export async function emailChangePageResponse(emailChange: Pick<EmailChange, 'isLive'>, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const live = await emailChange.isLive(token);
  if (!live) {
    if (wantsHtml(request)) return page(400, emailChangePage.invalidTitle, accountsMessages.emailChangeLinkInvalid, ONWARD);
    throw new AppError('invalid_request_error', accountsMessages.emailChangeLinkInvalid, { headers: PRIVATE_HEADERS });
  }
  if (wantsHtml(request)) return formPage(200, form(token));
  return new Response(JSON.stringify({ changed: false, message: emailChangePage.confirmText }), {
    headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS },
  });
}

/** POST from the page: switches the address and answers a page. */
export async function emailChangeFormSubmit(emailChange: Pick<EmailChange, 'confirm'>, request: Request): Promise<Response> {
  const fields = await readLinkForm(request);
  const result = await emailChange.confirm(fields.token ?? '');
  if (!result.changed) {
    const error =
      result.reason === 'taken'
        ? new AppError('conflict', accountsMessages.emailTaken)
        : new AppError('invalid_request_error', accountsMessages.emailChangeLinkInvalid);
    return page(error.status, result.reason === 'taken' ? emailChangePage.takenTitle : emailChangePage.invalidTitle, error.message, ONWARD);
  }
  return page(
    200,
    emailChangePage.changedTitle,
    accountsMessages.emailChanged(result.email),
    { href: '/app', text: emailChangePage.toDashboard },
    { ok: true, state: 'done' },
  );
}

/** GET of the cancel link: its page with the button, or a page that says the link is dead; nothing changes. */
export async function emailRevertPageResponse(emailChange: Pick<EmailChange, 'isRevertLive'>, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  if (!(await emailChange.isRevertLive(token))) return page(400, emailChangePage.invalidTitle, emailChangePage.revertInvalid);
  return formPage(200, {
    action: EMAIL_CHANGE_REVERT_PATH,
    token,
    title: emailChangePage.revertTitle,
    text: emailChangePage.revertText,
    button: emailChangePage.revertButton,
  });
}

/** POST from the cancel page: puts the old address back, ends the sessions and answers a page. */
export async function emailRevertFormSubmit(emailChange: Pick<EmailChange, 'revert'>, request: Request): Promise<Response> {
  const fields = await readLinkForm(request);
  const result = await emailChange.revert(fields.token ?? '');
  if (!result.reverted) {
    return result.reason === 'taken'
      ? page(409, emailChangePage.takenTitle, emailChangePage.revertTaken)
      : page(400, emailChangePage.invalidTitle, emailChangePage.revertInvalid);
  }
  return page(200, emailChangePage.revertedTitle, emailChangePage.reverted(result.email), { href: '/app/forgot', text: emailChangePage.forgotLink });
}
