// /api/v1/commerce/:agentId/… : an E-commerce agent's catalog, shop settings and orders, for its owner (JWT).
// The payment provider's notifications arrive on a raw route (payments.ts).
import { z } from 'zod';
import { agentProcedure } from '../trpc/agent-guard';
import { isoInstantInput } from '../http/date-input';
import { AppError } from '../http/errors';
import { commerceMessages } from './texts';
import { router, inject } from '../trpc/init';
import { MAX_IMPORT_ROWS, productInput, productPatch, productView } from './catalog';
import { ORDER_STATUSES, orderView } from './orders';
import { commerceSettingsInput, commerceSettingsView } from './settings';
import { checkOrderStatus, orderStatusFields } from './order-status';
import { commerceSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ commerce: use(commerceSlot).commerce }));

const agentId = z.string().max(100);
const id = z.string().max(100);
const TAG = 'commerce';

/** The caller's own E-commerce agent, or the error that says why not. */
const shopProcedure = agentProcedure.use(own).use(({ ctx, next }) => {
  if (ctx.agent.type !== 'ecommerce') throw new AppError('invalid_request_error', commerceMessages.commerceNotEcommerce);
  return next();
});

const paging = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(300).optional(),
};

export const commerceRouter = router({
  getSettings: shopProcedure
    .meta({
      info: 'commerce.settings',
      openapi: { method: 'GET', path: '/api/v1/commerce/{agentId}/settings', tags: [TAG], summary: 'Настройки магазина (секрет уведомлений замаскирован)' },
    })
    .input(z.object({ agentId }))
    .output(commerceSettingsView)
    .query(({ ctx }) => ctx.commerce.settings.read(ctx.agent.id)),

  putSettings: shopProcedure
    .meta({
      info: 'commerce.settings',
      openapi: {
        method: 'PUT',
        path: '/api/v1/commerce/{agentId}/settings',
        tags: [TAG],
        summary: 'Сохранить настройки магазина (URL уведомлений с секретом показывается один раз)',
      },
    })
    .input(commerceSettingsInput.extend({ agentId }))
    .output(commerceSettingsView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...settings } = input;
      return ctx.commerce.settings.save(ctx.agent.id, settings);
    }),

  listProducts: shopProcedure
    .meta({
      info: 'commerce.products',
      openapi: { method: 'GET', path: '/api/v1/commerce/{agentId}/products', tags: [TAG], summary: 'Товары каталога (постранично)' },
    })
    .input(z.object({ agentId, ...paging }))
    .output(z.object({ products: z.array(productView), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.commerce.catalog.list(ctx.agent.id, input)),

  createProduct: shopProcedure
    .meta({
      info: 'commerce.products',
      successStatus: 201,
      openapi: { method: 'POST', path: '/api/v1/commerce/{agentId}/products', tags: [TAG], summary: 'Добавить товар', successDescription: 'Товар добавлен' },
    })
    .input(productInput.extend({ agentId }))
    .output(productView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...product } = input;
      return ctx.commerce.catalog.create(ctx.agent.id, product);
    }),

  getProduct: shopProcedure
    .meta({ info: 'commerce.products', openapi: { method: 'GET', path: '/api/v1/commerce/{agentId}/products/{productId}', tags: [TAG], summary: 'Товар' } })
    .input(z.object({ agentId, productId: id }))
    .output(productView)
    .query(({ ctx, input }) => ctx.commerce.catalog.get(ctx.agent.id, input.productId)),

  updateProduct: shopProcedure
    .meta({
      info: 'commerce.products',
      openapi: { method: 'PATCH', path: '/api/v1/commerce/{agentId}/products/{productId}', tags: [TAG], summary: 'Изменить товар' },
    })
    .input(productPatch.extend({ agentId, productId: id }))
    .output(productView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, productId, ...patch } = input;
      return ctx.commerce.catalog.update(ctx.agent.id, productId, patch);
    }),

  deleteProduct: shopProcedure
    .meta({
      info: 'commerce.products',
      openapi: { method: 'DELETE', path: '/api/v1/commerce/{agentId}/products/{productId}', tags: [TAG], summary: 'Удалить товар' },
    })
    .input(z.object({ agentId, productId: id }))
    .output(z.object({ success: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.commerce.catalog.remove(ctx.agent.id, input.productId);
      return { success: true };
    }),

  importProducts: shopProcedure
    .meta({
      info: 'commerce.importProducts',
      openapi: {
        method: 'POST',
        path: '/api/v1/commerce/{agentId}/products/import',
        tags: [TAG],
        summary: `Импорт товаров из CSV или JSON (до ${MAX_IMPORT_ROWS}): все строки или ни одной, с ошибками по строкам`,
      },
    })
    .input(
      z
        .object({ agentId, csv: z.string().max(5_000_000).optional(), products: z.array(z.unknown()).max(MAX_IMPORT_ROWS).optional() })
        .refine((v) => (v.csv === undefined) !== (v.products === undefined), commerceMessages.importOneSource),
    )
    .output(z.object({ ok: z.boolean(), imported: z.number().int(), errors: z.array(z.object({ row: z.number().int(), message: z.string() })) }))
    .mutation(({ ctx, input }) => ctx.commerce.catalog.import(ctx.agent.id, input)),

  listOrders: shopProcedure
    .meta({
      info: 'commerce.orders',
      openapi: { method: 'GET', path: '/api/v1/commerce/{agentId}/orders', tags: [TAG], summary: 'Заказы (новые сначала), фильтр по статусу и датам' },
    })
    .input(z.object({ agentId, ...paging, status: z.enum(ORDER_STATUSES).optional(), from: isoInstantInput.optional(), to: isoInstantInput.optional() }))
    .output(z.object({ orders: z.array(orderView), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => ctx.commerce.orders.list(ctx.agent.id, input)),

  getOrder: shopProcedure
    .meta({ info: 'commerce.orders', openapi: { method: 'GET', path: '/api/v1/commerce/{agentId}/orders/{orderId}', tags: [TAG], summary: 'Заказ' } })
    .input(z.object({ agentId, orderId: id }))
    .output(orderView)
    .query(({ ctx, input }) => ctx.commerce.orders.get(ctx.agent.id, input.orderId)),

  setOrderStatus: shopProcedure
    .meta({
      info: 'commerce.orders',
      openapi: {
        method: 'POST',
        path: '/api/v1/commerce/{agentId}/orders/{orderId}/status',
        tags: [TAG],
        summary: 'Сменить статус заказа: отправлен (с трек-номером), доставлен, отменён (с причиной); клиенту в VK приходит сообщение',
      },
    })
    .input(orderStatusFields.extend({ agentId, orderId: id }).superRefine(checkOrderStatus))
    .output(orderView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, orderId, ...change } = input;
      return ctx.commerce.orderStatus.change(ctx.agent.id, orderId, change);
    }),
});
