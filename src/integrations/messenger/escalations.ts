// Escalations: a client's dialogue handed from the assistant to a human operator, announced through the
// messenger, answered by replying to that announcement, and handed back with /release.
//
// The seam for the channels clients talk in (the social integration, issue 5): such a channel registers
// a DialogueRelay for its dialogues' `channel` name. The relay is called inside the transaction that
// handles the operator's Telegram update, so whatever it queues for the client (its own outbox rows)
// commits together with the record of the reply. With no relay registered for a dialogue's channel the
// reply is still recorded, and the operator is told it could not be delivered.
import { and, eq, isNull, or, sql } from 'drizzle-orm';
import { rowsOf, type Database, type Executor, type Transaction } from '../../db/client';
import { availabilityAt, type WorkingHours } from '../../agents';
import { agents } from '../../agents/tables';
import { dialogues } from '../../dialogues/tables';
import { escalationMessages, escalations, operatorReplies } from './tables';
import { MESSENGER_MESSAGE, type Notifier, type QueuedNotification } from './notify';
import type { OwnerMail } from './owner-mail';
import { messengerTexts } from './texts';

export interface DialogueRef {
  agentId: string;
  dialogueId: string;
  /** The dialogue's channel, e.g. "social". */
  channel: string;
  /** The client's id in that channel (e.g. the VK peer id). */
  peerId: string;
  escalationId: string;
}

export type RelayOutcome = { delivered: true } | { delivered: false; reason: string };

export interface DialogueRelay {
  /** Sends (or queues, in `tx`) the operator's text to the client. A Russian `reason` when it cannot. */
  relayOperatorReply(tx: Transaction, reply: DialogueRef & { text: string; operatorName: string | null }): Promise<RelayOutcome>;
  /**
   * The dialogue is the assistant's again (mode is already set back in `tx`); tell the client if fitting.
   * `why`: a person gave it back, or nobody answered the client within HANDOFF_TIMEOUT_MINUTES.
   */
  release(tx: Transaction, dialogue: DialogueRef, why?: 'released' | 'unanswered'): Promise<void>;
  /**
   * What `release` tells the client, for a dialogue whose client allows messages as `messagingAllowed` says;
   * null when nothing is sent. The dashboard shows it before the owner gives a dialogue back.
   */
  releaseNotice(messagingAllowed: boolean | null, why?: 'released' | 'unanswered'): string | null;
}

export interface EscalateInput {
  agentId: string;
  channel: string;
  peerId: string;
  clientPhone: string | null;
  reason: string;
}

export interface EscalateResult {
  dialogueId: string;
  escalationId: string;
  /** Null when the agent has no messenger settings, so nobody could be told there. */
  notification: QueuedNotification | null;
  /** Without a messenger: whether the owner was mailed instead (false without SMTP_URL, or at night: the morning mail lists it). */
  mailed: boolean;
  /** Made outside the agent's working hours: the start of the working day whose morning summary lists it. */
  quietUntil: Date | null;
}

/** An operator's message in a chat the bot posted an escalation to, replying to that post. */
export interface OperatorMessage {
  agentId: string;
  chatId: number;
  messageId: number;
  replyToMessageId: number;
  text: string;
  operatorName: string | null;
  /** Who replied, as a holder of the dialogue: "telegram:<user id>" (or the chat, for a channel post). */
  operatorKey: string;
}

/** Who takes a dialogue: `key` is unique per person ("user:<id>", "telegram:<id>"), `name` is shown. */
export interface Holder {
  key: string;
  name: string;
}

export type HoldOutcome = { held: true } | { held: false; holderName: string | null };

const RELEASE_COMMAND = /^\/release(@\w+)?(\s|$)/i;

export interface EscalationDeps {
  db: Database;
  notifier: Notifier;
  /** Tells the owner by mail of a hand-over when the agent has no Telegram bot. */
  ownerMail?: OwnerMail;
  /** The zone of working hours that name none (YCLIENTS_TIME_ZONE). */
  timeZone: string;
}

