import { z } from 'zod';
import { AppError } from '../http/errors';
import { nanoToUnits } from '../money';
import { publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { accountsMessages, verifiedMessage } from './texts';
import { loginInput, registerInput, verifyEmailInput } from './auth-input';
import { accountsSlot } from './api';
import { signInClient } from './sign-in-client';
import { gatewaySlot } from '../gateway';

/** What these procedures use of the features. */
const own = inject((use) => ({ accounts: use(accountsSlot).accounts, billing: use(gatewaySlot).billing }));

export const publicUserOutput = z.object({
  id: z.string(),
  email: z.string().meta({ format: 'email' }),
  balance: z.number(),
  role: z.enum(['user', 'admin']),
  /** The user opened the link mailed to the address (REQUIRE_EMAIL_VERIFICATION). */
  emailVerified: z.boolean(),
});

export const authRouter = router({
  register: publicProcedure
    .use(own)
    .meta({
      info: 'auth.register',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/auth/register',
        protect: false,
        tags: ['auth'],
        summary: 'Регистрация: JWT и стартовый бонус (REGISTRATION_BONUS, 3.00), а при REQUIRE_EMAIL_VERIFICATION бонус после перехода по ссылке из письма',
        successDescription: 'Пользователь создан',
      },
    })
    .input(registerInput)
    .output(z.object({ user: publicUserOutput, token: z.string(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { verificationSent, ...session } = await ctx.accounts.register(input.email, input.password, signInClient(ctx), input.referralCode || null);
      return { ...session, message: verificationSent ? accountsMessages.registeredVerifyEmail : accountsMessages.registered };
    }),

  login: publicProcedure
    .use(own)
    .meta({
      info: 'auth.login',
      openapi: {
        method: 'POST',
        path: '/api/auth/login',
        protect: false,
        tags: ['auth'],
        summary: 'Вход: новый JWT на 24 часа. При включённом двухфакторном входе нужен totpCode (код из приложения или код восстановления)',
      },
      errors: {
        401: 'Неверный e-mail или пароль; при верном пароле и включённом двухфакторном входе — code totp_required (нет totpCode) или totp_invalid (код неверен или уже использован)',
      },
    })
    .input(loginInput)
    .output(z.object({ token: z.string(), user: publicUserOutput }))
    .mutation(({ ctx, input }) => ctx.accounts.login(input.email, input.password, signInClient(ctx), input.totpCode)),

  resendVerification: userProcedure
    .use(own)
    .meta({
      info: 'emailVerification',
      openapi: {
        method: 'POST',
        path: '/api/auth/resend-verification',
        tags: ['auth'],
        summary: 'Новая ссылка подтверждения e-mail (JWT); прежние ссылки перестают действовать. Не больше 5 писем в час',
      },
    })
    .input(z.void())
    .output(z.object({ message: z.string() }))
    .mutation(async ({ ctx }) => {
      await ctx.accounts.resendVerification(ctx.principal.userId);
      return { message: accountsMessages.verificationSent };
    }),

  verifyEmail: publicProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/verify-email',
        protect: false,
        tags: ['auth'],
        summary:
          'Подтвердить e-mail токеном из письма (ссылка GET /api/auth/verify-email?token=… только открывает страницу с кнопкой, её форма отправляет этот POST). Для адреса из ADMIN_EMAILS нужен password: он становится паролем учётной записи, все прежние сеансы завершаются, учётная запись получает роль admin; при включённом двухфакторном входе — и totpCode',
      },
      errors: {
        400: 'Ссылка использована, устарела, заменена, выдана для прежнего адреса или неизвестна; или для адреса администратора не задан пароль',
        401: 'Включён двухфакторный вход: нужен код (code totp_required) или код неверен (totp_invalid); ничего не изменено',
        429: 'Слишком много неверных кодов (TOTP_MAX_FAILURES)',
      },
    })
    .input(verifyEmailInput)
    .output(z.object({ emailVerified: z.literal(true), role: z.enum(['user', 'admin']), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const verified = await ctx.accounts.verifyEmail(input.token, { password: input.password, totpCode: input.totpCode });
      if (!verified) throw new AppError('invalid_request_error', accountsMessages.verificationLinkInvalid, { param: 'token' });
      return { emailVerified: true as const, role: verified.role, message: verifiedMessage(verified) };
    }),

  me: userProcedure
    .use(own)
    .meta({
      info: 'currentUser',
      openapi: {
        method: 'GET',
        path: '/api/auth/me',
        tags: ['auth'],
        summary: 'Текущий пользователь: e-mail, роль и баланс (JWT); pendingBonus — стартовый бонус, который придёт после подтверждения e-mail',
      },
    })
    .input(z.void())
    .output(
      z.object({
        user: publicUserOutput,
        /** The registration bonus credited once the e-mail is confirmed; 0 when none waits. */
        pendingBonus: z.number(),
      }),
    )
    .query(async ({ ctx }) => {
      const user = await ctx.accounts.getPublicUser(ctx.principal.userId);
      if (!user) throw new AppError('unauthorized', accountsMessages.invalidToken);
      // The balance as /api/balance shows it: money held in this or another instance's leases included.
      const [balanceNano, pendingBonusNano] = await Promise.all([ctx.billing.balanceNano(user.id), ctx.accounts.pendingBonusNano(user)]);
      return { user: { ...user, balance: nanoToUnits(balanceNano) }, pendingBonus: nanoToUnits(pendingBonusNano) };
    }),
});
