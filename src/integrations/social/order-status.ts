// The client who ordered in a VK dialogue hears when the owner ships (with the tracking number), delivers or
// cancels (with the reason) the order (commerce's `orderStatusChanged`, inside that change's transaction):
// the message joins the outbox in that transaction. A client who denied messages gets none. The unpaid
// order's reminder goes the same way.
import { eq } from 'drizzle-orm';
import { assistantTexts } from '../../assistant';
import { dialogues } from '../../dialogues/tables';
import { minorToDecimal, type OrderStatusChanged, type OrderUnpaid } from '../../commerce';
import { formatAmount } from '../messenger';
import { queueSocialMessage, SOCIAL_CHANNEL } from './sender';

export function orderStatusText({ orderNumber, status, detail }: Pick<OrderStatusChanged, 'orderNumber' | 'status' | 'detail'>): string {
  if (status === 'shipped') return assistantTexts.orderShipped(orderNumber, detail ?? '');
  if (status === 'delivered') return assistantTexts.orderDelivered(orderNumber);
  return assistantTexts.orderCancelled(orderNumber, detail ?? '');
}

export async function tellClientOrderStatus(change: OrderStatusChanged): Promise<void> {
  const [dialogue] = await change.tx
    .select({ peerId: dialogues.peerId, allowed: dialogues.messagingAllowed, channel: dialogues.channel })
    .from(dialogues)
    .where(eq(dialogues.id, change.dialogueId));
  if (dialogue && dialogue.channel === SOCIAL_CHANNEL && dialogue.allowed !== false) {
    await queueSocialMessage(change.tx, { agentId: change.agentId, peerId: Number(dialogue.peerId), text: orderStatusText(change) });
  }
}

/** The unpaid order's reminder (commerce's `orderUnpaid`, claimed once), with its payment link. */
export async function remindClientOrderUnpaid(order: OrderUnpaid): Promise<void> {
  const [dialogue] = await order.tx
    .select({ peerId: dialogues.peerId, allowed: dialogues.messagingAllowed, channel: dialogues.channel })
    .from(dialogues)
    .where(eq(dialogues.id, order.dialogueId));
  if (dialogue && dialogue.channel === SOCIAL_CHANNEL && dialogue.allowed !== false) {
    const total = formatAmount(minorToDecimal(order.totalMinor), order.currency);
    await queueSocialMessage(order.tx, {
      agentId: order.agentId,
      peerId: Number(dialogue.peerId),
      text: assistantTexts.orderUnpaidReminder(order.orderNumber, total, order.paymentLink),
    });
  }
}
