// Messages to clients in the community leave through the outbox: queued in the transaction that decided
// to say them, sent by the worker with retries. The random_id is fixed when the message is queued, so a
// retry after a lost answer is one that VK itself refuses to deliver twice.
//
// A text longer than one VK message goes as several (parts of one series, one outbox row each, each with
// its own random_id, or VK would drop the later ones as repeats), cut where a reader would pause; the
// keyboard rides on the last part only. A part is not sent while an earlier part of its series is still
// pending, so a retried part is never overtaken by the next one.
import { randomUUID } from 'node:crypto';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client';
import { dialogues } from '../../dialogues/tables';
import { outbox } from '../../jobs/tables';
import { enqueueOutbox, GiveUp, RetryLater, type OutboxHandler } from '../../jobs/outbox';
import { generateRandomId, type MessagesSendParams, VkApiError, VkNetworkError, type VkClient } from './client';
import type { VkKeyboard } from './keyboards';
import type { SocialSettings } from './settings';

export const SOCIAL_MESSAGE_KIND = 'social.message';
export const SOCIAL_CHANNEL = 'social';
/**
 * VK takes up to 9000 characters (docs/integrations/vk.md §6), but clients render long messages poorly and
 * the libraries cut at 4096; so does the project rule.
 */
export const MAX_PART_CHARS = 4096;
/** How soon a part waiting for an earlier one looks again (not counted as an attempt). */
const WAIT_FOR_EARLIER_PART_MS = 500;

export interface SocialMessagePayload {
  peerId: number;
  text: string;
  randomId: number;
  keyboard?: VkKeyboard;
  /** One part of a long text: `index` of `count` (0-based) in `series`. */
  part?: { series: string; index: number; count: number };
}

/**
 * Where to end a part within `window` (a text longer than a part): the last paragraph end, else the last
 * sentence end, else the last space — each only when it keeps the part at least half full, so a break
 * near the start does not make a stub of a message. A single word longer than a part is cut where it must
 * be (never between the halves of a surrogate pair).
 */
function cutAt(window: string, limit: number): number {
  const floor = Math.floor(limit / 2);
  const last = (pattern: RegExp): number => {
    let found = -1;
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (end <= limit) found = end;
    }
    return found;
  };
  for (const pattern of [/\n[ \t]*\n/g, /[.!?…]+["»”')\]]*(?=\s)/g, /\s/g]) {
    const end = last(pattern);
    if (end >= floor) return end;
  }
  return /[\uD800-\uDBFF]/.test(window[limit - 1] ?? '') ? limit - 1 : limit;
}

/** A text cut into parts of at most `limit` characters, each trimmed; the cut whitespace is dropped. */
export function splitMessage(text: string, limit = MAX_PART_CHARS): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const end = cutAt(rest.slice(0, limit + 1), limit);
    const head = rest.slice(0, end).trim();
    if (head) parts.push(head);
    rest = rest.slice(end).trimStart();
  }
  if (rest || parts.length === 0) parts.push(rest);
  return parts;
}

/** Queues a message to a client with the caller's executor; it leaves when the transaction commits. */
export async function queueSocialMessage(
  executor: Executor,
  message: { agentId: string; peerId: number; text: string; keyboard?: VkKeyboard; keepKeyboard?: boolean },
): Promise<void> {
  const texts = splitMessage(message.text);
  const series = texts.length > 1 ? randomUUID() : null;
  // One insert: the rows' ids follow the parts' order, which is the order the worker claims them in.
  await enqueueOutbox(
    executor,
    texts.map((text, index) => {
      const payload: SocialMessagePayload = { peerId: message.peerId, text, randomId: generateRandomId() };
      if (message.keyboard && index === texts.length - 1) payload.keyboard = message.keyboard;
      if (series) payload.part = { series, index, count: texts.length };
      return { kind: SOCIAL_MESSAGE_KIND, agentId: message.agentId, recipient: String(message.peerId), payload: { ...payload } };
    }),
  );
  // Whoever speaks (the assistant, an operator), this message is now the client's last: the labels of its
  // keyboard, and only those, act as buttons when typed (assistant/typed-buttons.ts). A late answer to an
  // earlier question (`keepKeyboard`) leaves the keyboard sent since in force.
  if (message.keepKeyboard) return;
  await executor
    .update(dialogues)
    .set({ lastKeyboard: message.keyboard ?? null })
    .where(and(eq(dialogues.agentId, message.agentId), eq(dialogues.channel, SOCIAL_CHANNEL), eq(dialogues.peerId, String(message.peerId))));
}

export function createSocialMessageHandler(deps: { db: Database; settings: SocialSettings; vkFor(accessToken: string): VkClient }): OutboxHandler {
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
      if (payload.part && payload.part.index > 0) {
        const [earlier] = await deps.db
          .select({ id: outbox.id })
          .from(outbox)
          .where(
            and(
              eq(outbox.agentId, row.agentId),
              eq(outbox.recipient, row.recipient),
              eq(outbox.status, 'pending'),
              lt(outbox.id, row.id),
              sql`${outbox.payload}->'part'->>'series' = ${payload.part.series}`,
            ),
          )
          .limit(1);
        if (earlier) throw new RetryLater('an earlier part of this text is not sent yet', { afterMs: WAIT_FOR_EARLIER_PART_MS, countsAsAttempt: false });
      }
      const messageId = await sendForOutbox(deps.vkFor(settings.accessToken), {
        peerId: payload.peerId,
        message: payload.text,
        randomId: payload.randomId,
        ...(payload.keyboard ? { keyboard: payload.keyboard } : {}),
      });
      return { result: { messageId } };
    },
  };
}

/**
 * messages.send for an outbox handler: VK's answer as the outbox reads it — a network failure or a
 * retryable error (rate limits pause the agent's other rows too) is tried again, any other refusal given up.
 */
export async function sendForOutbox(vk: VkClient, params: MessagesSendParams): Promise<number> {
  try {
    return await vk.messagesSend(params);
  } catch (error) {
    if (error instanceof VkNetworkError) throw new RetryLater(error.message);
    if (error instanceof VkApiError) {
      if (error.retryable) throw new RetryLater(error.message, { afterMs: 1000, pausesAgent: error.kind === 'too_many_requests' });
      throw new GiveUp(error.message);
    }
    throw error;
  }
}
