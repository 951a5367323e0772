import { z } from 'zod';
import { AppError } from '../../http/errors';
import { errorMessages } from '../../http/messages';
import { nanoToUnits } from '../../money';
import { publicProcedure, router, userProcedure } from '../init';
import { credentialsInput, loginInput } from './auth-input';

export const publicUserOutput = z.object({
  id: z.string(),
  email: z.string(),
  balance: z.number(),
  role: z.enum(['user', 'admin']),
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
        summary: 'Регистрация: пользователь получает стартовый бонус 3.00 и JWT',
        successDescription: 'Пользователь создан',
      },
    })
    .input(credentialsInput)
    .output(z.object({ user: publicUserOutput, token: z.string(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const result = await ctx.services.accounts.register(input.email, input.password);
      return { ...result, message: errorMessages.registered };
    }),

  login: publicProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/auth/login',
        protect: false,
        tags: ['auth'],
        summary: 'Вход: новый JWT на 24 часа',
      },
    })
    .input(loginInput)
    .output(z.object({ token: z.string(), user: publicUserOutput }))
    .mutation(({ ctx, input }) => ctx.services.accounts.login(input.email, input.password)),

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
