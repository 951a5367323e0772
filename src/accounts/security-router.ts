// Password reset by e-mail, password change and ending every session (issue 32 points 1–3).
import { z } from 'zod';
import { accountsMessages } from './texts';
import { publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { passwordChangeInput, passwordResetConfirmInput, passwordResetRequestInput } from './security-input';
import { publicUserOutput } from './auth-router';
import { accountsSlot } from './api';
import { signInClient } from './sign-in-client';

/** What these procedures use of the features. */
const own = inject((use) => ({ accounts: use(accountsSlot).accounts }));

const messageOutput = z.object({ message: z.string() });

export const accountSecurityRouter = router({
  requestPasswordReset: publicProcedure
    .use(own)
    .meta({
      info: 'passwordReset',
      openapi: {
        method: 'POST',
        path: '/api/auth/password-reset',
        protect: false,
        tags: ['auth'],
        summary: 'Ссылка для сброса пароля на e-mail (1 час, одноразовая). Ответ одинаков, есть ли такой адрес или нет',
      },
      errors: {
        429: 'Слишком много запросов с этого адреса или для этого e-mail (PASSWORD_RESET_LIMIT_PER_ADDRESS, PASSWORD_RESET_LIMIT_PER_EMAIL)',
        503: 'На сервере не настроен почтовый сервер (SMTP_URL): сбросить пароль поможет администратор',
      },
    })
    .input(passwordResetRequestInput)
    .output(messageOutput)
    .mutation(async ({ ctx, input }) => {
      await ctx.accounts.requestPasswordReset(input.email, ctx.clientAddress);
      return { message: accountsMessages.passwordResetSent };
    }),

  confirmPasswordReset: publicProcedure
    .use(own)
    .meta({
      info: 'passwordReset',
      openapi: {
        method: 'POST',
        path: '/api/auth/password-reset/confirm',
        protect: false,
        tags: ['auth'],
        summary:
          'Новый пароль по ссылке из письма: все прежние сеансы и ссылки из писем перестают действовать, ответ — новый JWT. Сама ссылка (GET /api/auth/password-reset/confirm?token=…) только открывает страницу с формой; форма отправляет сюда POST в формате формы и получает страницу, без сеанса. При включённом двухфакторном входе нужен totpCode (код из приложения или код восстановления); без него ничего не меняется',
      },
      errors: {
        400: 'Ссылка использована, устарела, заменена более новой, выдана для прежнего адреса или неизвестна; или пароль не подходит',
        401: 'Включён двухфакторный вход: нужен код (code totp_required) или код неверен (totp_invalid); пароль не изменён',
        429: 'Слишком много попыток с этого адреса (PASSWORD_RESET_LIMIT_PER_ADDRESS) или неверных кодов (TOTP_MAX_FAILURES)',
      },
    })
    .input(passwordResetConfirmInput)
    .output(z.object({ token: z.string(), user: publicUserOutput }))
    .mutation(({ ctx, input }) => ctx.accounts.confirmPasswordReset(input.token, input.password, input.totpCode, signInClient(ctx))),

  changePassword: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/password',
        tags: ['auth'],
        summary: 'Смена пароля (JWT): все прежние сеансы завершаются, ответ — новый JWT',
      },
      errors: { 400: 'Текущий пароль неверен или новый не подходит', 429: 'Слишком много неверных попыток текущего пароля' },
    })
    .input(passwordChangeInput)
    .output(z.object({ token: z.string(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { token } = await ctx.accounts.changePassword(ctx.principal.userId, input.currentPassword, input.newPassword, signInClient(ctx));
      return { token, message: accountsMessages.passwordChanged };
    }),

  logoutAll: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/logout-all',
        tags: ['auth'],
        summary:
          'Выйти на всех устройствах (JWT): все выданные токены входа, этот тоже, и все ссылки из прежних писем (подтверждение адреса, смена e-mail, сброс пароля) перестают действовать',
      },
    })
    .input(z.void())
    .output(messageOutput)
    .mutation(async ({ ctx }) => {
      await ctx.accounts.logoutAll(ctx.principal.userId);
      return { message: accountsMessages.sessionsEnded };
    }),
});
