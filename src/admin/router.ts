// Operator routes under /api/admin: accounts, credits, blocking, daily figures, the audit log and the
// price table. Every procedure is an adminProcedure (JWT of a user whose stored role is admin); every
// change writes its audit row in its own transaction.
import { z } from 'zod';
import { adminMessages } from './texts';
import { LIMIT_RESETS } from '../keys';
import { nanoToUnits, unitsToNano } from '../money';
import { adminProcedure, router, inject } from '../trpc/init';
import {
  auditInput,
  creditInput,
  dailyStatsInput,
  deletePriceInput,
  importInput,
  importPreviewInput,
  listUsersInput,
  putPriceInput,
  userIdInput,
  createProviderInput,
  deleteRouteInput,
  patchProviderInput,
  providerIdInput,
  putRouteInput,
} from './input';
import { userKeyBudgetInput, userKeyInput } from './keys-input';
import { SKIP_REASONS } from './price-import';
import { PRICE_KINDS } from '../pricing/prices';
import { adminSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ admin: use(adminSlot).admin }));

const TAGS = ['admin'];

const adminUser = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(['user', 'admin']),
  kind: z.enum(['person', 'organization']).describe('person — человек; organization — счёт организации (войти в него нельзя)'),
  balance: z.number(),
  createdAt: z.string(),
  blocked: z.boolean(),
  blockedAt: z.string().nullable(),
  spendThisMonth: z.number(),
  priceGroup: z.string().describe('Группа цен пользователя'),
});

const jsonObject = z.record(z.string(), z.unknown()).nullable();

const dayFigures = {
  revenue: z.number(),
  credits: z.number(),
  spend: z.number(),
  /** What providers charge us for that usage, at the route targets' cost prices (requests without one left out). */
  providerCost: z.number(),
  /** Spend minus provider cost, over the requests that have a provider cost. */
  margin: z.number(),
  requests: z.number().int(),
};

const modelProviderFigures = z.object({
  day: z.string(),
  model: z.string(),
  /** Null on usage rows older than routing. */
  provider: z.string().nullable(),
  requests: z.number().int(),
  spend: z.number(),
  /** Null: the route target has no cost price. */
  providerCost: z.number().nullable(),
  margin: z.number().nullable(),
});

const priceRow = z.object({
  pattern: z.string(),
  kind: z.enum(PRICE_KINDS).describe('per_token — за токены; per_second — за секунду аудио (модели распознавания речи)'),
  promptPerMillion: z.number(),
  completionPerMillion: z.number(),
  perSecond: z.number().describe('Цена секунды аудио (для per_second; 0 для per_token)'),
  cachedPromptPerMillion: z.number().nullable().describe('Цена 1M токенов запроса, прочитанных из кэша провайдера; null — цена запроса × CACHE_READ_PRICE_RATIO'),
  cacheWritePerMillion: z.number().nullable().describe('Цена 1M токенов запроса, записанных в кэш провайдера; null — цена запроса × CACHE_WRITE_PRICE_RATIO'),
  updatedAt: z.string(),
});

const importRow = z.object({
  model: z.string(),
  upstreamPrompt: z.string(),
  upstreamCompletion: z.string(),
  promptPerMillion: z.number(),
  completionPerMillion: z.number(),
});

const skippedModel = z.object({
  model: z.string(),
  reason: z.enum(SKIP_REASONS),
});

const providerHealthView = z.object({
  state: z.enum(['up', 'cooling_down', 'disabled']),
  consecutiveFailures: z.number().int(),
  cooldownUntil: z.string().nullable(),
  lastError: z.string().nullable(),
  /** When the last of its failures happened (null: none on record). */
  lastFailureAt: z.string().nullable(),
});

const probeView = z.object({
  at: z.string(),
  ok: z.boolean(),
  /** The answer's status; null: no answer (connection error, timeout). */
  status: z.number().int().nullable(),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
  trigger: z.enum(['schedule', 'operator']),
});

