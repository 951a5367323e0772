// What registration and login accept: zod only, so the dashboard page validates its forms with the
// very schemas the server applies.
import { z } from 'zod';
import { errorMessages } from '../http/messages';

export const credentialsInput = z.object({
  email: z
    .string({ error: errorMessages.invalidEmail })
    .trim()
    .toLowerCase()
    .max(254, errorMessages.invalidEmail)
    .meta({ format: 'email', example: 'user@example.com' })
    .pipe(z.email({ error: errorMessages.invalidEmail })),
  password: z.string({ error: errorMessages.passwordTooShort }).min(6, errorMessages.passwordTooShort).max(1024, 'Пароль не может быть длиннее 1024 символов'),
});

export const loginInput = z.object({
  email: z.string({ error: errorMessages.invalidEmail }).max(254, errorMessages.invalidEmail).meta({ format: 'email', example: 'user@example.com' }),
  password: z.string({ error: errorMessages.invalidCredentials }).max(1024, errorMessages.invalidCredentials),
  /** With two-factor login on: the authenticator's six digits, or one of the recovery codes. */
  totpCode: z.string({ error: errorMessages.totpInvalid }).max(64, errorMessages.totpInvalid).optional().meta({ example: '123456' }),
});

/** A code on the two-factor routes: six digits, or (to switch it off) a recovery code. */
export const twoFactorCodeInput = z.object({
  code: z.string({ error: errorMessages.totpInvalid }).trim().min(1, errorMessages.totpInvalid).max(64, errorMessages.totpInvalid).meta({ example: '123456' }),
});

/** E-mail change: the new address (kept as registration keeps one) and the current password. */
export const emailChangeInput = z.object({
  newEmail: credentialsInput.shape.email,
  password: z.string({ error: errorMessages.wrongPassword }).min(1, errorMessages.wrongPassword).max(1024, errorMessages.wrongPassword),
});

/** The verification link's POST: its token; for an ADMIN_EMAILS address the new password (and with 2FA on, a code). */
export const verifyEmailInput = z.object({
  token: z.string({ error: errorMessages.verificationLinkInvalid }).max(128, errorMessages.verificationLinkInvalid),
  password: z.string({ error: errorMessages.passwordTooShort }).max(1024, errorMessages.passwordTooLong).optional().meta({ example: 'new-secret-1' }),
  totpCode: loginInput.shape.totpCode,
});

export const emailChangeConfirmInput = z.object({
  token: z.string({ error: errorMessages.emailChangeLinkInvalid }).max(128, errorMessages.emailChangeLinkInvalid),
});
