// The client who ordered in a VK dialogue hears when the owner ships (with the tracking number), delivers or
// cancels (with the reason) the order (commerce's `orderStatusChanged`, inside that change's transaction):
// the message joins the outbox in that transaction. A client who denied messages gets none.
import { eq } from 'drizzle-orm';
import { assistantTexts } from '../../assistant';
import { dialogues } from '../../dialogues/tables';
import type { OrderStatusChanged } from '../../commerce';
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
