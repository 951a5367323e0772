// The messenger notifier: escalation and payment notifications for an agent's operator, written to the
// outbox in the caller's transaction (one row per recipient: the user chat, and the channel when set)
// and delivered by the outbox worker through the agent's bot. A group Telegram has upgraded to a supergroup
// (400 with parameters.migrate_to_chat_id) is followed: the message is resent there and the settings updated.
import { and, desc, eq, inArray } from 'drizzle-orm';
import { SecretBoxError } from '../../crypto/secret-box';
import type { Executor } from '../../db/client';
import { agents, notifications } from '../../agents/tables';
import { outbox } from '../../jobs/tables';
import { escalationMessages } from './tables';
import { GiveUp, RetryLater, type OutboxHandler, type OutboxRow, type OutboxWorker } from '../../jobs/outbox';
import { TelegramApiError, TelegramNetworkError, type TelegramClient } from './client';
import type { MessengerSettings } from './settings';
import { messengerTexts } from './texts';
import { formatMoneyText, NANO_PER_UNIT } from '../../money';

/** Outbox kind of every message the agent's bot sends. */
export const MESSENGER_MESSAGE = 'messenger.message';

export type NotificationKind = 'escalation' | 'payment' | 'balance' | 'morning';
export type RecipientTarget = 'user' | 'channel' | 'chat';

interface MessengerPayload {
  text: string;
  target: RecipientTarget;
  /** Set on escalation notifications: a reply to the sent message reaches this escalation. */
  escalationId?: string;
  replyToMessageId?: number;
  /** Set on an edit: this message of the chat gets `text` instead of a new message being sent. */
  editMessageId?: number;
  /** Sent without a sound (Telegram's disable_notification): outside working hours the owner is not woken. */
  silent?: boolean;
}

export const ORDER_NUMBER = /^ORD-\d{8}-\d+$/;

/** The calendar day (YYYY-MM-DD) of an instant in an IANA time zone. */
export function dayIn(date: Date, timeZone: string): string {
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(date);
}

/** ORD-<YYYYMMDD>-<sequence>, the date in `timeZone` (UTC unless given), the sequence at least four digits. */
export function formatOrderNumber(date: Date, sequence: number, timeZone = 'UTC'): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new Error('order sequence must be a positive integer');
  const day = dayIn(date, timeZone).replace(/-/g, '');
  return `ORD-${day}-${String(sequence).padStart(4, '0')}`;
}

/** "1 500,00 ₽": the amount as a decimal string or number, with an ISO 4217 currency code. */
export function formatAmount(amount: string | number, currency: string): string {
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`amount must be a decimal number, got ${JSON.stringify(amount)}`);
  // Digit by digit, so no binary rounding on the way; shop sums are whole hundredths.
  const [, sign, whole, fraction = ''] = match;
  const nano = BigInt(whole!) * NANO_PER_UNIT + BigInt(fraction.slice(0, 9).padEnd(9, '0'));
  return formatMoneyText(sign ? -nano : nano, currency.toUpperCase(), 'amount');
}

export interface EscalationNotice {
  agentId: string;
  escalationId: string;
  clientPhone: string | null;
  reason: string;
  /** Outside working hours: the notice goes without a sound, and the morning summary lists the client. */
  silent?: boolean;
}

export interface PaymentNotice {
  agentId: string;
  /** ORD-<YYYYMMDD>-<sequence> (see formatOrderNumber). */
  orderNumber: string;
  /** Decimal, in currency units. */
  amount: string | number;
  /** ISO 4217, e.g. RUB. */
  currency: string;
}

export interface QueuedNotification {
  notificationId: string;
  recipients: { target: RecipientTarget; recipient: string }[];
}

export interface ListedDelivery {
  target: string;
  recipient: string;
  status: string;
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
}

export interface ListedNotification {
  id: string;
  kind: string;
  text: string;
  reference: string | null;
  createdAt: string;
  /** pending | sent | failed | partially_failed */
  status: string;
  deliveries: ListedDelivery[];
}

export interface NotifierDeps {
  settings: MessengerSettings;
  outbox: OutboxWorker;
  telegramFor(botToken: string): TelegramClient;
}

function chatIdParam(recipient: string): number | string {
  return /^-?\d+$/.test(recipient) ? Number(recipient) : recipient;
}

function overallStatus(statuses: string[]): string {
  if (statuses.some((s) => s === 'pending')) return 'pending';
  if (statuses.every((s) => s === 'sent')) return 'sent';
  if (statuses.every((s) => s === 'failed')) return 'failed';
  return 'partially_failed';
}

