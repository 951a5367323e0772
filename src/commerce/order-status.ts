// The owner moves an order on: paid → «Отправлен» with the tracking number the owner enters; shipped →
// «Доставлен»; pending, paid or shipped → «Отменён» with a reason. Paid itself is the payment's (payments.ts).
// The change is one conditional update (the status it comes from): two clicks, two tabs or two instances
// change it once, and the client's VK message (orderStatusChanged → the outbox) commits with it, so it is
// sent once or not at all.
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '../db/client';
import { AppError } from '../http/errors';
import type { Events } from '../platform/events';
import { orderStatusChanged } from './events';
import { orderViewOf, type OrderStatus, type OrderView } from './orders';
import { orders } from './tables';
import { commerceMessages } from './texts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;

/** Which status the owner may set from which. */
const FROM: Record<'shipped' | 'delivered' | 'cancelled', OrderStatus[]> = {
  shipped: ['paid'],
  delivered: ['shipped'],
  cancelled: ['pending', 'paid', 'shipped'],
};

const TRACKING = /^[\p{L}\d][\p{L}\d -]{2,62}[\p{L}\d]$/u;

/** The fields of a status change; `checkOrderStatus` says which the chosen status needs. */
export const orderStatusFields = z.object({
  status: z.enum(['shipped', 'delivered', 'cancelled']).describe('shipped — отправлен, delivered — доставлен, cancelled — отменён'),
  trackingNumber: z.string().max(200).optional().describe('Для shipped: трек-номер, его получит клиент'),
  reason: z.string().max(1000).optional().describe('Для cancelled: причина, её получит клиент'),
});

export function checkOrderStatus(v: z.infer<typeof orderStatusFields>, ctx: z.RefinementCtx): void {
  if (v.status === 'shipped' && !TRACKING.test((v.trackingNumber ?? '').trim())) {
    ctx.addIssue({ code: 'custom', message: commerceMessages.trackingNumberInvalid, path: ['trackingNumber'] });
  }
  const reason = (v.reason ?? '').trim();
  if (v.status === 'cancelled' && (reason.length < 3 || reason.length > 300 || CONTROL.test(reason))) {
    ctx.addIssue({ code: 'custom', message: commerceMessages.cancelReasonInvalid, path: ['reason'] });
  }
}

export const orderStatusInput = orderStatusFields.superRefine(checkOrderStatus);
export type OrderStatusInput = z.infer<typeof orderStatusFields>;

export function createOrderStatus(deps: { db: Database; events: Pick<Events, 'emitAndWait'>; outbox: { wake(): void } }) {
  return {
    async change(agentId: string, orderId: string, input: OrderStatusInput): Promise<OrderView> {
      if (!UUID.test(orderId)) throw new AppError('not_found', commerceMessages.orderNotFound);
      const changed = await deps.db.transaction(async (tx) => {
        const [order] = await tx
          .select()
          .from(orders)
          .where(and(eq(orders.agentId, agentId), eq(orders.id, orderId)))
          .for('no key update');
        if (!order) throw new AppError('not_found', commerceMessages.orderNotFound);
        if (!FROM[input.status].includes(order.status as OrderStatus)) {
          const label = commerceMessages.statusLabels;
          throw new AppError('conflict', commerceMessages.orderStatusTransition(label[order.status] ?? order.status, label[input.status]!));
        }
        const detail = input.status === 'shipped' ? input.trackingNumber!.trim() : input.status === 'cancelled' ? input.reason!.trim() : null;
        const now = new Date();
        const [row] = await tx
          .update(orders)
          .set({
            status: input.status,
            statusChangedAt: now,
            updatedAt: now,
            ...(input.status === 'shipped' ? { trackingNumber: detail } : {}),
            ...(input.status === 'cancelled' ? { cancelReason: detail } : {}),
          })
          .where(and(eq(orders.id, order.id), eq(orders.status, order.status)))
          .returning();
        if (!row) throw new AppError('conflict', commerceMessages.orderStatusTransition(order.status, input.status));
        if (row.dialogueId) {
          await deps.events.emitAndWait(orderStatusChanged, { tx, agentId, dialogueId: row.dialogueId, orderNumber: row.number, status: input.status, detail });
        }
        return orderViewOf(row);
      });
      deps.outbox.wake();
      return changed;
    },
  };
}

export type OrderStatusChanges = ReturnType<typeof createOrderStatus>;
