// What the password reset and change accept: zod only, so the dashboard's forms validate with the very
// schemas the server applies. The new password follows registration's rules.
import { z } from 'zod';
import { accountsMessages } from './texts';
import { credentialsInput, loginInput } from './auth-input';

export const passwordResetRequestInput = z.object({ email: credentialsInput.shape.email });

export const passwordResetConfirmInput = z.object({
  token: z.string({ error: accountsMessages.passwordResetLinkInvalid }).max(200, accountsMessages.passwordResetLinkInvalid),
  password: credentialsInput.shape.password,
  /** With two-factor login on: a current code or a recovery code; without it the reset changes nothing. */
  totpCode: loginInput.shape.totpCode,
});

export const passwordChangeInput = z.object({
  currentPassword: z.string({ error: accountsMessages.currentPasswordWrong }).max(1024, accountsMessages.currentPasswordWrong),
  newPassword: credentialsInput.shape.password,
});
