// Operator routes for price groups (issue 45) under /api/admin/price-groups, and moving an account between
// groups; each an adminProcedure whose change writes its audit row in its own transaction.
import { z } from 'zod';
import { PRICE_KINDS } from '../pricing/prices';
import { adminProcedure, inject, router } from '../trpc/init';
import { adminSlot } from './api';
import { createPriceGroupInput, deleteGroupPriceInput, moveUserInput, priceGroupNameInput, putGroupPriceInput, updatePriceGroupInput } from './price-groups-input';
import { adminMessages } from './texts';

const own = inject((use) => ({ admin: use(adminSlot).admin }));

const TAGS = ['admin'];

const groupPrice = z.object({
  pattern: z.string(),
  kind: z.enum(PRICE_KINDS).describe('per_token — за токены; per_second — за секунду аудио (модели распознавания речи)'),
  promptPerMillion: z.number(),
  completionPerMillion: z.number(),
  perSecond: z.number().describe('Цена секунды аудио (для per_second; 0 для per_token)'),
  updatedAt: z.string(),
});

const priceGroup = z.object({
  name: z.string().describe('Имя группы (латиница, цифры, «-», «_»)'),
  title: z.string().describe('Название группы для людей'),
  multiplier: z.number().describe('Множитель цен прайс-листа (1 — как в прайс-листе)'),
  allowedModels: z.array(z.string()).nullable().describe('Доступные модели: идентификаторы или префиксы со звёздочкой; null — все'),
  isDefault: z.boolean().describe('Группа новых пользователей'),
  users: z.number().int().describe('Пользователей в группе'),
  prices: z.array(groupPrice).describe('Свои цены группы: заменяют цену прайс-листа × множитель для своих моделей'),
});

const done = z.object({ success: z.boolean(), message: z.string() });

export const adminPriceGroupsRouter = router({
  list: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceGroups',
      openapi: { method: 'GET', path: '/api/admin/price-groups', tags: TAGS, summary: 'Группы цен: множитель, доступные модели, свои цены, число пользователей' },
    })
    .input(z.void())
    .output(z.object({ groups: z.array(priceGroup) }))
    .query(async ({ ctx }) => ({ groups: await ctx.admin.priceGroups.list() })),

  get: adminProcedure
    .use(own)
    .meta({ info: 'admin.priceGroups', openapi: { method: 'GET', path: '/api/admin/price-groups/{name}', tags: TAGS, summary: 'Группа цен' } })
    .input(priceGroupNameInput)
    .output(priceGroup)
    .query(({ ctx, input }) => ctx.admin.priceGroups.get(input.name)),

  create: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceGroups',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/admin/price-groups',
        tags: TAGS,
        summary: 'Создать группу цен: множитель цен прайс-листа, доступные модели (null — все), группа по умолчанию для новых пользователей',
      },
    })
    .input(createPriceGroupInput)
    .output(priceGroup)
    .mutation(({ ctx, input }) =>
      ctx.admin.priceGroups.create(ctx.principal, {
        name: input.name,
        title: input.title,
        multiplierPpm: input.multiplier ?? 1_000_000n,
        allowedModels: input.allowedModels,
        isDefault: input.isDefault,
      }),
    ),

  update: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceGroups',
      openapi: {
        method: 'PATCH',
        path: '/api/admin/price-groups/{name}',
        tags: TAGS,
        summary: 'Изменить группу цен; isDefault: true делает её группой новых пользователей',
      },
    })
    .input(updatePriceGroupInput)
    .output(priceGroup)
    .mutation(({ ctx, input }) =>
      ctx.admin.priceGroups.update(ctx.principal, input.name, {
        title: input.title,
        multiplierPpm: input.multiplier,
        allowedModels: input.allowedModels,
        isDefault: input.isDefault,
      }),
    ),

  remove: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceGroups',
      openapi: {
        method: 'DELETE',
        path: '/api/admin/price-groups/{name}',
        tags: TAGS,
        summary: 'Удалить группу цен без пользователей (группу по умолчанию удалить нельзя)',
      },
    })
    .input(priceGroupNameInput)
    .output(done)
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.priceGroups.remove(ctx.principal, input.name);
      return { success: true, message: adminMessages.priceGroupDeleted };
    }),

  putPrice: adminProcedure
    .use(own)
    .meta({
      info: 'admin.priceGroups',
      openapi: {
        method: 'PUT',
        path: '/api/admin/price-groups/{name}/prices',
        tags: TAGS,
        summary: 'Своя цена группы для модели или префикса (openai/*): заменяет цену прайс-листа × множитель',
      },
    })
    .input(putGroupPriceInput)
    .output(groupPrice)
    .mutation(({ ctx, input }) =>
      ctx.admin.priceGroups.putPrice(ctx.principal, input.name, {
        pattern: input.pattern,
        kind: input.kind,
        promptNanoPerMillion: input.promptPerMillion ?? 0n,
        completionNanoPerMillion: input.completionPerMillion ?? 0n,
        perSecondNano: input.perSecond ?? 0n,
      }),
    ),

  removePrice: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.priceGroups', query: '?pattern=' },
      openapi: {
        method: 'DELETE',
        path: '/api/admin/price-groups/{name}/prices',
        tags: TAGS,
        summary: 'Удалить свою цену группы (?pattern=openai/*): модели снова стоят по прайс-листу с множителем группы',
      },
    })
    .input(deleteGroupPriceInput)
    .output(done)
    .mutation(async ({ ctx, input }) => {
      await ctx.admin.priceGroups.removePrice(ctx.principal, input.name, input.pattern);
      return { success: true, message: adminMessages.groupPriceDeleted };
    }),

  moveUser: adminProcedure
    .use(own)
    .meta({
      info: 'admin.users',
      openapi: {
        method: 'PUT',
        path: '/api/admin/users/{id}/price-group',
        tags: TAGS,
        summary: 'Перевести пользователя (или организацию) в группу цен: со следующего запроса',
      },
    })
    .input(moveUserInput)
    .output(z.object({ id: z.string(), priceGroup: z.string() }))
    .mutation(({ ctx, input }) => ctx.admin.priceGroups.moveUser(ctx.principal, input.id, input.group)),
});
