// POST /api/v1/commerce/webhook/:agentId?token=<secret> — payment notifications in YooKassa's format:
//   {"type": "notification", "event": "payment.succeeded",
//    "object": {"id": "<payment id>", "status": "succeeded", "paid": true,
//               "amount": {"value": "1500.00", "currency": "RUB"},
//               "metadata": {"orderNumber": "ORD-20261201-0001"}, "description": "…", …}}
// YooKassa signs nothing, so the notification URL carries a per-agent secret (compared in constant time;
// wrong or missing → 403, nothing done). The order is found by metadata (orderNumber / order_number /
// orderId / order_id) or an order number in the description, and must match in amount and currency.
// A shop with its own YooKassa account has its notifications verified as well: the payment is re-read with
// the shop's credentials and only YooKassa's answer is acted on (the body's status is not trusted); when
// YooKassa cannot be asked the answer is 502, so YooKassa delivers the notification again. A shop on the link
// template has no account to ask: its notifications must come from YooKassa's published addresses
// (YOOKASSA_NOTIFICATION_IPS; a forwarded address only behind TRUST_PROXY), else 403 — the secret still checked first.
//
// A notification is recorded under (payment id, event): a repeat changes nothing. Deliveries in any order
// are harmless: paid is final, a cancellation does not touch the order (the client may pay again), and a
// success after a cancellation still marks the order paid. Marking paid, the payment notification's
// outbox rows and the client's message commit in one transaction.
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { orders, paymentEvents, products } from './tables';
import { readBodyText } from '../http/body';
import { AppError } from '../http/errors';
import { parseJsonBody } from '../http/json';
import { errorMessages } from '../http/messages';
import { paymentsMessages } from '../payments/texts';
import { commerceMessages } from './texts';
import { findUnstorableText } from '../http/text';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Notifier } from '../integrations/messenger';
import type { NotificationSenders } from '../payments/notification-senders';
import { isYookassaError, YookassaApiError, type YookassaClient, type YookassaCredentials } from '../payments/yookassa';
import type { Events } from '../platform/events';
import { orderPaid } from './events';
import { minorToDecimal } from './orders';
import type { CommerceSettings } from './settings';

const MAX_NOTIFICATION_BYTES = 64 * 1024;
const ORDER_NUMBER = /ORD-\d{8}-\d{4,}/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Notification {
  type: string;
  event: string;
  object: {
    id: string;
    status?: string;
    paid?: boolean;
    amount?: { value?: string; currency?: string };
    metadata?: Record<string, unknown>;
    description?: string;
  };
}

function isNotification(value: unknown): value is Notification {
  const v = value as Notification | null;
  return (
    !!v &&
    v.type === 'notification' &&
    typeof v.event === 'string' &&
    !!v.object &&
    typeof v.object === 'object' &&
    typeof v.object.id === 'string' &&
    v.object.id.length > 0 &&
    v.object.id.length <= 100
  );
}

/** "1500.00" or "1500" → 150000; null when it is not a money amount. */
function decimalToMinor(value: unknown): number | null {
  if (typeof value !== 'string' || !/^\d{1,13}(\.\d{1,2})?$/.test(value)) return null;
  const [units = '0', cents = ''] = value.split('.');
  return Number(units) * 100 + Number(cents.padEnd(2, '0'));
}

const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });

