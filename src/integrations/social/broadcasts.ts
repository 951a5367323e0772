// Broadcasts: the owner's message to the agent's VK clients who allow messages — message_allow seen and no
// message_deny since (dialogues.messaging_allowed is true: consent events are handled per client in order)
// and no «Отписаться» pressed (dialogues.broadcasts_denied_at). Nobody else ever gets one.
//
// Sending one queues, in one transaction, the broadcast, a recipient row per client (its primary key makes
// it once per client) and an outbox row per client: the outbox delivers them one at a time in the
// broadcast's own lane (the assistant's replies keep theirs), at a pace under VK's 20 calls a second, and
// picks them up again after a restart. Each message fixes its random_id when queued, so a retry VK already
// took is not delivered twice. Consent is read again right before each send: a client who denied messages
// or unsubscribed meanwhile is skipped. The counts on the broadcast's page are the outbox's outcomes.
import { and, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { rowsOf, type Database } from '../../db/client';
import { dialogueMessages, dialogues } from '../../dialogues/tables';
import { AppError } from '../../http/errors';
import { GiveUp, type OutboxHandler, type OutboxWorker } from '../../jobs/outbox';
import { outbox } from '../../jobs/tables';
import type { Logger } from '../../logger';
import type { broadcastView } from './broadcast-input';
import type { VkClient } from './client';
import { type ButtonPayload, callbackButton, keyboard, type VkKeyboard } from './keyboards';
import { queueSocialMessage, SOCIAL_CHANNEL, sendForOutbox } from './sender';
import type { SocialSettings } from './settings';
import { broadcastRecipients, broadcasts } from './tables';
import { broadcastTexts as t, socialMessages } from './texts';

export const BROADCAST_KIND = 'social.broadcast';
export const UNSUBSCRIBE_ACTION = 'unsubscribe';
/** VK's VK_CHAT_PEER_BASE (webhook.ts): group chats get no broadcast. */
const CHAT_PEER_BASE = 2_000_000_000;
/**
 * At most one broadcast message per this many ms per community (about 8 a second): VK allows a community
 * token 20 calls a second, and the assistant's replies to clients answering the broadcast need the rest.
 */
const MIN_SEND_INTERVAL_MS = 120;
const LIST_LIMIT = 50;

export type BroadcastView = z.output<typeof broadcastView>;

interface BroadcastPayload {
  broadcastId: string;
  peerId: number;
}

/** The keyboard under every broadcast: one callback button that records the client's «no more». */
export function unsubscribeKeyboard(): VkKeyboard {
  return keyboard([[callbackButton(t.unsubscribeLabel, { action: UNSUBSCRIBE_ACTION }, 'secondary')]], { inline: true });
}

const isUnsubscribe = (payload: ButtonPayload | null | undefined) => payload?.action === UNSUBSCRIBE_ACTION;

/** «Отписаться» typed, compared as the assistant compares typed labels (case, ё, punctuation ignored). */
const typedUnsubscribe = (text: string) =>
  text
    .toLowerCase()
    .replace(/ё/g, 'е')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim() === t.unsubscribeLabel.toLowerCase();

export interface BroadcastsDeps {
  db: Database;
  outbox: Pick<OutboxWorker, 'wake'>;
  settings: SocialSettings;
  vkFor(accessToken: string): VkClient;
  logger: Logger;
}

export function createBroadcasts(deps: BroadcastsDeps) {
  const { db } = deps;
  /** community (agent) → when this instance last sent one of its broadcast messages. */
  const lastSentAt = new Map<string, number>();

  /** The agent's clients a broadcast goes to now. */
  const audience = (agentId: string) =>
    and(
      eq(dialogues.agentId, agentId),
      eq(dialogues.channel, SOCIAL_CHANNEL),
      eq(dialogues.messagingAllowed, true),
      isNull(dialogues.broadcastsDeniedAt),
      sql`${dialogues.peerId} ~ '^[1-9][0-9]{0,9}$' and ${dialogues.peerId}::bigint < ${CHAT_PEER_BASE}`,
    );

  async function audienceSize(agentId: string): Promise<number> {
    const [row] = await db.select({ n: sql<string>`count(*)::text` }).from(dialogues).where(audience(agentId));
    return Number(row?.n ?? 0);
  }

  async function requireCommunity(agentId: string) {
    const community = await deps.settings.load(agentId).catch(() => null);
    if (!community) throw new AppError('invalid_request_error', socialMessages.socialNotConfigured);
  }

  /** Each broadcast with its outcomes counted from its recipients' outbox rows. */
  async function views(agentId: string, ids?: string[]): Promise<BroadcastView[]> {
    const rows = await db
      .select({
        id: broadcasts.id,
        text: broadcasts.text,
        createdAt: broadcasts.createdAt,
        recipients: broadcasts.recipients,
        delivered: sql<string>`count(${broadcastRecipients.peerId}) filter (where ${outbox.status} = 'sent')::text`,
        skipped: sql<string>`count(${broadcastRecipients.peerId}) filter (where ${broadcastRecipients.skipped} is not null)::text`,
        failed: sql<string>`count(${broadcastRecipients.peerId}) filter (where ${broadcastRecipients.skipped} is null
          and (${outbox.status} = 'failed' or ${outbox.id} is null))::text`,
        pending: sql<string>`count(${broadcastRecipients.peerId}) filter (where ${outbox.status} = 'pending')::text`,
      })
      .from(broadcasts)
      .leftJoin(broadcastRecipients, eq(broadcastRecipients.broadcastId, broadcasts.id))
      .leftJoin(outbox, eq(outbox.id, broadcastRecipients.outboxId))
      .where(and(eq(broadcasts.agentId, agentId), ids ? inArray(broadcasts.id, ids) : undefined))
      .groupBy(broadcasts.id)
      .orderBy(desc(broadcasts.createdAt), desc(broadcasts.id))
      .limit(LIST_LIMIT);
    return rows.map((r) => ({
      id: r.id,
      text: r.text,
      createdAt: r.createdAt.toISOString(),
      recipients: r.recipients,
      delivered: Number(r.delivered),
      failed: Number(r.failed),
      skipped: Number(r.skipped),
      pending: Number(r.pending),
    }));
  }

  async function one(agentId: string, broadcastId: string): Promise<BroadcastView> {
    if (!/^[0-9a-f-]{36}$/i.test(broadcastId)) throw new AppError('not_found', t.notFound);
    const [view] = await views(agentId, [broadcastId]);
    if (!view) throw new AppError('not_found', t.notFound);
    return view;
  }

  /** Records the client's «no more broadcasts» and confirms it; the same press again is only confirmed. */
  async function unsubscribe(agentId: string, peerId: number): Promise<string> {
    const outcome = await db.transaction(async (tx) => {
      const [dialogue] = await tx
        .insert(dialogues)
        .values({ agentId, channel: SOCIAL_CHANNEL, peerId: String(peerId), lastMessageAt: new Date() })
        .onConflictDoUpdate({ target: [dialogues.agentId, dialogues.channel, dialogues.peerId], set: { lastMessageAt: new Date() } })
        .returning({ id: dialogues.id, deniedAt: dialogues.broadcastsDeniedAt, allowed: dialogues.messagingAllowed });
      const first = dialogue!.deniedAt === null;
      if (first) await tx.update(dialogues).set({ broadcastsDeniedAt: new Date(), updatedAt: new Date() }).where(eq(dialogues.id, dialogue!.id));
      await tx.insert(dialogueMessages).values({ dialogueId: dialogue!.id, role: 'user', content: t.unsubscribeLabel, kind: 'tap' });
      if (dialogue!.allowed !== false) {
        const told = first ? t.unsubscribed : t.alreadyUnsubscribed;
        await tx.insert(dialogueMessages).values({ dialogueId: dialogue!.id, role: 'assistant', content: told });
        await queueSocialMessage(tx, { agentId, peerId, text: told });
      }
      return first ? 'broadcasts_unsubscribed' : 'broadcasts_already_unsubscribed';
    });
    deps.outbox.wake();
    return outcome;
  }

  const handler: OutboxHandler = {
    async deliver(row) {
      const payload = row.payload as unknown as BroadcastPayload & { randomId: number };
      if (!row.agentId) throw new GiveUp('broadcast without an agent');
      const community = await deps.settings.load(row.agentId).catch(() => null);
      if (!community) throw new GiveUp('the agent has no usable community settings');
      // Paced first, so the consent read below is as fresh as it can be when VK is called.
      const wait = (lastSentAt.get(row.agentId) ?? 0) + MIN_SEND_INTERVAL_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastSentAt.set(row.agentId, Date.now());
      // The client may have denied messages or unsubscribed after this one was queued.
      const [client] = await db
        .select({ allowed: dialogues.messagingAllowed, deniedAt: dialogues.broadcastsDeniedAt })
        .from(dialogues)
        .where(and(eq(dialogues.agentId, row.agentId), eq(dialogues.channel, SOCIAL_CHANNEL), eq(dialogues.peerId, String(payload.peerId))))
        .limit(1);
      const skipped = client?.allowed !== true ? t.skippedDenied : client.deniedAt ? t.skippedUnsubscribed : null;
      if (skipped) {
        await db
          .update(broadcastRecipients)
          .set({ skipped })
          .where(and(eq(broadcastRecipients.broadcastId, payload.broadcastId), eq(broadcastRecipients.peerId, String(payload.peerId))));
        throw new GiveUp(`broadcast skipped: ${skipped}`);
      }
      const [broadcast] = await db.select({ text: broadcasts.text }).from(broadcasts).where(eq(broadcasts.id, payload.broadcastId)).limit(1);
      if (!broadcast) throw new GiveUp('the broadcast is gone');
      const messageId = await sendForOutbox(deps.vkFor(community.accessToken), {
        peerId: payload.peerId,
        message: broadcast.text,
        randomId: payload.randomId,
        keyboard: unsubscribeKeyboard(),
      });
      return { result: { messageId } };
    },
    // The transcript shows the broadcast the client got; its «Отписаться», typed, acts as the button.
    async onSent(tx, row) {
      const payload = row.payload as unknown as BroadcastPayload;
      if (!row.agentId) return;
      const [broadcast] = await tx.select({ text: broadcasts.text }).from(broadcasts).where(eq(broadcasts.id, payload.broadcastId)).limit(1);
      const [dialogue] = await tx
        .update(dialogues)
        .set({ lastKeyboard: unsubscribeKeyboard() })
        .where(and(eq(dialogues.agentId, row.agentId), eq(dialogues.channel, SOCIAL_CHANNEL), eq(dialogues.peerId, String(payload.peerId))))
        .returning({ id: dialogues.id });
      if (dialogue && broadcast) {
        await tx.insert(dialogueMessages).values({
          dialogueId: dialogue.id,
          role: 'operator',
          content: broadcast.text,
          operatorName: t.author,
          buttons: [[{ label: t.unsubscribeLabel, payload: JSON.stringify({ action: UNSUBSCRIBE_ACTION }) }]],
        });
      }
    },
  };

  return {
    handler,

    async list(agentId: string) {
      return { audience: await audienceSize(agentId), broadcasts: await views(agentId) };
    },

    get: one,

    /** The text exactly as each client gets it, its button, and how many clients would get it now. */
    async preview(agentId: string, text: string) {
      await requireCommunity(agentId);
      return { text, button: t.unsubscribeLabel, recipients: await audienceSize(agentId) };
    },

    /** Queues the broadcast for every client in the audience now; the same requestId again returns the first. */
    async send(agentId: string, input: { text: string; requestId: string }): Promise<BroadcastView> {
      await requireCommunity(agentId);
      const id = await db.transaction(async (tx) => {
        const [created] = await tx
          .insert(broadcasts)
          .values({ agentId, requestId: input.requestId, text: input.text, recipients: 0 })
          .onConflictDoNothing()
          .returning({ id: broadcasts.id });
        if (!created) {
          const [earlier] = await tx
            .select({ id: broadcasts.id })
            .from(broadcasts)
            .where(and(eq(broadcasts.agentId, agentId), eq(broadcasts.requestId, input.requestId)))
            .limit(1);
          return earlier!.id;
        }
        await tx.execute(sql`
          insert into broadcast_recipients (broadcast_id, peer_id)
          select ${created.id}, ${dialogues.peerId} from ${dialogues} where ${audience(agentId)}`);
        // One outbox row per recipient, each with its own random_id (53 bits, as generateRandomId draws).
        const queued = rowsOf<{ n: string }>(
          await tx.execute(sql`
            with queued as (
              insert into outbox (kind, agent_id, recipient, lane, payload)
              select ${BROADCAST_KIND}, ${agentId}, r.peer_id, ${`${BROADCAST_KIND}:agent:${agentId}`},
                     jsonb_build_object('broadcastId', r.broadcast_id, 'peerId', r.peer_id::bigint,
                                        'randomId', (floor(random() * 9007199254740990) + 1)::bigint)
                from broadcast_recipients r where r.broadcast_id = ${created.id}
               order by r.peer_id
              returning id, recipient)
            update broadcast_recipients r set outbox_id = queued.id
              from queued where r.broadcast_id = ${created.id} and r.peer_id = queued.recipient
            returning r.peer_id as n`),
        );
        await tx.update(broadcasts).set({ recipients: queued.length }).where(eq(broadcasts.id, created.id));
        return created.id;
      });
      deps.outbox.wake();
      return one(agentId, id);
    },

    /** A press (or a text button) of «Отписаться»: handled here; null for any other press. */
    async onPress(agentId: string, peerId: number, payload: ButtonPayload | null): Promise<string | null> {
      return isUnsubscribe(payload) ? unsubscribe(agentId, peerId) : null;
    },

    /** «Отписаться» typed while a broadcast's keyboard is the client's last one acts as the button. */
    async onTyped(agentId: string, peerId: number, text: string): Promise<string | null> {
      if (!typedUnsubscribe(text)) return null;
      const [dialogue] = await db
        .select({ lastKeyboard: dialogues.lastKeyboard })
        .from(dialogues)
        .where(and(eq(dialogues.agentId, agentId), eq(dialogues.channel, SOCIAL_CHANNEL), eq(dialogues.peerId, String(peerId))))
        .limit(1);
      const buttons = (dialogue?.lastKeyboard as VkKeyboard | null)?.buttons?.flat() ?? [];
      const offered = buttons.some((b) => b.action.type === 'callback' && b.action.payload === JSON.stringify({ action: UNSUBSCRIBE_ACTION }));
      return offered ? unsubscribe(agentId, peerId) : null;
    },
  };
}

export type Broadcasts = ReturnType<typeof createBroadcasts>;
