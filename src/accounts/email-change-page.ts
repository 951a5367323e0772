// GET /api/account/email/confirm?token=…: the link in the e-mail change mail, opened in a browser (no
// JWT): a small Russian page; a client that asks for JSON gets what POST …/confirm answers.
import { AppError, errorResponse } from '../http/errors';
import { errorMessages } from '../http/messages';
import type { EmailChange } from './email-change';
import { emailChangePage } from './email-change-texts';
import { page, PRIVATE_HEADERS } from './verify-page';

export async function emailChangePageResponse(emailChange: Pick<EmailChange, 'confirm'>, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const result = await emailChange.confirm(token);
  const wantsHtml = (request.headers.get('accept') ?? '').includes('text/html');
  if (!result.changed) {
    const error =
      result.reason === 'taken'
        ? new AppError('conflict', errorMessages.emailTaken)
        : new AppError('invalid_request_error', errorMessages.emailChangeLinkInvalid);
    if (wantsHtml) {
      return page(error.status, result.reason === 'taken' ? emailChangePage.takenTitle : emailChangePage.invalidTitle, error.message);
    }
    return errorResponse(error, PRIVATE_HEADERS);
  }
  if (wantsHtml) return page(200, emailChangePage.changedTitle, errorMessages.emailChanged(result.email));
  return new Response(JSON.stringify({ email: result.email, emailVerified: false, message: errorMessages.emailChanged(result.email) }), {
    headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS },
  });
}
