import { z } from 'zod';
import { timeZone } from '../http/time-zone-input';
import { databaseKnowsTimeZone } from '../db/time-zones';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { nanoToUnits } from '../money';
import { ORGANIZATION_ACCESS, usageCreatorFilter, usageKeyFilter } from '../keys';
import { accountProcedure, router, inject } from '../trpc/init';
import type { UsageFacts, UsageStatus } from './billing';
import { USAGE_ENDPOINTS, usageQueryInput } from './usage-input';
import { gatewaySlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ billing: use(gatewaySlot).billing, usageReport: use(gatewaySlot).usageReport }));

/** How a /v1 call ended, and where its token counts came from: the unions the gateway records. */
const USAGE_STATUSES = [
  'ok',
  'client_closed',
  'upstream_error',
  'upstream_timeout',
  'upstream_rejected',
  'upstream_dropped',
  'server_shutdown',
  'refused_balance',
  'refused_key_limit',
  'refused_member_limit',
] as const satisfies readonly UsageStatus[];
const USAGE_SOURCES = ['upstream', 'tokenizer', 'none', 'cache'] as const satisfies readonly UsageFacts['usageSource'][];
// A status or source the gateway adds fails the type-check here until the lists name it too.
type Unlisted = Exclude<UsageStatus, (typeof USAGE_STATUSES)[number]> | Exclude<UsageFacts['usageSource'], (typeof USAGE_SOURCES)[number]>;
const everyValueListed: [Unlisted] extends [never] ? true : never = true;
void everyValueListed;

const usageRecord = z.object({
  id: z.string(),
  createdAt: z.string(),
  model: z.string(),
  endpoint: z
    .string()
    .meta({ enum: [...USAGE_ENDPOINTS] })
    .describe('Метод /v1: chat, embeddings, responses, audio_transcriptions, messages'),
  keyId: z.string().nullable(),
  agentId: z.string().nullable(),
  stream: z.boolean(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  totalTokens: z.number().int(),
  cachedTokens: z.number().int().describe('Из токенов запроса: прочитанные из кэша провайдера (по цене кэшированного запроса)'),
  cacheWriteTokens: z.number().int().describe('Из токенов запроса: записанные в кэш провайдера (по цене записи в кэш)'),
  reasoningTokens: z.number().int().describe('Из токенов ответа: рассуждения модели (оплачиваются как ответ)'),
  cost: z.number().describe('Списано с баланса'),
  promptCost: z.number().describe('Цена токенов запроса'),
  completionCost: z.number().describe('Цена токенов ответа'),
  unpaid: z.number().describe('Часть цены, которую баланс не покрыл (баланс исчерпан)'),
  // The enum is stated for clients; the row keeps the report's string, so a status added by the gateway is not a 500 here.
  status: z
    .string()
    .meta({ enum: [...USAGE_STATUSES] })
    .describe(
      'Чем закончился запрос: ok, клиент ушёл (client_closed), ошибка или таймаут сервиса модели…, отклонён с 402 до обращения к модели: не хватило баланса (refused_balance), исчерпан лимит ключа (refused_key_limit) или месячный лимит участника организации (refused_member_limit)',
    ),
  usageSource: z
    .string()
    .meta({ enum: [...USAGE_SOURCES] })
    .describe(
      'Откуда числа токенов: upstream — от сервиса модели, tokenizer — подсчёт Conduit, none — токенов нет, cache — ответ из кэша ответов (токены исходного ответа, цена по CACHE_HIT_PRICE_RATIO)',
    ),
  durationMs: z.number().int(),
  audioSeconds: z.number().nullable().describe('Секунды аудио расшифровки (audio_transcriptions), по которым она оплачена; null у остальных запросов'),
});

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

/** Who sees which usage (keys/scope.ts), as the usage operations state it. */
export const USAGE_SCOPE_TEXT =
  'Токен входа (JWT) и ключ со scope "account" видят использование всего аккаунта; обычный API-ключ (scope "key") — только ' +
  'своё: фильтр keyId для него — он сам. Авторизация: токен входа (JWT) или API-ключ cdt-… в Authorization: Bearer.';
export const USAGE_FORBIDDEN = 'Ключ отозван, учётная запись заблокирована, или ключ со scope "key" запросил использование другого ключа (keyId)';

export const accountRouter = router({
  balance: accountProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      info: 'balance',
      openapi: { method: 'GET', path: '/api/balance', tags: ['account'], summary: 'Баланс (JWT или API-ключ)' },
    })
    .input(z.void())
    .output(
      z.object({
        balance: z.number(),
        currency: z.string().describe('Валюта баланса, код ISO 4217 (BALANCE_CURRENCY), например RUB'),
      }),
    )
    .query(async ({ ctx }) => ({
      balance: nanoToUnits(await ctx.billing.balanceNano(ctx.principal.userId)),
      currency: ctx.config.balanceCurrency,
    })),

  usage: accountProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.usage,
      info: 'usage',
      openapi: {
        method: 'GET',
        path: '/api/usage',
        tags: ['account'],
        summary: 'Записи использования, новые первыми, постранично, с итогами (JWT или API-ключ)',
        description: USAGE_SCOPE_TEXT,
      },
      errors: { 403: USAGE_FORBIDDEN },
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
      const keyId = usageKeyFilter(ctx.principal, input.keyId);
      await ctx.billing.flush();
      return ctx.usageReport.list(ctx.principal.userId, { ...input, keyId, createdBy: usageCreatorFilter(ctx.principal) });
    }),

  usageSummary: accountProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.usage,
      info: 'usageSummary',
      openapi: {
        method: 'GET',
        path: '/api/usage/summary',
        tags: ['account'],
        summary: 'Итоги использования по дням и моделям за период (JWT или API-ключ)',
        description: USAGE_SCOPE_TEXT,
      },
      errors: { 403: USAGE_FORBIDDEN },
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
      if (!(await databaseKnowsTimeZone(ctx.database, input.timeZone))) {
        throw new AppError('invalid_request_error', errorMessages.timeZoneUnknown, { param: 'timeZone' });
      }
      const keyId = usageKeyFilter(ctx.principal, input.keyId);
      await ctx.billing.flush();
      return ctx.usageReport.summary(ctx.principal.userId, { ...input, keyId, createdBy: usageCreatorFilter(ctx.principal) });
    }),
});
