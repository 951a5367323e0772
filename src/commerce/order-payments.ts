// An order's payment on the shop's own YooKassa account, for shops that set one up: the buyer gets
// YooKassa's payment page instead of the template link. The order id is the Idempotence-Key, so a repeat
// of a call whose answer was lost returns the same payment, and metadata {orderNumber, orderId, agentId}
// lets the notification find the order. YooKassa's return_url is the template link of the order (the
// shop's own page for it): there is no separate setting for it.
//
// Creation never stops a check-out: when YooKassa refuses or cannot be reached the order keeps its
// template link and the failure is logged for the owner's attention.
import type { Logger } from '../logger';
import { commerceMessages } from './texts';
import type { YookassaClient, YookassaCredentials, YookassaReceipt } from '../payments/yookassa';
import type { OrderView } from './orders';

/** One minor unit (kopeck, cent) in nano-units. */
const NANO_PER_MINOR = 10_000_000n;

const METHOD_NAMES = { pickup: 'самовывоз', courier: 'курьер', post: 'почта' } as const;

/**
 * The 54-FZ receipt of an order (yookassa.md): one line per item at its unit price, the delivery as a
 * service line when it costs something, the client's phone from check-out as the customer. The lines add
 * up to the order's total, as YooKassa requires.
 */
export function receiptOf(order: OrderView, phone: string, vatCode: number): YookassaReceipt {
  const items: YookassaReceipt['items'] = order.items.map((item) => ({
    description: item.title,
    quantity: item.quantity,
    amountNano: BigInt(item.priceMinor) * NANO_PER_MINOR,
    vatCode,
    paymentSubject: 'commodity',
    paymentMode: 'full_payment',
  }));
  if (order.delivery && order.delivery.priceMinor > 0) {
    items.push({
      description: commerceMessages.deliveryReceiptLine(METHOD_NAMES[order.delivery.method]),
      quantity: 1,
      amountNano: BigInt(order.delivery.priceMinor) * NANO_PER_MINOR,
      vatCode,
      paymentSubject: 'service',
      paymentMode: 'full_payment',
    });
  }
  return { customer: { phone }, items };
}

export function createOrderPayments(deps: { clientFor: (credentials: YookassaCredentials) => YookassaClient; logger: Logger }) {
  return {
    /** The YooKassa payment of a fresh order, or null (logged) when it could not be created. */
    async create(
      agentId: string,
      order: OrderView,
      credentials: YookassaCredentials,
      receipts: { vatCode: number } | null = null,
    ): Promise<{ paymentId: string; paymentLink: string } | null> {
      try {
        const payment = await deps.clientFor(credentials).createPayment(
          {
            amountNano: BigInt(order.totalMinor) * NANO_PER_MINOR,
            currency: order.currency,
            description: commerceMessages.orderPaymentDescription(order.number),
            returnUrl: order.paymentLink,
            metadata: { orderNumber: order.number, orderId: order.id, agentId },
            ...(receipts && order.clientPhone ? { receipt: receiptOf(order, order.clientPhone, receipts.vatCode) } : {}),
          },
          order.id,
        );
        return { paymentId: payment.id, paymentLink: payment.confirmation.confirmation_url };
      } catch (error) {
        deps.logger.warn('yookassa payment of an order not created; the template link is used', { agentId, orderId: order.id, error });
        return null;
      }
    },
  };
}

export type OrderPayments = ReturnType<typeof createOrderPayments>;