export function createEscalations({ db, notifier, ownerMail, timeZone }: EscalationDeps) {
  const relays = new Map<string, DialogueRelay>();

  /**
   * Takes the dialogue for `holder` unless someone else holds it: one conditional UPDATE, so of two
   * operators racing (dashboard and Telegram, or two Telegram operators) exactly one wins. The assistant
   * keeps quiet from then on (mode operator). Taking it again as its holder is a no-op that succeeds.
   */
  async function hold(tx: Executor, dialogueId: string, holder: Holder): Promise<HoldOutcome> {
    const taken = await tx
      .update(dialogues)
      .set({ mode: 'operator', heldBy: holder.key, heldByName: holder.name, heldAt: sql`coalesce(${dialogues.heldAt}, now())`, updatedAt: new Date() })
      .where(and(eq(dialogues.id, dialogueId), or(isNull(dialogues.heldBy), eq(dialogues.heldBy, holder.key))))
      .returning({ id: dialogues.id });
    if (taken.length > 0) return { held: true };
    const [row] = await tx.select({ heldByName: dialogues.heldByName }).from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
    return { held: false, holderName: row?.heldByName ?? null };
  }

  /** The dialogue goes back to the assistant: its open escalations closed, nobody holding it. */
  async function giveBack(tx: Transaction, dialogueId: string): Promise<void> {
    await tx
      .update(escalations)
      .set({ releasedAt: new Date() })
      .where(and(eq(escalations.dialogueId, dialogueId), isNull(escalations.releasedAt)));
    await tx.update(dialogues).set({ mode: 'assistant', heldBy: null, heldByName: null, heldAt: null, updatedAt: new Date() }).where(eq(dialogues.id, dialogueId));
  }

  /** Posts `text` as a reply to every Telegram announcement of the dialogue's open escalations. */
  async function tellOperators(tx: Executor, agentId: string, dialogueId: string, text: string): Promise<void> {
    const posts = await tx
      .select({ chatId: escalationMessages.chatId, messageId: escalationMessages.messageId })
      .from(escalationMessages)
      .innerJoin(escalations, eq(escalations.id, escalationMessages.escalationId))
      .where(and(eq(escalations.dialogueId, dialogueId), isNull(escalations.releasedAt)));
    for (const post of posts) {
      await notifier.enqueueChatMessage(tx, { agentId, chatId: post.chatId, text, replyToMessageId: post.messageId });
    }
  }

  /**
   * Edits the escalation's announcements in the operators' chats so they say who took the dialogue (the
   * announcement's own text, then this line); one whose text is not known any more gets the line as a reply.
   */
  async function markAnnouncements(tx: Executor, agentId: string, dialogueId: string, line: string): Promise<void> {
    const posts = rowsOf<{ chat_id: unknown; message_id: unknown; text: string | null }>(
      await tx.execute(sql`
        select m.chat_id, m.message_id,
          (select o.payload->>'text' from outbox o
           where o.agent_id = m.agent_id and o.kind = ${MESSENGER_MESSAGE} and o.recipient = m.chat_id::text
             and o.payload->>'escalationId' = e.id::text
           order by o.created_at limit 1) as text
        from escalation_messages m
        join escalations e on e.id = m.escalation_id
        where e.dialogue_id = ${dialogueId} and e.released_at is null`),
    );
    for (const post of posts) {
      const chatId = Number(post.chat_id);
      const messageId = Number(post.message_id);
      if (post.text) await notifier.enqueueChatEdit(tx, { agentId, chatId, messageId, text: `${post.text}\n\n${line}` });
      else await notifier.enqueueChatMessage(tx, { agentId, chatId, text: line, replyToMessageId: messageId });
    }
  }

  async function escalateIn(tx: Executor, input: EscalateInput): Promise<EscalateResult> {
    const now = new Date();
    const [dialogue] = await tx
      .insert(dialogues)
      .values({ agentId: input.agentId, channel: input.channel, peerId: input.peerId, clientPhone: input.clientPhone, mode: 'operator' })
      .onConflictDoUpdate({
        target: [dialogues.agentId, dialogues.channel, dialogues.peerId],
        set: {
          mode: 'operator',
          updatedAt: now,
          ...(input.clientPhone ? { clientPhone: input.clientPhone } : {}),
        },
      })
      .returning({ id: dialogues.id, clientPhone: dialogues.clientPhone });
    const clientPhone = input.clientPhone ?? dialogue!.clientPhone;
    const [agent] = await tx.select({ name: agents.name, workingHours: agents.workingHours }).from(agents).where(eq(agents.id, input.agentId)).limit(1);
    // Outside working hours nobody is woken: the notice goes silently and the morning summary lists the client.
    const at = availabilityAt((agent?.workingHours ?? null) as WorkingHours | null, now, timeZone);
    const quietUntil = at.kind === 'closed' ? at.opensAt : null;
    const [escalation] = await tx
      .insert(escalations)
      .values({ agentId: input.agentId, dialogueId: dialogue!.id, reason: input.reason, clientPhone, quietUntil })
      .returning({ id: escalations.id });
    const notification = await notifier.enqueueEscalation(tx, {
      agentId: input.agentId,
      escalationId: escalation!.id,
      clientPhone,
      reason: input.reason,
      silent: quietUntil !== null,
    });
    // No bot to tell anyone: the owner is mailed, so the hand-over is more than a badge nobody looks at — at
    // once in working hours, in the morning's one mail outside them.
    let mailed = false;
    if (!notification && ownerMail && !quietUntil) {
      const url = ownerMail.dialoguesUrl(input.agentId);
      mailed = await ownerMail.enqueue(tx, input.agentId, {
        subject: messengerTexts.escalationMail.subject(agent?.name ?? ''),
        lines: messengerTexts.escalationMail.lines({ agentName: agent?.name ?? '', clientPhone, reason: input.reason }, url),
        urls: [url],
      });
    }
    return { dialogueId: dialogue!.id, escalationId: escalation!.id, notification, mailed, quietUntil };
  }

  return {
    /** Called by a client channel's integration: one relay per dialogue channel name. */
    registerRelay(channel: string, relay: DialogueRelay) {
      relays.set(channel, relay);
    },

    /**
     * Hands a dialogue to an operator and queues the notice, in the caller's transaction when given
     * (the assistant decides to escalate while handling a client's message) or in one of its own.
     */
    async escalate(input: EscalateInput, tx?: Executor): Promise<EscalateResult> {
      return tx ? escalateIn(tx, input) : db.transaction((own) => escalateIn(own, input));
    },

    hold,

    /**
     * The owner takes the dialogue from the dashboard, in the caller's transaction: held as in `hold`,
     * and the Telegram operators told under the escalation's announcement that it is taken.
     */
    async takeOver(tx: Executor, agentId: string, dialogueId: string, holder: Holder): Promise<HoldOutcome> {
      const [before] = await tx.select({ heldBy: dialogues.heldBy }).from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
      const outcome = await hold(tx, dialogueId, holder);
      if (outcome.held && before?.heldBy !== holder.key) await markAnnouncements(tx, agentId, dialogueId, messengerTexts.takenInDashboard(holder.name));
      return outcome;
    },

    /** What the client of a dialogue in `channel` is told when the owner gives it back; null: nothing. */
    releaseNotice(channel: string, messagingAllowed: boolean | null): string | null {
      return relays.get(channel)?.releaseNotice(messagingAllowed) ?? null;
    },

    /** The owner hands the dialogue back from the dashboard; Telegram and the client are told as with /release. */
    async releaseFromDashboard(tx: Transaction, ref: { agentId: string; dialogueId: string; channel: string; peerId: string }): Promise<void> {
      await tellOperators(tx, ref.agentId, ref.dialogueId, messengerTexts.releasedInDashboard);
      const [open] = await tx
        .select({ id: escalations.id })
        .from(escalations)
        .where(eq(escalations.dialogueId, ref.dialogueId))
        .orderBy(sql`${escalations.createdAt} desc`)
        .limit(1);
      await giveBack(tx, ref.dialogueId);
      await relays.get(ref.channel)?.release(tx, { ...ref, escalationId: open?.id ?? '' });
    },

    /**
     * Nobody answered the client in time (assistant/handoff.ts decides): the dialogue goes back to the
     * assistant in the caller's transaction, the Telegram operators are told under the announcement (a reply
     * there reaches nobody any more) and the client is told by its channel.
     */
    async returnUnanswered(tx: Transaction, ref: { agentId: string; dialogueId: string; channel: string; peerId: string }, minutes: number): Promise<void> {
      await tellOperators(tx, ref.agentId, ref.dialogueId, messengerTexts.handoffTimedOut(minutes));
      const [open] = await tx
        .select({ id: escalations.id })
        .from(escalations)
        .where(eq(escalations.dialogueId, ref.dialogueId))
        .orderBy(sql`${escalations.createdAt} desc`)
        .limit(1);
      await giveBack(tx, ref.dialogueId);
      await relays.get(ref.channel)?.release(tx, { ...ref, escalationId: open?.id ?? '' }, 'unanswered');
    },

    /** Whether an operator, not the assistant, answers this client now. */
    async isWithOperator(executor: Executor, agentId: string, channel: string, peerId: string): Promise<boolean> {
      const [row] = await executor
        .select({ mode: dialogues.mode })
        .from(dialogues)
        .where(and(eq(dialogues.agentId, agentId), eq(dialogues.channel, channel), eq(dialogues.peerId, peerId)))
        .limit(1);
      return row?.mode === 'operator';
    },

    /**
     * Handles an operator's reply to an escalation post, in the update's transaction. Returns null when
     * the replied-to message announced no escalation (then the message is not for us), otherwise what
     * happened: the reply relayed, recorded but undeliverable, or the dialogue released.
     */
    async handleOperatorMessage(tx: Transaction, message: OperatorMessage): Promise<string | null> {
      const [found] = await tx
        .select({
          escalationId: escalations.id,
          releasedAt: escalations.releasedAt,
          dialogueId: dialogues.id,
          channel: dialogues.channel,
          peerId: dialogues.peerId,
        })
        .from(escalationMessages)
        .innerJoin(escalations, eq(escalations.id, escalationMessages.escalationId))
        .innerJoin(dialogues, eq(dialogues.id, escalations.dialogueId))
        .where(
          and(
            eq(escalationMessages.agentId, message.agentId),
            eq(escalationMessages.chatId, message.chatId),
            eq(escalationMessages.messageId, message.replyToMessageId),
          ),
        )
        .limit(1);
      if (!found) return null;

      const ref: DialogueRef = {
        agentId: message.agentId,
        dialogueId: found.dialogueId,
        channel: found.channel,
        peerId: found.peerId,
        escalationId: found.escalationId,
      };
      const record = (outcome: string) =>
        tx.insert(operatorReplies).values({
          agentId: message.agentId,
          escalationId: found.escalationId,
          chatId: message.chatId,
          messageId: message.messageId,
          operatorName: message.operatorName,
          text: message.text,
          outcome,
        });
      const answer = (text: string) =>
        notifier.enqueueChatMessage(tx, {
          agentId: message.agentId,
          chatId: message.chatId,
          text,
          replyToMessageId: message.messageId,
        });

      if (RELEASE_COMMAND.test(message.text.trim())) {
        await record('release');
        if (found.releasedAt) {
          await answer(messengerTexts.releasedBefore);
          return 'release_repeated';
        }
        const released = await tx
          .update(escalations)
          .set({ releasedAt: new Date() })
          .where(and(eq(escalations.id, found.escalationId), isNull(escalations.releasedAt)))
          .returning({ id: escalations.id });
        if (released.length === 0) {
          await answer(messengerTexts.releasedBefore);
          return 'release_repeated';
        }
        // Other escalations of the same dialogue still open keep it with the operator.
        const stillOpen = await tx
          .select({ id: escalations.id })
          .from(escalations)
          .where(and(eq(escalations.dialogueId, found.dialogueId), isNull(escalations.releasedAt)))
          .limit(1);
        if (stillOpen.length === 0) {
          await tx
            .update(dialogues)
            .set({ mode: 'assistant', heldBy: null, heldByName: null, heldAt: null, updatedAt: new Date() })
            .where(eq(dialogues.id, found.dialogueId));
          await relays.get(found.channel)?.release(tx, ref);
        }
        await answer(messengerTexts.released);
        return 'release';
      }

      if (found.releasedAt) {
        await record('dialogue_released');
        await answer(messengerTexts.alreadyReleased);
        return 'reply_after_release';
      }
      const taken = await hold(tx, found.dialogueId, { key: message.operatorKey, name: message.operatorName ?? messengerTexts.telegramOperator });
      if (!taken.held) {
        await record('held_by_other');
        await answer(messengerTexts.heldByOther(taken.holderName));
        return 'reply_held_by_other';
      }
      const relay = relays.get(found.channel);
      const outcome: RelayOutcome = relay
        ? await relay.relayOperatorReply(tx, { ...ref, text: message.text, operatorName: message.operatorName })
        : { delivered: false, reason: messengerTexts.noRelay };
      if (outcome.delivered) {
        await record('relayed');
        await answer(messengerTexts.replyRelayed);
        return 'reply_relayed';
      }
      await record('undeliverable');
      await answer(messengerTexts.replyUndeliverable(outcome.reason));
      return 'reply_undeliverable';
    },
  };
}

export type Escalations = ReturnType<typeof createEscalations>;
