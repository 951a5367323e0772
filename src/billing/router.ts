// /api/billing/… : balance top-ups for the signed-in user (JWT), and the public top-up settings the
// dashboard needs to show or hide its button. YooKassa's notifications arrive on a raw route (notifications.ts).
import { z } from 'zod';
import { ORGANIZATION_ACCESS } from '../keys';
import { publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { billingConfigView, createTopupInput, topupView } from './topups-input';
import { autoTopupSettingsInput, autoTopupView } from './auto-topup-input';
import { topupsSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ topups: use(topupsSlot).topups }));

const TAG = 'billing';

export const billingRouter = router({
  config: publicProcedure
    .use(own)
    .meta({
      info: 'billing.config',
      openapi: { method: 'GET', path: '/api/billing/config', tags: [TAG], summary: 'Настройки пополнения баланса: включено ли, валюта, пределы суммы' },
    })
    .input(z.void())
    .output(billingConfigView)
    .query(({ ctx }) => ctx.topups.service.config()),

  createTopup: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.topups',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/billing/topups',
        tags: [TAG],
        summary: 'Пополнить баланс через ЮKassa: ответ содержит ссылку на страницу оплаты',
        successDescription: 'Пополнение создано, ожидает оплаты',
      },
    })
    .input(createTopupInput)
    .output(topupView)
    .mutation(({ ctx, input }) => ctx.topups.service.create(ctx.principal.userId, input, ctx.principal.organization?.actorId ?? ctx.principal.userId)),

  listTopups: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.topups',
      openapi: { method: 'GET', path: '/api/billing/topups', tags: [TAG], summary: 'Пополнения баланса, новые первыми, постранично' },
    })
    .input(z.object({ limit: z.coerce.number().int().min(1).max(100).default(20), cursor: z.string().max(300).optional() }))
    .output(z.object({ topups: z.array(topupView), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.topups.service.list(ctx.principal.userId, input)),

  getTopup: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.topups',
      openapi: {
        method: 'GET',
        path: '/api/billing/topups/{id}',
        tags: [TAG],
        summary: 'Пополнение (ожидающее оплаты сверяется с ЮKassa): для страницы возврата после оплаты',
      },
    })
    .input(z.object({ id: z.string().max(100) }))
    .output(topupView)
    .query(({ ctx, input }) => ctx.topups.service.get(ctx.principal.userId, input.id)),

  autoTopup: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.autoTopup',
      openapi: {
        method: 'GET',
        path: '/api/billing/auto-topup',
        tags: [TAG],
        summary: 'Автопополнение: настройки, сохранённая карта (без её идентификатора), расход за месяц и последние попытки',
      },
    })
    .input(z.void())
    .output(autoTopupView)
    .query(({ ctx }) => ctx.topups.autoTopup.view(ctx.principal.userId)),

  saveAutoTopup: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.autoTopup',
      openapi: {
        method: 'PUT',
        path: '/api/billing/auto-topup',
        tags: [TAG],
        summary: 'Настроить автопополнение: «пополнять на amount, когда баланс ниже threshold», не больше monthlyLimit в месяц',
      },
    })
    .input(autoTopupSettingsInput)
    .output(autoTopupView)
    .mutation(({ ctx, input }) => ctx.topups.autoTopup.save(ctx.principal.userId, input)),

  removeCard: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.autoTopup',
      openapi: {
        method: 'DELETE',
        path: '/api/billing/card',
        tags: [TAG],
        summary: 'Удалить сохранённую карту: автопополнение выключается',
      },
    })
    .input(z.void())
    .output(autoTopupView)
    .mutation(({ ctx }) => ctx.topups.autoTopup.removeCard(ctx.principal.userId)),
});
