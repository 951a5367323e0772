// E-mail change (accounts/email-change.ts): the request (JWT, with the password) and the confirmation
// with the token from the link mailed to the new address (no JWT: the link may open in another browser).
import { z } from 'zod';
import { AppError } from '../http/errors';
import { accountsMessages } from './texts';
import { publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { emailChangeConfirmInput, emailChangeInput } from './auth-input';
import { accountsSlot } from './api';
import { emailChangePage } from './email-change-texts';

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
          'Подтвердить смену e-mail токеном из ссылки (ссылка GET /api/account/email/confirm?token=… только открывает страницу с кнопкой, её форма отправляет этот POST). Новый адрес считается подтверждённым; роль администратора снимается; все прежние ссылки из писем этой учётной записи перестают действовать. Прежний адрес получает уведомление со ссылкой «это был не я — отменить» (GET /api/account/email/revert?token=…, 7 дней, один раз): она возвращает прежний адрес и завершает все входы',
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
      return { email: result.email, emailVerified: true, message: accountsMessages.emailChanged(result.email) };
    }),

  revert: publicProcedure
    .use(own)
    .meta({
      info: 'emailChange',
      openapi: {
        method: 'POST',
        path: '/api/account/email/revert',
        protect: false,
        tags: ['account'],
        summary:
          'Отменить смену e-mail токеном из ссылки «это был не я — отменить» в уведомлении прежнему адресу (ссылка GET /api/account/email/revert?token=… открывает страницу с кнопкой, её форма отправляет этот POST). Действует 7 дней и один раз: учётной записи возвращается прежний адрес (подтверждённым), все входы и ссылки из писем завершаются, остальные ссылки отмены перестают действовать',
      },
      errors: { 409: 'Прежний адрес тем временем занят другой учётной записью (ссылка остаётся действительной)' },
    })
    .input(emailChangeConfirmInput)
    .output(z.object({ email: z.string().meta({ format: 'email' }), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const result = await ctx.emailChange.revert(input.token);
      if (!result.reverted) {
        if (result.reason === 'taken') throw new AppError('conflict', emailChangePage.revertTaken);
        throw new AppError('invalid_request_error', emailChangePage.revertInvalid, { param: 'token' });
      }
      return { email: result.email, message: emailChangePage.reverted(result.email) };
    }),
});