export function createPaymentWebhook(deps: {
  db: Database;
  settings: CommerceSettings;
  notifier: Pick<Notifier, 'enqueuePayment'>;
  outbox: Pick<OutboxWorker, 'wake'>;
  logger: Logger;
  yookassaFor: (credentials: YookassaCredentials) => YookassaClient;
  /**
   * YooKassa's notification addresses, for shops without an account to re-read the payment with; null
   * when the operator switched the check off (YOOKASSA_NOTIFICATION_IPS empty): the URL secret alone then.
   */
  senders: NotificationSenders | null;
  /** Tells who cares (the VK dialogue the order came from) of a payment, inside its transaction. */
  events: Pick<Events, 'emitAndWait'>;
}) {
  const { db, settings, notifier, logger } = deps;

  /**
   * The notification to act on. Without a YooKassa account it is the body as sent (the URL secret was the
   * check). With one, the body only names the payment: YooKassa's re-read answer replaces it, and its
   * event is the payment's real state — so a forged "succeeded" is recorded as what it is (pending) and
   * cannot shadow the real success under the (payment, event) dedupe key.
   */
  async function verified(agentId: string, n: Notification, request: Request): Promise<{ notification: Notification } | { response: Response }> {
    const credentials = (await settings.paymentSetup(agentId))?.yookassa;
    if (!credentials) {
      const sender = deps.senders?.check(request);
      if (!sender || sender.allowed) return { notification: n };
      logger.warn('payment notification from an address YooKassa does not send from; refused', { agentId, address: sender.address, paymentId: n.object.id });
      throw new AppError('forbidden', paymentsMessages.paymentUntrustedSender);
    }
    if (!n.event.startsWith('payment.')) {
      logger.info('payment notification ignored', { agentId, event: n.event, objectId: n.object.id });
      return { response: ok() };
    }
    try {
      const payment = await deps.yookassaFor(credentials).getPayment(n.object.id);
      return {
        notification: {
          type: 'notification',
          event: `payment.${payment.status}`,
          object: {
            id: payment.id,
            status: payment.status,
            paid: payment.paid,
            amount: payment.amount,
            metadata: payment.metadata ?? {},
            ...(payment.description ? { description: payment.description } : {}),
          },
        },
      };
    } catch (error) {
      if (error instanceof YookassaApiError && error.kind === 'not_found') {
        logger.warn('payment notification names a payment the shop’s YooKassa does not know', { agentId, paymentId: n.object.id });
        return { response: ok() };
      }
      if (!isYookassaError(error)) throw error;
      logger.error('payment notification could not be verified; YooKassa will redeliver it', { agentId, paymentId: n.object.id, error });
      throw new AppError('upstream_error', paymentsMessages.yookassaVerifyUnavailable);
    }
  }

  function orderReference(n: Notification): { number?: string; id?: string } {
    const meta = n.object.metadata ?? {};
    for (const key of ['orderNumber', 'order_number']) {
      const v = meta[key];
      if (typeof v === 'string' && ORDER_NUMBER.test(v)) return { number: v.match(ORDER_NUMBER)![0] };
    }
    for (const key of ['orderId', 'order_id']) {
      const v = meta[key];
      if (typeof v === 'string' && UUID.test(v)) return { id: v };
    }
    const fromText = n.object.description?.match(ORDER_NUMBER)?.[0];
    return fromText ? { number: fromText } : {};
  }

  async function apply(agentId: string, n: Notification): Promise<string> {
    return db.transaction(async (tx) => {
      const recorded = await tx
        .insert(paymentEvents)
        .values({ agentId, paymentId: n.object.id, event: n.event.slice(0, 100), outcome: 'received', payload: n })
        .onConflictDoNothing()
        .returning({ paymentId: paymentEvents.paymentId });
      if (recorded.length === 0) return 'duplicate';
      const note = async (outcome: string, orderId: string | null = null) => {
        await tx
          .update(paymentEvents)
          .set({ outcome, orderId })
          .where(and(eq(paymentEvents.agentId, agentId), eq(paymentEvents.paymentId, n.object.id), eq(paymentEvents.event, n.event.slice(0, 100))));
        return outcome;
      };

      const ref = orderReference(n);
      if (!ref.number && !ref.id) return note('no_order_reference');
      const [order] = await tx
        .select()
        .from(orders)
        .where(and(eq(orders.agentId, agentId), ref.id ? eq(orders.id, ref.id) : eq(orders.number, ref.number!)))
        // NO KEY UPDATE: marking paid changes no key, and FOR UPDATE would also wait for every foreign-key
        // check on the order (a payment event referencing it) for nothing.
        .for('no key update');
      if (!order) return note('unknown_order');
      if (n.event !== 'payment.succeeded') return note('recorded', order.id);
      if (n.object.status !== 'succeeded' || n.object.paid === false) return note('not_succeeded', order.id);
      if (order.status === 'paid') return note('already_paid', order.id);
      const amount = decimalToMinor(n.object.amount?.value);
      if (amount !== order.totalMinor || (n.object.amount?.currency ?? '').toUpperCase() !== order.currency) {
        logger.warn('payment amount does not match the order; not marking it paid', { agentId, orderId: order.id, paymentId: n.object.id });
        return note('amount_mismatch', order.id);
      }

      await tx.update(orders).set({ status: 'paid', paymentId: n.object.id, paidAt: new Date(), updatedAt: new Date() }).where(eq(orders.id, order.id));
      // Sold is sold: the stock goes down with the payment that sold it (never below zero: a payment
      // that outran the stock is still taken, and the owner sees 0).
      for (const item of order.items) {
        await tx
          .update(products)
          .set({ stock: sql`greatest(${products.stock} - ${item.quantity}, 0)`, updatedAt: new Date() })
          .where(and(eq(products.agentId, agentId), eq(products.id, item.productId), isNotNull(products.stock)));
      }
      await notifier.enqueuePayment(tx, {
        agentId,
        orderNumber: order.number,
        amount: minorToDecimal(order.totalMinor),
        currency: order.currency,
      });
      if (order.dialogueId) await deps.events.emitAndWait(orderPaid, { tx, agentId, dialogueId: order.dialogueId, orderNumber: order.number });
      return note('paid', order.id);
    });
  }

  return {
    async handle(request: Request, agentId: string): Promise<Response> {
      const url = new URL(request.url);
      const bearer = request.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1] ?? null;
      const verdict = await settings.verifySecret(agentId, url.searchParams.get('token') ?? bearer);
      if (verdict === 'unknown') throw new AppError('not_found', commerceMessages.paymentUnknownWebhook);
      if (verdict === 'wrong') throw new AppError('forbidden', commerceMessages.paymentBadSecret);
      let notification: unknown;
      try {
        // Too deep is a 400 like any body that is no notification: YooKassa's are shallow, and it retries a
        // real one it could not deliver, which the re-read from its API would then settle.
        notification = parseJsonBody(await readBodyText(request, MAX_NOTIFICATION_BYTES));
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('invalid_request_error', errorMessages.malformedJson);
      }
      if (!isNotification(notification)) throw new AppError('invalid_request_error', commerceMessages.paymentBadNotification);
      // Ids and the whole body are stored: text PostgreSQL cannot hold is no YooKassa notification.
      const unstorable = findUnstorableText(notification);
      if (unstorable !== null) throw new AppError('invalid_request_error', errorMessages.unstorableText(unstorable));
      const checked = await verified(agentId, notification, request);
      if ('response' in checked) return checked.response;
      const outcome = await apply(agentId, checked.notification);
      logger.info('payment notification', { agentId, event: checked.notification.event, paymentId: checked.notification.object.id, outcome });
      if (outcome === 'paid') deps.outbox.wake();
      // Every verified notification is acknowledged: a retry could not change what it said.
      return ok();
    },
  };
}

export type PaymentWebhook = ReturnType<typeof createPaymentWebhook>;
