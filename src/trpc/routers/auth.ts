import { z } from 'zod';
import { errorMessages } from '../../http/messages';
import { publicProcedure, router } from '../init';
import { credentialsInput, loginInput } from './auth-input';

export const publicUserOutput = z.object({
  id: z.string(),
  email: z.string(),
  balance: z.number(),
  role: z.literal('user'),
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
});