const providerView = z.object({
  id: z.string(),
  name: z.string(),
  baseUrl: z.string(),
  /** Masked: the key itself is never returned. */
  apiKey: z.string().nullable(),
  enabled: z.boolean(),
  timeoutMs: z.number().int(),
  /** The API it speaks: openai (chat completions) or anthropic (Messages). */
  protocol: z.enum(['openai', 'anthropic']),
  /** The model its probe asks for one token; null: the probe is GET /models. */
  probeModel: z.string().nullable(),
  /**
   * Its balance, where one is read (null: none is): the URL read, the last amount in the provider's own
   * currency, the threshold below which the operators are mailed, whether it is below it, when it was read.
   */
  balance: z
    .object({
      url: z.string(),
      /** The balance's place in the answer's JSON; null: OpenRouter's credits − usage. */
      path: z.string().nullable(),
      amount: z.number().nullable(),
      threshold: z.number().nullable(),
      below: z.boolean(),
      checkedAt: z.string().nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
  /** Its last probes, newest first: those of a provider cooling down or disabled, and «Проверить сейчас». */
  probes: z.array(probeView),
  health: providerHealthView,
  /**
   * The hour before the read: every attempt at it (failovers to another provider included), of them its own
   * faults (5xx, 408, 429, timeouts, connection errors, its key refused, answers cut short) and the clients'
   * own 4xx (not its fault), and the median time of the answers it gave.
   */
  lastHour: z.object({
    attempts: z.number().int(),
    faults: z.number().int(),
    clientErrors: z.number().int(),
    /** Share of the attempts that were not its own fault (0..1); null without attempts. */
    successRate: z.number().nullable(),
    p50LatencyMs: z.number().int().nullable(),
    /** 95th percentile time of the answers it gave. */
    p95LatencyMs: z.number().int().nullable(),
  }),
});

const routeView = z.object({
  pattern: z.string(),
  targets: z.array(
    z.object({
      providerId: z.string(),
      priority: z.number().int(),
      weight: z.number().int(),
      model: z.string().optional(),
      /** What the provider charges us per 1M tokens, in the balance currency. */
      costPrice: z.object({ promptPerMillion: z.number(), completionPerMillion: z.number() }).optional(),
    }),
  ),
  updatedAt: z.string(),
});

export const adminRouter = router({
  listUsers: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.users', query: '?search=&limit=&cursor=' },
      openapi: {
        method: 'GET',
        path: '/api/admin/users',
        tags: TAGS,
        summary: 'Пользователи, новые первыми, постранично; search — часть e-mail',
      },
    })
    .input(listUsersInput)
    .output(z.object({ data: z.array(adminUser), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.admin.users.list(input)),

  getUser: adminProcedure
    .use(own)
    .meta({
      info: 'admin.users',
      openapi: {
        method: 'GET',
        path: '/api/admin/users/{id}',
        tags: TAGS,
        summary: 'Пользователь: ключи, расход по моделям и по провайдерам (с попытками) и последние 100 записей журнала баланса',
      },
    })
    .input(userIdInput)
    .output(
      z.object({
        user: adminUser,
        keys: z.array(
          z.object({
            id: z.string(),
            name: z.string(),
            keyPrefix: z.string(),
            createdAt: z.string(),
            lastUsedAt: z.string().nullable(),
            isActive: z.boolean(),
            /** In the balance currency; null: no limit. */
            spendLimit: z.number().nullable(),
            limitReset: z.enum(LIMIT_RESETS),
            /** Spent since the limit's period began (all time for a limit that never resets). */
            spentThisPeriod: z.number(),
            expired: z.boolean(),
          }),
        ),
        usageByModel: z.array(
          z.object({
            model: z.string(),
            requests: z.number().int(),
            promptTokens: z.number().int(),
            completionTokens: z.number().int(),
            totalTokens: z.number().int(),
            cost: z.number(),
            promptCost: z.number(),
            completionCost: z.number(),
            unpaid: z.number(),
          }),
        ),
        /** Requests per provider that answered (null: rows older than routing), those that needed more than one, attempts in all. */
        usageByProvider: z.array(
          z.object({
            provider: z.string().nullable(),
            requests: z.number().int(),
            failedOver: z.number().int(),
            attempts: z.number().int(),
            cost: z.number(),
            /** What the providers charge us, where the route target has a cost price; null: none has. */
            providerCost: z.number().nullable(),
          }),
        ),
        ledger: z.array(
          z.object({
            id: z.string(),
            amount: z.number(),
            kind: z.string(),
            reference: z.string().nullable(),
            createdAt: z.string(),
          }),
        ),
      }),
    )
    .query(({ ctx, input }) => ctx.admin.users.detail(input.id)),

  creditUser: adminProcedure
    .use(own)
    .meta({
      info: 'admin.credit',
      openapi: {
        method: 'POST',
        path: '/api/admin/users/{id}/credit',
        tags: TAGS,
        summary: 'Начислить (или, с отрицательной суммой, списать) деньги на баланс; повтор с тем же reference не начисляет второй раз',
      },
    })
    .input(creditInput)
    .output(z.object({ balance: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const { balanceNano } = await ctx.admin.users.credit(ctx.principal, {
        userId: input.id,
        amountNano: input.amount,
        reason: input.reason,
        reference: input.reference,
      });
      return { balance: nanoToUnits(balanceNano) };
    }),

  blockUser: adminProcedure
    .use(own)
    .meta({
      info: 'admin.block',
      openapi: {
        method: 'POST',
        path: '/api/admin/users/{id}/block',
        tags: TAGS,
        summary: 'Заблокировать: вход и API-ключи пользователя перестают работать сразу',
      },
    })
    .input(userIdInput)
    .output(adminUser)
    .mutation(({ ctx, input }) => ctx.admin.users.block(ctx.principal, input.id)),

  unblockUser: adminProcedure
    .use(own)
    .meta({ info: 'admin.block', openapi: { method: 'POST', path: '/api/admin/users/{id}/unblock', tags: TAGS, summary: 'Снять блокировку' } })
    .input(userIdInput)
    .output(adminUser)
    .mutation(({ ctx, input }) => ctx.admin.users.unblock(ctx.principal, input.id)),

  sendPasswordReset: adminProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/users/{id}/password-reset',
        tags: TAGS,
        summary: 'Отправить пользователю ссылку для сброса пароля (1 час, одноразовая; прежние ссылки перестают действовать)',
      },
      errors: { 503: 'Почтовый сервер не настроен (нет SMTP_URL) или не принял письмо' },
    })
    .input(userIdInput)
    .output(z.object({ message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { email } = await ctx.admin.userSessions.sendPasswordReset(ctx.principal, input.id);
      return { message: adminMessages.adminPasswordResetSent(email) };
    }),

  endUserSessions: adminProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/users/{id}/end-sessions',
        tags: TAGS,
        summary: 'Завершить все сеансы пользователя: выданные ему токены входа перестают действовать сразу',
      },
    })
    .input(userIdInput)
    .output(z.object({ message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.userSessions.endSessions(ctx.principal, input.id);
      return { message: adminMessages.adminSessionsEnded };
    }),

  revokeUserKey: adminProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/users/{id}/keys/{keyId}/revoke',
        tags: TAGS,
        summary: 'Отозвать API-ключ пользователя: ключ перестаёт работать на /v1 сразу, на всех экземплярах; действие попадает в журнал',
      },
    })
    .input(userKeyInput)
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.userKeys.revoke(ctx.principal, input.id, input.keyId);
      return { success: true, message: adminMessages.adminKeyRevoked };
    }),

  setUserKeyBudget: adminProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/admin/users/{id}/keys/{keyId}/budget',
        tags: TAGS,
        summary:
          'Бюджет API-ключа пользователя: лимит расходов (spendLimit, null — без лимита) и период сброса (limitReset: none, day, week, month, UTC); сверх лимита /v1 отвечает 402; действие попадает в журнал',
      },
    })
    .input(userKeyBudgetInput)
    .output(
      z.object({
        id: z.string(),
        name: z.string(),
        spendLimit: z.number().nullable(),
        limitReset: z.enum(LIMIT_RESETS),
        spentThisPeriod: z.number(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const key = await ctx.admin.userKeys.setBudget(ctx.principal, input.id, input.keyId, {
        spendLimitNano: input.spendLimit === null ? null : unitsToNano(input.spendLimit)!,
        limitReset: input.limitReset,
      });
      return { id: key.id, name: key.name, spendLimit: key.spendLimit, limitReset: key.limitReset, spentThisPeriod: key.spentThisPeriod };
    }),

  dailyStats: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.dailyStats', query: '?from=YYYY-MM-DD&to=YYYY-MM-DD' },
      openapi: {
        method: 'GET',
        path: '/api/admin/stats/daily',
        tags: TAGS,
        summary:
          'По дням UTC (from и to включительно, по умолчанию 30 дней): выручка (пополнения), начисления администраторов, расход, стоимость у провайдеров, маржа и число запросов; расход, стоимость и маржа по дням, моделям и провайдерам',
      },
    })
    .input(dailyStatsInput)
    .output(
      z.object({
        from: z.string(),
        to: z.string(),
        days: z.array(z.object({ day: z.string(), ...dayFigures })),
        totals: z.object(dayFigures),
        byModelProvider: z.array(modelProviderFigures),
      }),
    )
    .query(({ ctx, input }) => ctx.admin.stats.daily(input)),

  audit: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.audit', query: '?limit=&cursor=' },
      openapi: {
        method: 'GET',
        path: '/api/admin/audit',
        tags: TAGS,
        summary:
          'Журнал действий администраторов, новые первыми, постранично; фильтры: action (действие), email (часть e-mail администратора или пользователя, над которым действовали), from и to (дни UTC включительно)',
      },
    })
    .input(auditInput)
    .output(
      z.object({
        data: z.array(
          z.object({
            id: z.string(),
            createdAt: z.string(),
            adminId: z.string().nullable(),
            adminEmail: z.string(),
            action: z.string(),
            targetType: z.string(),
            targetId: z.string().nullable(),
            /** The target account's e-mail when the target is a user (null when the account is gone). */
            targetEmail: z.string().nullable(),
            before: jsonObject,
            after: jsonObject,
            /** The action in Russian («Поставщик добавлен»); `action` stays the machine name. */
            actionText: z.string(),
            /** The record by its name: a provider's name, an account's e-mail, a route's pattern. */
            targetText: z.string(),
            /** False when the record is gone since (targetText then ends «(удалён)», targetId keeps its id). */
            targetExists: z.boolean(),
            /** before/after as Russian lines, one per changed field (a route: per provider). */
            changes: z.array(z.object({ field: z.string(), label: z.string(), before: z.string().nullable(), after: z.string().nullable(), text: z.string() })),
          }),
        ),
        nextCursor: z.string().nullable(),
      }),
    )
    .query(({ ctx, input }) => ctx.admin.audit.list(input)),

  listPrices: adminProcedure
    .use(own)
    .meta({
      info: 'admin.prices',
      openapi: {
        method: 'GET',
        path: '/api/admin/prices',
        tags: TAGS,
        summary: 'Цены моделей за 1M токенов и цена по умолчанию (TOKEN_PRICE)',
      },
    })
    .input(z.void())
    .output(
      z.object({
        prices: z.array(priceRow),
        default: z.object({
          promptPerMillion: z.number(),
          completionPerMillion: z.number(),
          cacheReadRatio: z.number().describe('CACHE_READ_PRICE_RATIO: доля цены запроса за токен из кэша провайдера, где у строки нет своей цены'),
          cacheWriteRatio: z.number().describe('CACHE_WRITE_PRICE_RATIO: доля цены запроса за токен, записанный в кэш провайдера'),
        }),
      }),
    )
    .query(({ ctx }) => ctx.admin.prices.list()),

  putPrice: adminProcedure
    .use(own)
    .meta({
      info: 'admin.prices',
      openapi: {
        method: 'PUT',
        path: '/api/admin/prices',
        tags: TAGS,
        summary: 'Задать цену модели или префикса со звёздочкой (openai/*): за 1M токенов или (kind: per_second) за секунду аудио',
      },
    })
    .input(putPriceInput)
    .output(priceRow)
    .mutation(({ ctx, input }) =>
      ctx.admin.prices.put(ctx.principal, {
        pattern: input.pattern,
        kind: input.kind,
        promptNanoPerMillion: input.promptPerMillion ?? 0n,
        completionNanoPerMillion: input.completionPerMillion ?? 0n,
        perSecondNano: input.perSecond ?? 0n,
        cachedPromptNanoPerMillion: input.cachedPromptPerMillion ?? null,
        cacheWriteNanoPerMillion: input.cacheWritePerMillion ?? null,
      }),
    ),

  deletePrice: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.prices', query: '?pattern=' },
      openapi: {
        method: 'DELETE',
        path: '/api/admin/prices',
        tags: TAGS,
        summary: 'Удалить цену (?pattern=openai/*): модель снова стоит по более короткому шаблону или по умолчанию',
      },
    })
    .input(deletePriceInput)
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.prices.remove(ctx.principal, input.pattern);
      return { success: true, message: adminMessages.priceDeleted };
    }),

  previewPriceImport: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceImport',
      openapi: {
        method: 'POST',
        path: '/api/admin/prices/import/preview',
        tags: TAGS,
        summary: 'Цены из списка моделей провайдера × multiplier, рядом с действующими; ничего не сохраняется',
      },
    })
    .input(importPreviewInput)
    .output(
      z.object({
        rows: z.array(
          importRow.extend({
            current: z.object({ pattern: z.string(), promptPerMillion: z.number(), completionPerMillion: z.number() }).nullable(),
          }),
        ),
        skipped: z.array(skippedModel),
      }),
    )
    .mutation(({ ctx, input }) => ctx.admin.prices.preview(input.multiplier, input.filter)),

  importPrices: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceImport',
      openapi: {
        method: 'POST',
        path: '/api/admin/prices/import',
        tags: TAGS,
        summary: 'Сохранить цены провайдера × multiplier для перечисленных моделей',
      },
    })
    .input(importInput)
    .output(z.object({ imported: z.array(importRow), skipped: z.array(skippedModel) }))
    .mutation(({ ctx, input }) => ctx.admin.prices.import(ctx.principal, input.multiplier, input.models)),
  listProviders: adminProcedure
    .use(own)
    .meta({
      info: 'admin.providers',
      openapi: {
        method: 'GET',
        path: '/api/admin/providers',
        tags: TAGS,
        summary: 'Провайдеры моделей: встроенный default (из окружения) и добавленные; ключи замаскированы, с состоянием здоровья',
      },
    })
    .input(z.void())
    .output(z.object({ data: z.array(providerView) }))
    .query(({ ctx }) => ctx.admin.providers.list()),

  createProvider: adminProcedure
    .use(own)
    .meta({
      info: 'admin.providers',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/admin/providers',
        tags: TAGS,
        summary: 'Добавить провайдера (OpenAI-совместимый адрес и ключ API; ключ хранится зашифрованным и не возвращается)',
      },
    })
    .input(createProviderInput)
    .output(providerView)
    .mutation(({ ctx, input }) => ctx.admin.providers.create(ctx.principal, input)),

  getProvider: adminProcedure
    .use(own)
    .meta({ info: 'admin.providers', openapi: { method: 'GET', path: '/api/admin/providers/{id}', tags: TAGS, summary: 'Провайдер и его здоровье' } })
    .input(providerIdInput)
    .output(providerView)
    .query(({ ctx, input }) => ctx.admin.providers.get(input.id)),

  updateProvider: adminProcedure
    .use(own)
    .meta({
      info: 'admin.providers',
      openapi: {
        method: 'PATCH',
        path: '/api/admin/providers/{id}',
        tags: TAGS,
        summary: 'Изменить провайдера; любое изменение возвращает его в работу (сбрасывает охлаждение и отключение)',
      },
    })
    .input(patchProviderInput)
    .output(providerView)
    .mutation(({ ctx, input }) => {
      const { id, ...patch } = input;
      return ctx.admin.providers.update(ctx.principal, id, patch);
    }),

  probeProvider: adminProcedure
    .use(own)
    .meta({
      info: 'admin.providers',
      openapi: {
        method: 'POST',
        path: '/api/admin/providers/{id}/probe',
        tags: TAGS,
        summary: 'Проверить сейчас: спросить провайдера (GET /models или запрос в 1 токен); ответивший возвращается в работу',
      },
    })
    .input(providerIdInput)
    .output(
      z.object({
        ok: z.boolean(),
        at: z.string(),
        status: z.number().int().nullable(),
        latencyMs: z.number().int(),
        error: z.string().nullable(),
        /** The provider's health after the probe. */
        state: z.enum(['up', 'cooling_down', 'disabled']),
      }),
    )
    .mutation(({ ctx, input }) => ctx.admin.providers.probe(ctx.principal, input.id)),

  deleteProvider: adminProcedure
    .use(own)
    .meta({
      info: 'admin.providers',
      openapi: { method: 'DELETE', path: '/api/admin/providers/{id}', tags: TAGS, summary: 'Удалить провайдера, на которого не ссылается ни один маршрут' },
    })
    .input(providerIdInput)
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.providers.remove(ctx.principal, input.id);
      return { success: true, message: adminMessages.providerDeleted };
    }),

  listRoutes: adminProcedure
    .use(own)
    .meta({
      info: 'admin.routes',
      openapi: {
        method: 'GET',
        path: '/api/admin/routes',
        tags: TAGS,
        summary: 'Маршруты: модель или префикс со звёздочкой → провайдеры по приоритету и весу',
      },
    })
    .input(z.void())
    .output(z.object({ routes: z.array(routeView) }))
    .query(({ ctx }) => ctx.admin.providers.listRoutes()),

  putRoute: adminProcedure
    .use(own)
    .meta({
      info: 'admin.routes',
      openapi: {
        method: 'PUT',
        path: '/api/admin/routes',
        tags: TAGS,
        summary:
          'Задать маршрут модели или префикса (openai/*): провайдеры пробуются по возрастанию priority, внутри приоритета по weight; model — id модели у провайдера',
      },
    })
    .input(putRouteInput)
    .output(routeView)
    .mutation(({ ctx, input }) => ctx.admin.providers.putRoute(ctx.principal, input.pattern, input.targets)),

  deleteRoute: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.routes', query: '?pattern=' },
      openapi: {
        method: 'DELETE',
        path: '/api/admin/routes',
        tags: TAGS,
        summary: 'Удалить маршрут (?pattern=openai/*): модель снова идёт по более короткому шаблону или к провайдеру default',
      },
    })
    .input(deleteRouteInput)
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.providers.removeRoute(ctx.principal, input.pattern);
      return { success: true, message: adminMessages.routeDeleted };
    }),
});
