import { z } from 'zod';
import { AppError } from '../../http/errors';
import { errorMessages } from '../../http/messages';
import { nanoToUnits } from '../../money';
import { publicProcedure, router, userProcedure } from '../init';
import { credentialsInput, loginInput } from './auth-input';

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
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/auth/register',
        protect: false,
        tags: ['auth'],
        summary:
          'Регистрация: JWT и стартовый бонус (REGISTRATION_BONUS, 3.00), а при REQUIRE_EMAIL_VERIFICATION бонус после перехода по ссылке из письма',
        successDescription: 'Пользователь создан',
      },
    })
    .input(credentialsInput)
    .output(z.object({ user: publicUserOutput, token: z.string(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { verificationSent, ...session } = await ctx.services.accounts.register(input.email, input.password, ctx.clientAddress);
      return { ...session, message: verificationSent ? errorMessages.registeredVerifyEmail : errorMessages.registered };
    }),

  login: publicProcedure
    .meta({
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
    .mutation(({ ctx, input }) => ctx.services.accounts.login(input.email, input.password, ctx.clientAddress, input.totpCode)),

  resendVerification: userProcedure
    .meta({
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
      await ctx.services.accounts.resendVerification(ctx.principal.userId);
      return { message: errorMessages.verificationSent };
    }),

  me: userProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/auth/me',
        tags: ['auth'],
        summary: 'Текущий пользователь: e-mail, роль и баланс (JWT)',
      },
    })
    .input(z.void())
    .output(z.object({ user: publicUserOutput }))
    .query(async ({ ctx }) => {
      const user = await ctx.services.accounts.getPublicUser(ctx.principal.userId);
      if (!user) throw new AppError('unauthorized', errorMessages.invalidToken);
      // The balance as /api/balance shows it: money held in this or another instance's leases included.
      return { user: { ...user, balance: nanoToUnits(await ctx.services.billing.balanceNano(user.id)) } };
    }),
});
