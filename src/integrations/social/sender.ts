// Messages to clients in the community leave through the outbox: queued in the transaction that decided
// to say them, sent by the worker with retries. The random_id is fixed when the message is queued, so a
// retry after a lost answer is one that VK itself refuses to deliver twice.
import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client';
import { dialogues } from '../../db/schema';
import { enqueueOutbox, GiveUp, RetryLater, type OutboxHandler } from '../../jobs/outbox';
import { generateRandomId, VkApiError, VkNetworkError, type VkClient } from './client';
import type { VkKeyboard } from './keyboards';
import type { SocialSettings } from './settings';

export const SOCIAL_MESSAGE_KIND = 'social.message';
export const SOCIAL_CHANNEL = 'social';
/** VK's own limit is larger, but clients render long messages poorly and libraries split at 4096. */
const MAX_TEXT = 4000;

export interface SocialMessagePayload {
  peerId: number;
  text: string;
  randomId: number;
  keyboard?: VkKeyboard;
}

function fit(text: string): string {
  return text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1)}…`;
}

/** Queues a message to a client with the caller's executor; it leaves when the transaction commits. */
export async function queueSocialMessage(
  executor: Executor,
  message: { agentId: string; peerId: number; text: string; keyboard?: VkKeyboard },
): Promise<void> {
  const payload: SocialMessagePayload = { peerId: message.peerId, text: fit(message.text), randomId: generateRandomId() };
  if (message.keyboard) payload.keyboard = message.keyboard;
  await enqueueOutbox(executor, [
    { kind: SOCIAL_MESSAGE_KIND, agentId: message.agentId, recipient: String(message.peerId), payload: { ...payload } },
  ]);
}

export function createSocialMessageHandler(deps: {
  db: Database;
  settings: SocialSettings;
  vkFor(accessToken: string): VkClient;
}): OutboxHandler {
  return {
    async deliver(row) {
      const payload = row.payload as unknown as SocialMessagePayload;
      if (!row.agentId) throw new GiveUp('social message without an agent');
      const settings = await deps.settings.load(row.agentId).catch(() => null);
      if (!settings) throw new GiveUp('the agent has no usable community settings');
      // The client may have forbidden messages after this one was queued.
      const [dialogue] = await deps.db
        .select({ allowed: dialogues.messagingAllowed })
        .from(dialogues)
        .where(and(eq(dialogues.agentId, row.agentId), eq(dialogues.channel, SOCIAL_CHANNEL), eq(dialogues.peerId, String(payload.peerId))))
        .limit(1);
      if (dialogue?.allowed === false) throw new GiveUp('the client denied messages from the community');
      try {
        const messageId = await deps.vkFor(settings.accessToken).messagesSend({
          peerId: payload.peerId,
          message: payload.text,
          randomId: payload.randomId,
          ...(payload.keyboard ? { keyboard: payload.keyboard } : {}),
        });
        return { result: { messageId } };
      } catch (error) {
        if (error instanceof VkNetworkError) throw new RetryLater(error.message);
        if (error instanceof VkApiError) {
          if (error.retryable) throw new RetryLater(error.message, { afterMs: 1000, pausesAgent: error.kind === 'too_many_requests' });
          throw new GiveUp(error.message);
        }
        throw error;
      }
    },
  };
}
