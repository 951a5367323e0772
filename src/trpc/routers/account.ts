import { z } from 'zod';
import { nanoToUnits } from '../../money';
import { accountProcedure, router } from '../init';

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'ожидается дата в формате ISO 8601, например 2026-01-31 или 2026-01-31T12:00:00Z')
  .transform((s) => new Date(s));

export const usageQueryInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  keyId: z.uuid('keyId должен быть идентификатором ключа').optional(),
});

const usageRecord = z.object({
  id: z.string(),
  createdAt: z.string(),
  model: z.string(),
  keyId: z.string().nullable(),
  agentId: z.string().nullable(),
  stream: z.boolean(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  cost: z.number(),
  status: z.string(),
  usageSource: z.string(),
  durationMs: z.number().int(),
});

export const accountRouter = router({
  balance: accountProcedure
    .meta({
      openapi: { method: 'GET', path: '/api/balance', tags: ['account'], summary: 'Баланс (JWT или API-ключ)' },
    })
    .input(z.void())
    .output(z.object({ balance: z.number() }))
    .query(async ({ ctx }) => ({
      balance: nanoToUnits(await ctx.services.billing.balanceNano(ctx.principal.userId)),
    })),

  usage: accountProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/usage',
        tags: ['account'],
        summary: 'Записи использования, новые первыми, постранично, с итогами (JWT или API-ключ)',
      },
    })
    .input(usageQueryInput)
    .output(
      z.object({
        data: z.array(usageRecord),
        nextCursor: z.string().nullable(),
        totals: z.object({
          requests: z.number().int(),
          promptTokens: z.number().int(),
          completionTokens: z.number().int(),
          totalTokens: z.number().int(),
          cost: z.number(),
        }),
      }),
    )
    .query(async ({ ctx, input }) => {
      await ctx.services.billing.flush();
      return ctx.services.usageReport.list(ctx.principal.userId, input);
    }),
});
