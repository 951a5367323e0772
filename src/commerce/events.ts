// What the shop tells other features, without knowing them.
import type { Executor } from '../db/client';
import { defineEvent } from '../platform/events';

/**
 * An order was paid, inside the payment's transaction (`tx`): a listener that tells the client (the VK
 * dialogue the order came from) writes its message in the same transaction, so neither is kept without the other.
 */
export interface OrderPaid {
  tx: Executor;
  agentId: string;
  dialogueId: string;
  orderNumber: string;
}

export const orderPaid = defineEvent<OrderPaid>('commerce.order-paid');

/** The owner moved an order on (shipped with a tracking number, delivered, cancelled with a reason), inside that transaction. */
export interface OrderStatusChanged {
  tx: Executor;
  agentId: string;
  dialogueId: string;
  orderNumber: string;
  status: 'shipped' | 'delivered' | 'cancelled';
  /** Shipped: the tracking number; cancelled: the reason; delivered: null. */
  detail: string | null;
}

export const orderStatusChanged = defineEvent<OrderStatusChanged>('commerce.order-status-changed');

/** An order left unpaid past the shop's reminder hours, claimed once, inside the claim's transaction. */
export interface OrderUnpaid {
  tx: Executor;
  agentId: string;
  dialogueId: string;
  orderNumber: string;
  totalMinor: number;
  currency: string;
  paymentLink: string;
}

export const orderUnpaid = defineEvent<OrderUnpaid>('commerce.order-unpaid');
