// What registration and login accept: zod only, so the dashboard page validates its forms with the
// very schemas the server applies.
import { z } from 'zod';
import { accountsMessages } from './texts';

/** The domain of organisations' account addresses (`<id>@organizations.invalid`): nobody registers one. */
export const ORGANIZATION_EMAIL_DOMAIN = 'organizations.invalid';

export const credentialsInput = z.object({
  email: z
    .string({ error: accountsMessages.invalidEmail })
    .trim()
    .toLowerCase()
    .max(254, accountsMessages.invalidEmail)
    .meta({ format: 'email', example: 'user@example.com' })
    .pipe(z.email({ error: accountsMessages.invalidEmail }))
    .refine((email) => !email.endsWith(`@${ORGANIZATION_EMAIL_DOMAIN}`), accountsMessages.invalidEmail),
  password: z.string({ error: accountsMessages.passwordTooShort }).min(6, accountsMessages.passwordTooShort).max(1024, 'Пароль не может быть длиннее 1024 символов'),
});

/**
 * Registration: the credentials and, from an invitation link (`/app/register?ref=<code>`), the inviter's
 * referral code. A code that names nobody is ignored (the registration goes on): see docs/referrals.md.
 */
export const registerInput = credentialsInput.extend({
  referralCode: z
    .string({ error: accountsMessages.referralCodeInvalid })
    .trim()
    .max(64, accountsMessages.referralCodeInvalid)
    .nullish()
    .meta({ example: 'k7mq2xhv' }),
});

export const loginInput = z.object({
  email: z.string({ error: accountsMessages.invalidEmail }).max(254, accountsMessages.invalidEmail).meta({ format: 'email', example: 'user@example.com' }),
  password: z.string({ error: accountsMessages.invalidCredentials }).max(1024, accountsMessages.invalidCredentials),
  /** With two-factor login on: the authenticator's six digits, or one of the recovery codes. */
  totpCode: z.string({ error: accountsMessages.totpInvalid }).max(64, accountsMessages.totpInvalid).optional().meta({ example: '123456' }),
});

/** A code on the two-factor routes: six digits, or (to switch it off) a recovery code. */
export const twoFactorCodeInput = z.object({
  code: z
    .string({ error: accountsMessages.totpInvalid })
    .trim()
    .min(1, accountsMessages.totpInvalid)
    .max(64, accountsMessages.totpInvalid)
    .meta({ example: '123456' }),
});

/** E-mail change: the new address (kept as registration keeps one) and the current password. */
export const emailChangeInput = z.object({
  newEmail: credentialsInput.shape.email,
  password: z.string({ error: accountsMessages.wrongPassword }).min(1, accountsMessages.wrongPassword).max(1024, accountsMessages.wrongPassword),
});

/** The verification link's POST: its token; for an ADMIN_EMAILS address the new password (and with 2FA on, a code). */
export const verifyEmailInput = z.object({
  token: z.string({ error: accountsMessages.verificationLinkInvalid }).max(128, accountsMessages.verificationLinkInvalid),
  password: z.string({ error: accountsMessages.passwordTooShort }).max(1024, accountsMessages.passwordTooLong).optional().meta({ example: 'new-secret-1' }),
  totpCode: loginInput.shape.totpCode,
});

export const emailChangeConfirmInput = z.object({
  token: z.string({ error: accountsMessages.emailChangeLinkInvalid }).max(128, accountsMessages.emailChangeLinkInvalid),
});
