// The link in the e-mail change mail, opened in a browser (no JWT): GET /api/account/email/confirm?token=…
// shows a small Russian page that changes nothing, with a form whose POST (form-encoded, to the same path)
// switches the address. A client that asks for JSON gets, on GET, whether the link is live; its JSON POST
// is the REST procedure (accounts/email-change-router.ts).
import { AppError } from '../http/errors';
import { accountsMessages } from './texts';
import { EMAIL_CHANGE_CONFIRM_PATH, type EmailChange } from './email-change';
import { emailChangePage } from './email-change-texts';
import { formPage, page, PRIVATE_HEADERS, readLinkForm } from './verify-page';

export { isFormPost } from './verify-page';

const wantsHtml = (request: Request) => (request.headers.get('accept') ?? '').includes('text/html');

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
    if (wantsHtml(request)) return page(400, emailChangePage.invalidTitle, accountsMessages.emailChangeLinkInvalid);
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
    return page(error.status, result.reason === 'taken' ? emailChangePage.takenTitle : emailChangePage.invalidTitle, error.message);
  }
  return page(200, emailChangePage.changedTitle, accountsMessages.emailChanged(result.email));
}
