// What registration and login accept: zod only, so the dashboard page validates its forms with the
// very schemas the server applies.
import { z } from 'zod';
import { errorMessages } from '../../http/messages';

export const credentialsInput = z.object({
  email: z
    .string({ error: errorMessages.invalidEmail })
    .trim()
    .toLowerCase()
    .max(254, errorMessages.invalidEmail)
    .meta({ format: 'email', example: 'user@example.com' })
    .pipe(z.email({ error: errorMessages.invalidEmail })),
  password: z
    .string({ error: errorMessages.passwordTooShort })
    .min(6, errorMessages.passwordTooShort)
    .max(1024, 'Пароль не может быть длиннее 1024 символов'),
});

export const loginInput = z.object({
  email: z.string({ error: errorMessages.invalidEmail }).max(254, errorMessages.invalidEmail).meta({ format: 'email', example: 'user@example.com' }),
  password: z.string({ error: errorMessages.invalidCredentials }).max(1024, errorMessages.invalidCredentials),
});
