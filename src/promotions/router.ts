// Promo codes over the dashboard's API: POST /api/billing/promo for the person typing a code (JWT; in an
// organisation its owner or accountant, for the organisation's balance), and the operator's campaigns under
// /api/admin/promotions (create, list, one with its redemptions, stop). The codes' CSV is a raw route
// (codes-export.route.ts).
import { z } from 'zod';
import { ORGANIZATION_ACCESS } from '../keys';
import { adminProcedure, inject, router, userProcedure } from '../trpc/init';
import { promotionsSlot } from './api';
import { campaignDetailView, campaignIdParam, campaignView, createCampaignInput, createdCampaignView, redeemedView, redeemInput } from './input';
import { nanoToUnits } from '../money';
import { campaignView as viewOf, redemptionView } from './views';

const own = inject((use) => ({ promotions: use(promotionsSlot).promotions }));
const ADMIN_TAGS = ['admin'];

export const promoRouter = router({
  redeem: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'billing.promo',
      errors: {
        400: 'Промокода нет, акция остановлена (promo_invalid), срок истёк (promo_expired) или учётная запись не подходит под условия акции (promo_not_eligible)',
        409: 'Код уже использован (promo_used) или промокод этой акции уже активирован этой учётной записью (promo_already_redeemed)',
        429: 'Слишком много попыток с этой учётной записи или с этого адреса (PROMO_ATTEMPTS_PER_HOUR); Retry-After — через сколько секунд',
      },
      openapi: {
        method: 'POST',
        path: '/api/billing/promo',
        tags: ['billing'],
        summary: 'Активировать промокод: сумма акции зачисляется на баланс',
        description:
          'Регистр, пробелы и дефисы в коде не важны. Одна акция — одна активация на учётную запись; уникальный код активируется один раз, ' +
          'общий — не больше заданного числа раз. Зачисление — запись promo в выписке. Отказ несёт машинный код в поле error.code. ' +
          'Попытки считаются по учётной записи и по адресу (успешные не в счёт).',
      },
    })
    .input(redeemInput)
    .output(redeemedView)
    .mutation(async ({ ctx, input }) => {
      const account = ctx.principal.userId;
      const redeemed = await ctx.promotions.redemptions.redeem(account, ctx.principal.organization?.actorId ?? null, input.code, ctx.clientAddress);
      return {
        amount: nanoToUnits(redeemed.amountNano),
        balance: nanoToUnits(await ctx.promotions.balanceNano(account)),
        currency: ctx.config.balanceCurrency,
        campaign: redeemed.campaignName,
      };
    }),
});

export const adminPromotionsRouter = router({
  create: adminProcedure
    .use(own)
    .meta({
      info: 'admin.promotions',
      successStatus: 201,
      errors: { 409: 'Выбранный общий код уже есть в другой акции' },
      openapi: {
        method: 'POST',
        path: '/api/admin/promotions',
        tags: ADMIN_TAGS,
        summary: 'Создать акцию с промокодами: уникальные коды или один общий',
        description:
          'kind=unique — codeCount кодов (до 10 000) по одной активации; kind=shared — один код (свой в code или случайный) на uses активаций. ' +
          'Коды случайные, 16 символов без похожих (0/O, 1/I), группами по четыре. В ответе — сами коды; позже их можно выгрузить в CSV ' +
          '(/api/admin/promotions/{id}/codes/export). Пишется в журнал действий.',
      },
    })
    .input(createCampaignInput)
    .output(createdCampaignView)
    .mutation(async ({ ctx, input }) => {
      const { campaign, codes } = await ctx.promotions.campaigns.create(ctx.principal, input);
      return { ...viewOf(campaign, ctx.config.balanceCurrency), codes };
    }),

  list: adminProcedure
    .use(own)
    .meta({
      info: 'admin.promotions',
      openapi: { method: 'GET', path: '/api/admin/promotions', tags: ADMIN_TAGS, summary: 'Акции с промокодами, новые первыми, с числом активаций' },
    })
    .input(z.object({ limit: z.coerce.number().int().min(1).max(500).default(100).describe('Сколько акций (до 500)') }))
    .output(z.object({ campaigns: z.array(campaignView) }))
    .query(async ({ ctx, input }) => ({
      campaigns: (await ctx.promotions.campaigns.list(input.limit)).map((c) => viewOf(c, ctx.config.balanceCurrency)),
    })),

  get: adminProcedure
    .use(own)
    .meta({
      info: 'admin.promotions',
      errors: { 404: 'Акция не найдена' },
      openapi: {
        method: 'GET',
        path: '/api/admin/promotions/{id}',
        tags: ADMIN_TAGS,
        summary: 'Акция с активациями: кто (адрес скрыт наполовину), когда, сколько зачислено',
      },
    })
    .input(campaignIdParam)
    .output(campaignDetailView)
    .query(async ({ ctx, input }) => {
      const campaign = await ctx.promotions.campaigns.one(input.id);
      const redemptions = await ctx.promotions.campaigns.redemptions(input.id);
      return { ...viewOf(campaign, ctx.config.balanceCurrency), redemptionList: redemptions.map(redemptionView) };
    }),

  stop: adminProcedure
    .use(own)
    .meta({
      info: 'admin.promotions',
      errors: { 404: 'Акция не найдена', 409: 'Акция уже остановлена' },
      openapi: {
        method: 'POST',
        path: '/api/admin/promotions/{id}/stop',
        tags: ADMIN_TAGS,
        summary: 'Остановить акцию: её коды больше ничего не зачисляют',
        description: 'Зачисленное остаётся на балансах. Код остановленной акции отвечает как несуществующий (promo_invalid). Пишется в журнал действий.',
      },
    })
    .input(campaignIdParam)
    .output(campaignView)
    .mutation(async ({ ctx, input }) => viewOf(await ctx.promotions.campaigns.stop(ctx.principal, input.id), ctx.config.balanceCurrency)),
});
