import { z } from 'zod';
import { databaseKnowsTimeZone } from '../../db/time-zones';
import { isoInstantInput } from '../../http/date-input';
import { AppError } from '../../http/errors';
import { errorMessages } from '../../http/messages';
import { nanoToUnits } from '../../money';
import { accountProcedure, router } from '../init';

export const usageQueryInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(200).optional(),
  from: isoInstantInput.optional(),
  to: isoInstantInput.optional(),
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
  cost: z.number().describe('Списано с баланса'),
  promptCost: z.number().describe('Цена токенов запроса'),
  completionCost: z.number().describe('Цена токенов ответа'),
  unpaid: z.number().describe('Часть цены, которую баланс не покрыл (баланс исчерпан)'),
  status: z.string(),
  usageSource: z.string(),
  durationMs: z.number().int(),
});

/** A time zone this process knows by its IANA name (the database is asked too, by the procedure). */
const timeZone = z
  .string()
  .max(64)
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/.test(tz);
    } catch {
      return false;
    }
  }, 'timeZone: ожидается часовой пояс IANA, например Europe/Moscow')
  .default('UTC');

const sumsOutput = {
  requests: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  cost: z.number(),
  promptCost: z.number(),
  completionCost: z.number(),
  unpaid: z.number(),
};

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
        totals: z.object(sumsOutput),
      }),
    )
    .query(async ({ ctx, input }) => {
      await ctx.services.billing.flush();
      return ctx.services.usageReport.list(ctx.principal.userId, input);
    }),

  usageSummary: accountProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/usage/summary',
        tags: ['account'],
        summary: 'Итоги использования по дням и моделям за период (JWT или API-ключ)',
      },
    })
    .input(
      z.object({
        from: usageQueryInput.shape.from.unwrap(),
        to: usageQueryInput.shape.to,
        keyId: usageQueryInput.shape.keyId,
        timeZone,
      }),
    )
    .output(
      z.object({
        timeZone: z.string(),
        days: z.array(z.object({ day: z.string(), model: z.string(), ...sumsOutput })),
        models: z.array(z.object({ model: z.string(), ...sumsOutput })),
        totals: z.object(sumsOutput),
      }),
    )
    .query(async ({ ctx, input }) => {
      if (!(await databaseKnowsTimeZone(ctx.services.database, input.timeZone))) {
        throw new AppError('invalid_request_error', errorMessages.timeZoneUnknown);
      }
      await ctx.services.billing.flush();
      return ctx.services.usageReport.summary(ctx.principal.userId, input);
    }),
});
