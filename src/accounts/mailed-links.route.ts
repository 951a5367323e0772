// The links in the verification, e-mail change and password-reset mails, opened in a browser (no JWT): each
// GET is a page that changes nothing (a mail scanner fetching every link must not use it up); its form posts
// to the same path form-encoded and gets a page back, while a client's JSON POST there is the REST procedure.
import type { Config } from '../config';
import { clientAddressOf } from '../http/client-address';
import { defineRawRoute } from '../http/raw-route';
import { emailChangeFormSubmit, emailChangePageResponse, emailRevertFormSubmit, emailRevertPageResponse } from './email-change-page';
import type { EmailChange } from './email-change';
import { passwordResetFormSubmit, passwordResetPageResponse } from './password-reset-page';
import type { AccountService } from './service';
import { isFormPost, verifyEmailPage, verifyEmailSubmit } from './verify-page';

type Accounts = { accounts: Pick<AccountService, 'verifyEmail' | 'inspectVerificationLink' | 'explainVerificationLink'> };
type PasswordReset = { accounts: Pick<AccountService, 'inspectPasswordResetLink' | 'resetPasswordByForm'> };

export const verifyEmailPageRoute = defineRawRoute<Accounts>({
  method: 'GET',
  path: '/api/auth/verify-email',
  auth: 'none',
  info: { key: 'emailVerification', query: '?token=<from the e-mail>', listedFirst: true },
  handle: ({ request }, { accounts }) => verifyEmailPage(accounts, request),
});

export const verifyEmailFormRoute = defineRawRoute<Accounts>({
  method: 'POST',
  path: '/api/auth/verify-email',
  auth: 'none',
  parse: 'none',
  serves: isFormPost,
  handle: ({ request }, { accounts }) => verifyEmailSubmit(accounts, request),
});

export const emailChangePageRoute = defineRawRoute<{ emailChange: Pick<EmailChange, 'isLive'> }>({
  method: 'GET',
  path: '/api/account/email/confirm',
  auth: 'none',
  info: 'emailChange',
  handle: ({ request }, { emailChange }) => emailChangePageResponse(emailChange, request),
});

export const emailChangeFormRoute = defineRawRoute<{ emailChange: Pick<EmailChange, 'confirm'> }>({
  method: 'POST',
  path: '/api/account/email/confirm',
  auth: 'none',
  parse: 'none',
  serves: isFormPost,
  handle: ({ request }, { emailChange }) => emailChangeFormSubmit(emailChange, request),
});

// The cancel link in the notice to the old address; a client's JSON POST there is emailChange.revert.
export const emailRevertPageRoute = defineRawRoute<{ emailChange: Pick<EmailChange, 'isRevertLive'> }>({
  method: 'GET',
  path: '/api/account/email/revert',
  auth: 'none',
  info: 'emailChange',
  handle: ({ request }, { emailChange }) => emailRevertPageResponse(emailChange, request),
});

export const emailRevertFormRoute = defineRawRoute<{ emailChange: Pick<EmailChange, 'revert'> }>({
  method: 'POST',
  path: '/api/account/email/revert',
  auth: 'none',
  parse: 'none',
  serves: isFormPost,
  handle: ({ request }, { emailChange }) => emailRevertFormSubmit(emailChange, request),
});

export const passwordResetPageRoute = defineRawRoute<PasswordReset>({
  method: 'GET',
  path: '/api/auth/password-reset/confirm',
  auth: 'none',
  info: 'passwordReset',
  handle: ({ request }, { accounts }) => passwordResetPageResponse(accounts, request),
});

// The form hands out no session (the JSON confirm does).
export const passwordResetFormRoute = defineRawRoute<PasswordReset & { config: Pick<Config, 'trustProxy'> }>({
  method: 'POST',
  path: '/api/auth/password-reset/confirm',
  auth: 'none',
  parse: 'none',
  serves: isFormPost,
  handle: ({ request }, { accounts, config }) => passwordResetFormSubmit(accounts, request, clientAddressOf(request, config.trustProxy)),
});

export const mailedLinkPageRoutes = [
  verifyEmailPageRoute,
  verifyEmailFormRoute,
  emailChangePageRoute,
  emailChangeFormRoute,
  emailRevertPageRoute,
  emailRevertFormRoute,
  passwordResetPageRoute,
  passwordResetFormRoute,
];
