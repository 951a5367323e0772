// E-mail change (accounts/email-change.ts): the request (JWT, with the password) and the confirmation
// with the token from the link mailed to the new address (no JWT: the link may open in another browser).
import { z } from 'zod';
import { AppError } from '../http/errors';
import { accountsMessages } from './texts';
import { publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { emailChangeConfirmInput, emailChangeInput } from './auth-input';
import { accountsSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ emailChange: use(accountsSlot).emailChange }));

export const emailChangeRouter = router({
  request: userProcedure
    .use(own)
    .meta({
      info: 'emailChange',
      openapi: {
        method: 'POST',
        path: '/api/account/email',
        tags: ['account'],
        summary: 'Сменить e-mail (JWT, с паролем): на новый адрес уходит одноразовая ссылка подтверждения на 1 час; адрес меняется, когда её откроют',
      },
      errors: {
        409: 'Новый адрес уже занят другой учётной записью (при REQUIRE_EMAIL_VERIFICATION=true ответ тот же, что для свободного адреса, а владельцу адреса приходит письмо)',
        429: 'Не больше 5 попыток в час (Retry-After)',
        503: 'Почта не настроена (SMTP_URL) или письмо не удалось отправить',
      },
    })
    .input(emailChangeInput)
    .output(z.object({ message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.emailChange.request(ctx.principal.userId, input.newEmail, input.password);
      return { message: accountsMessages.emailChangeSent };
    }),

  confirm: publicProcedure
    .use(own)
    .meta({
      info: 'emailChange',
      openapi: {
        method: 'POST',
        path: '/api/account/email/confirm',
        protect: false,
        tags: ['account'],
        summary:
          'Подтвердить смену e-mail токеном из ссылки (ссылка GET /api/account/email/confirm?token=… только открывает страницу с кнопкой, её форма отправляет этот POST). Прежний адрес получает уведомление; отметка о подтверждении адреса и роль администратора снимаются до подтверждения нового адреса; все прежние ссылки из писем этой учётной записи перестают действовать',
      },
      errors: { 409: 'Новый адрес тем временем занят другой учётной записью' },
    })
    .input(emailChangeConfirmInput)
    .output(z.object({ email: z.string().meta({ format: 'email' }), emailVerified: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const result = await ctx.emailChange.confirm(input.token);
      if (!result.changed) {
        if (result.reason === 'taken') throw new AppError('conflict', accountsMessages.emailTaken);
        throw new AppError('invalid_request_error', accountsMessages.emailChangeLinkInvalid, { param: 'token' });
      }
      return { email: result.email, emailVerified: false, message: accountsMessages.emailChanged(result.email) };
    }),
});
