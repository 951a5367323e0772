import { z } from 'zod';
import { errorMessages } from '../../http/messages';
import { router, userProcedure } from '../init';
import { createKeyInput } from './keys-input';

const listedKey = z.object({
  id: z.string(),
  name: z.string(),
  keyPrefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  isActive: z.boolean(),
});

export const keysRouter = router({
  list: userProcedure
    .meta({ openapi: { method: 'GET', path: '/api/keys', tags: ['keys'], summary: 'Список API-ключей' } })
    .input(z.void())
    .output(z.object({ keys: z.array(listedKey), count: z.number().int() }))
    .query(({ ctx }) => ctx.services.keys.list(ctx.principal.userId)),

  create: userProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/keys',
        tags: ['keys'],
        summary: 'Создать API-ключ (полное значение показывается один раз)',
        successDescription: 'Ключ создан',
      },
    })
    .input(createKeyInput)
    .output(
      z.object({
        id: z.string(),
        name: z.string(),
        key: z.string(),
        keyPrefix: z.string(),
        createdAt: z.string(),
        warning: z.string(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const created = await ctx.services.keys.create(ctx.principal.userId, input.name);
      return created;
    }),

  revoke: userProcedure
    .meta({ openapi: { method: 'DELETE', path: '/api/keys/{id}', tags: ['keys'], summary: 'Отозвать API-ключ' } })
    .input(z.object({ id: z.string().max(100) }))
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.services.keys.revoke(ctx.principal.userId, input.id);
      return { success: true, message: errorMessages.keyRevoked };
    }),
});