export function createNotifier(deps: NotifierDeps) {
  const { settings, outbox: worker } = deps;

  async function agentName(executor: Executor, agentId: string): Promise<string> {
    const [row] = await executor.select({ name: agents.name }).from(agents).where(eq(agents.id, agentId)).limit(1);
    if (!row) throw new Error(`agent ${agentId} does not exist`);
    return row.name;
  }

  async function enqueueNotification(
    tx: Executor,
    agentId: string,
    kind: NotificationKind,
    text: string,
    reference: string | null,
    extra: Partial<MessengerPayload> = {},
  ): Promise<QueuedNotification | null> {
    const to = await settings.recipients(tx, agentId);
    if (!to) return null;
    const [notification] = await tx.insert(notifications).values({ agentId, kind, text, reference }).returning({ id: notifications.id });
    const recipients: QueuedNotification['recipients'] = [{ target: 'user', recipient: to.userId }];
    if (to.channelId && to.channelId !== to.userId) recipients.push({ target: 'channel', recipient: to.channelId });
    await worker.enqueue(
      tx,
      recipients.map(({ target, recipient }) => ({
        kind: MESSENGER_MESSAGE,
        agentId,
        notificationId: notification!.id,
        recipient,
        payload: { text, target, ...extra } satisfies MessengerPayload,
      })),
    );
    // Rows commit with the caller; until then the worker finds nothing, and the next poll finds them.
    setTimeout(() => worker.wake(), 20);
    return { notificationId: notification!.id, recipients };
  }

  const handler: OutboxHandler = {
    async deliver(row: OutboxRow) {
      if (!row.agentId) throw new GiveUp('messenger message without an agent');
      const payload = row.payload as unknown as MessengerPayload;
      let credentials;
      try {
        credentials = await settings.credentials(row.agentId);
      } catch (error) {
        if (error instanceof SecretBoxError) throw new GiveUp(`secret_unreadable: ${error.settingName} (${error.reason})`);
        throw error;
      }
      if (!credentials) throw new GiveUp('messenger settings were removed');
      const client = deps.telegramFor(credentials.botToken);
      const send = (chatId: number | string) =>
        client.sendMessage({
          chat_id: chatId,
          text: payload.text,
          link_preview_options: { is_disabled: true },
          ...(payload.silent ? { disable_notification: true } : {}),
          ...(payload.replyToMessageId ? { reply_parameters: { message_id: payload.replyToMessageId, allow_sending_without_reply: true } } : {}),
        });
      if (payload.editMessageId) {
        try {
          const message = await client.editMessageText({
            chat_id: chatIdParam(row.recipient),
            message_id: payload.editMessageId,
            text: payload.text,
            link_preview_options: { is_disabled: true },
          });
          return { result: { chatId: message.chat.id, messageId: message.message_id } };
        } catch (error) {
          // Already reads so (a retry after a lost answer): done.
          if (error instanceof TelegramApiError && /message is not modified/i.test(error.description)) return {};
          if (error instanceof TelegramNetworkError) throw new RetryLater(error.message);
          if (error instanceof TelegramApiError && error.retryable) throw new RetryLater(`${error.errorCode} ${error.description}`);
          if (error instanceof TelegramApiError) throw new GiveUp(`${error.errorCode} ${error.description}`);
          throw error;
        }
      }
      try {
        let message;
        try {
          message = await send(chatIdParam(row.recipient));
        } catch (error) {
          // The group became a supergroup with a new id: the settings follow it and the message goes there.
          // Once only: a supergroup never migrates again, so a second answer like it is no answer to trust.
          const to = error instanceof TelegramApiError ? error.migrateToChatId : null;
          if (to === null || !Number.isSafeInteger(to) || String(to) === row.recipient) throw error;
          await settings.migrateChat(row.agentId, row.recipient, String(to));
          message = await send(to);
        }
        return { result: { chatId: message.chat.id, messageId: message.message_id } };
      } catch (error) {
        if (error instanceof TelegramNetworkError) throw new RetryLater(error.message);
        if (!(error instanceof TelegramApiError)) throw error;
        const what = `${error.errorCode} ${error.description}`;
        if (error.errorCode === 429) {
          // Flood control is per bot: every message of this agent waits as long as Telegram asked.
          throw new RetryLater(what, { afterMs: (error.retryAfter ?? 1) * 1000, countsAsAttempt: false, pausesAgent: true });
        }
        if (error.retryable) throw new RetryLater(what, { afterMs: error.retryAfter ? error.retryAfter * 1000 : null });
        throw new GiveUp(what);
      }
    },

    async onSent(tx, row, result) {
      const payload = row.payload as unknown as MessengerPayload;
      if (!payload.escalationId || !row.agentId || !result) return;
      await tx
        .insert(escalationMessages)
        .values({
          agentId: row.agentId,
          chatId: Number(result.chatId),
          messageId: Number(result.messageId),
          escalationId: payload.escalationId,
        })
        .onConflictDoNothing();
    },
  };
  worker.register(MESSENGER_MESSAGE, handler);

  return {
    /**
     * Queues the escalation notice in the caller's transaction. Null when the agent has no messenger
     * settings (nobody to tell); the escalation itself stands either way.
     */
    async enqueueEscalation(tx: Executor, notice: EscalationNotice): Promise<QueuedNotification | null> {
      const announced = messengerTexts.escalation({
        agentName: await agentName(tx, notice.agentId),
        clientPhone: notice.clientPhone,
        reason: notice.reason,
      });
      const text = notice.silent ? `${announced}\n\n${messengerTexts.escalationQuiet}` : announced;
      return enqueueNotification(tx, notice.agentId, 'escalation', text, notice.escalationId, {
        escalationId: notice.escalationId,
        ...(notice.silent ? { silent: true } : {}),
      });
    },

    /** Queues the morning summary of the clients who waited overnight (morning-queue.ts), in the claim's transaction. */
    async enqueueMorningSummary(tx: Executor, agentId: string, text: string, day: string): Promise<QueuedNotification | null> {
      return enqueueNotification(tx, agentId, 'morning', text, day);
    },

    /** The agent's name, as the owner's messages call it. */
    agentName,

    /** Queues the payment notice in the caller's transaction (the one that confirms the payment). */
    async enqueuePayment(tx: Executor, notice: PaymentNotice): Promise<QueuedNotification | null> {
      if (!ORDER_NUMBER.test(notice.orderNumber)) {
        throw new Error(`order number must look like ORD-YYYYMMDD-<sequence>, got ${notice.orderNumber}`);
      }
      const text = messengerTexts.payment({
        agentName: await agentName(tx, notice.agentId),
        orderNumber: notice.orderNumber,
        amount: formatAmount(notice.amount, notice.currency),
      });
      return enqueueNotification(tx, notice.agentId, 'payment', text, notice.orderNumber);
    },

    /** Queues the owner's alert that the assistant stopped for lack of money (once per such spell). */
    async enqueueOutOfBalance(tx: Executor, agentId: string, topupUrl: string): Promise<QueuedNotification | null> {
      const text = messengerTexts.outOfBalance(await agentName(tx, agentId), topupUrl);
      return enqueueNotification(tx, agentId, 'balance', text, null);
    },

    /** A message from the bot to one chat (answers to the operator), not listed as a notification. */
    async enqueueChatMessage(tx: Executor, message: { agentId: string; chatId: number | string; text: string; replyToMessageId?: number }): Promise<void> {
      await worker.enqueue(tx, [
        {
          kind: MESSENGER_MESSAGE,
          agentId: message.agentId,
          recipient: String(message.chatId),
          payload: {
            text: message.text,
            target: 'chat',
            ...(message.replyToMessageId ? { replyToMessageId: message.replyToMessageId } : {}),
          } satisfies MessengerPayload,
        },
      ]);
    },

    /** Queues an edit of a message the bot sent to a chat (the escalation's announcement, say). */
    async enqueueChatEdit(tx: Executor, edit: { agentId: string; chatId: number | string; messageId: number; text: string }): Promise<void> {
      await worker.enqueue(tx, [
        {
          kind: MESSENGER_MESSAGE,
          agentId: edit.agentId,
          recipient: String(edit.chatId),
          payload: { text: edit.text, target: 'chat', editMessageId: edit.messageId } satisfies MessengerPayload,
        },
      ]);
    },

    /** Recent notifications of an agent, newest first, each with the state of every delivery. */
    async list(executor: Executor, agentId: string, limit = 20): Promise<{ notifications: ListedNotification[]; count: number }> {
      const rows = await executor
        .select()
        .from(notifications)
        .where(eq(notifications.agentId, agentId))
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(limit);
      const ids = rows.map((r) => r.id);
      const deliveries = ids.length
        ? await executor
            .select()
            .from(outbox)
            .where(and(eq(outbox.agentId, agentId), inArray(outbox.notificationId, ids)))
            .orderBy(outbox.id)
        : [];
      const list = rows.map((n) => {
        const own = deliveries.filter((d) => d.notificationId === n.id);
        return {
          id: n.id,
          kind: n.kind,
          text: n.text,
          reference: n.reference,
          createdAt: n.createdAt.toISOString(),
          status: overallStatus(own.map((d) => d.status)),
          deliveries: own.map((d) => ({
            target: String((d.payload as MessengerPayload).target ?? 'user'),
            recipient: d.recipient,
            status: d.status,
            attempts: d.attempts,
            lastError: d.lastError,
            sentAt: d.sentAt?.toISOString() ?? null,
          })),
        };
      });
      return { notifications: list, count: list.length };
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
