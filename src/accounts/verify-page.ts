// GET /api/auth/verify-email?token=…: the link in the verification mail. A browser (no JWT) gets a small
// Russian page either way; a client that asks for JSON gets {message} or the usual error body.
import { AppError, errorResponse } from '../http/errors';
import { errorMessages } from '../http/messages';
import type { AccountService } from './service';
import { escapeHtml, verificationPage } from './texts';

// The token is in the address: keep it out of caches, search engines and Referer headers.
export const PRIVATE_HEADERS = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex' };

/** A small Russian page with a link back to the dashboard (also the e-mail change link's page). */
export function page(status: number, title: string, message: string): Response {
  const html = `<!doctype html>
<html lang="ru">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} — Conduit</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}a{color:#2456d3}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="/app">${escapeHtml(verificationPage.toDashboard)}</a></p></body>
</html>
`;
  return new Response(html, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...PRIVATE_HEADERS } });
}

export async function verifyEmailPage(accounts: Pick<AccountService, 'verifyEmail'>, request: Request): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const result = await accounts.verifyEmail(token);
  const wantsHtml = (request.headers.get('accept') ?? '').includes('text/html');
  if (!result) {
    if (wantsHtml) return page(400, verificationPage.invalidTitle, errorMessages.verificationLinkInvalid);
    return errorResponse(new AppError('invalid_request_error', errorMessages.verificationLinkInvalid), PRIVATE_HEADERS);
  }
  const message = result.creditedNano > 0n ? `${verificationPage.verified} ${verificationPage.bonusCredited}` : verificationPage.verified;
  if (wantsHtml) return page(200, verificationPage.verifiedTitle, message);
  return new Response(JSON.stringify({ emailVerified: true, message }), {
    headers: { 'content-type': 'application/json; charset=utf-8', ...PRIVATE_HEADERS },
  });
}
