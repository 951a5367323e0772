// The client who ordered in a VK dialogue hears that the order is paid (commerce's `orderPaid`, inside the
// payment's transaction): the message joins the outbox in that transaction.
import { eq } from 'drizzle-orm';
import { assistantTexts } from '../../assistant';
import { dialogues } from '../../dialogues/tables';
import type { OrderPaid } from '../../commerce';
import { queueSocialMessage, SOCIAL_CHANNEL } from './sender';

export async function tellClientOrderPaid({ tx, agentId, dialogueId, orderNumber }: OrderPaid): Promise<void> {
  const [dialogue] = await tx
    .select({ peerId: dialogues.peerId, allowed: dialogues.messagingAllowed, channel: dialogues.channel })
    .from(dialogues)
    .where(eq(dialogues.id, dialogueId));
  if (dialogue && dialogue.channel === SOCIAL_CHANNEL && dialogue.allowed !== false) {
    await queueSocialMessage(tx, { agentId, peerId: Number(dialogue.peerId), text: assistantTexts.orderPaid(orderNumber) });
  }
}
