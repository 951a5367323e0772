// POST /api/v1/messenger/:agentId/webhook: Telegram's updates for an agent's bot. The secret header is
// checked, the update is written to the inbox (its primary key drops a repeated update_id) and answered
// 200 at once; handling happens right after, in a transaction of its own, and a sweep picks up any
// update whose handling was cut short (crash, restart, database hiccup).
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Database, Transaction } from '../../db/client';
import { messengerUpdates } from './tables';
import { readBodyText } from '../../http/body';
import { AppError } from '../../http/errors';
import { errorMessages } from '../../http/messages';
import { cleanStorableText } from '../../http/text';
import type { OutboxWorker } from '../../jobs/outbox';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/json';
import type { Logger } from '../../logger';
import type { Message, Update } from './client';
import type { Escalations } from './escalations';
import type { Notifier } from './notify';
import type { MessengerSettings } from './settings';
import { messengerMessages, messengerTexts } from './texts';

export const SECRET_HEADER = 'x-telegram-bot-api-secret-token';
const START_COMMAND = /^\/start(@\w+)?(\s|$)/i;
/** Handling that failed this many times is given up (and logged) instead of retried forever. */
const MAX_HANDLING_ATTEMPTS = 5;
/** Telegram keeps undelivered updates 24 hours; a week of ids is more than enough to drop repeats. */
const INBOX_RETENTION = '7 days';
/** An update is a message or two with their metadata: far below this, whatever BODY_LIMIT_BYTES allows. */
const MAX_UPDATE_BYTES = 256 * 1024;

export interface MessengerWebhookDeps {
  db: Database;
  settings: MessengerSettings;
  escalations: Escalations;
  notifier: Notifier;
  outbox: OutboxWorker;
  logger: Logger;
  bodyLimitBytes: number;
  /** Told how each update's handling ended (metrics). */
  observe?: (outcome: 'handled' | 'failed') => void;
}

const ok = () => new Response(JSON.stringify({ ok: true }), { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' } });

export function createMessengerWebhook(deps: MessengerWebhookDeps) {
  const { db, settings, escalations, notifier, outbox, logger } = deps;
  const inFlight = new Set<Promise<void>>();

  async function handleUpdate(tx: Transaction, agentId: string, update: Update): Promise<string> {
    const message: Message | undefined = update.message ?? update.channel_post;
    if (!message || typeof message.text !== 'string') return 'ignored';
    const text = message.text.trim();
    const chatId = message.chat.id;

    if (START_COMMAND.test(text)) {
      const answer = message.chat.type === 'private' ? messengerTexts.startPrivate(chatId) : messengerTexts.startChannel(chatId);
      await notifier.enqueueChatMessage(tx, { agentId, chatId, text: answer, replyToMessageId: message.message_id });
      return 'start';
    }
    if (message.reply_to_message) {
      const from = message.from;
      const operatorName = from
        ? [from.first_name, from.last_name].filter(Boolean).join(' ') + (from.username ? ` (@${from.username})` : '')
        : (message.author_signature ?? message.chat.title ?? null);
      const outcome = await escalations.handleOperatorMessage(tx, {
        agentId,
        chatId,
        messageId: message.message_id,
        replyToMessageId: message.reply_to_message.message_id,
        text,
        operatorName,
        operatorKey: from ? `telegram:${from.id}` : `telegram-chat:${chatId}`,
      });
      return outcome ?? 'ignored';
    }
    return 'ignored';
  }

  /** Handles one stored update once, whichever instance or sweep gets to it first. */
  async function processUpdate(agentId: string, updateId: number): Promise<void> {
    try {
      const handled = await db.transaction(async (tx) => {
        const [row] = await tx
          .select({ payload: messengerUpdates.payload })
          .from(messengerUpdates)
          .where(and(eq(messengerUpdates.agentId, agentId), eq(messengerUpdates.updateId, updateId), isNull(messengerUpdates.processedAt)))
          .for('update', { skipLocked: true });
        if (!row) return false;
        const outcome = await handleUpdate(tx, agentId, row.payload as Update);
        await tx
          .update(messengerUpdates)
          .set({ processedAt: new Date(), outcome, attempts: sql`${messengerUpdates.attempts} + 1`, lastError: null })
          .where(and(eq(messengerUpdates.agentId, agentId), eq(messengerUpdates.updateId, updateId)));
        return true;
      });
      if (handled) {
        deps.observe?.('handled');
        outbox.wake();
      }
    } catch (error) {
      deps.observe?.('failed');
      const message = error instanceof Error ? error.message : String(error);
      logger.error('messenger update handling failed', { agentId, updateId, error });
      await db
        .update(messengerUpdates)
        .set({
          attempts: sql`${messengerUpdates.attempts} + 1`,
          lastError: message.slice(0, 500),
          // Given up after the last attempt: kept, with its error, for whoever investigates.
          processedAt: sql`case when ${messengerUpdates.attempts} + 1 >= ${MAX_HANDLING_ATTEMPTS} then now() else null end`,
          outcome: sql`case when ${messengerUpdates.attempts} + 1 >= ${MAX_HANDLING_ATTEMPTS} then 'failed' else null end`,
        })
        .where(and(eq(messengerUpdates.agentId, agentId), eq(messengerUpdates.updateId, updateId), isNull(messengerUpdates.processedAt)))
        .catch((e) => logger.error('messenger update bookkeeping failed', { agentId, updateId, error: e }));
    }
  }

  function processSoon(agentId: string, updateId: number) {
    const work = processUpdate(agentId, updateId).finally(() => inFlight.delete(work));
    inFlight.add(work);
  }

  return {
    async handle(request: Request, agentId: string): Promise<Response> {
      const verdict = await settings.verifyWebhookSecret(agentId, request.headers.get(SECRET_HEADER));
      if (verdict === 'unknown') throw new AppError('not_found', messengerMessages.messengerUnknownWebhook);
      if (verdict === 'wrong') throw new AppError('forbidden', messengerMessages.messengerBadSecret);

      let update: unknown;
      try {
        // Kept in the inbox (jsonb) and handled from there: Telegram's text is cleaned of what PostgreSQL
        // cannot store rather than refused, since Telegram would only deliver the same update again.
        const raw = await readBodyText(request, Math.min(deps.bodyLimitBytes, MAX_UPDATE_BYTES));
        // Nested too deep to store (http/json.ts): acknowledged and dropped, not refused. The secret header
        // says it came from Telegram, which would redeliver anything but a 2xx and hold the updates after it.
        if (nestsDeeperThan(raw)) {
          logger.warn('telegram: an update nested deeper than allowed; acknowledged and dropped', { agentId, bytes: raw.length, maxDepth: MAX_JSON_DEPTH });
          return ok();
        }
        update = cleanStorableText(JSON.parse(raw) as unknown);
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('invalid_request_error', errorMessages.malformedJson);
      }
      const updateId = (update as { update_id?: unknown } | null)?.update_id;
      if (typeof update !== 'object' || update === null || Array.isArray(update) || !Number.isSafeInteger(updateId) || (updateId as number) < 0) {
        throw new AppError('invalid_request_error', messengerMessages.messengerBadUpdate);
      }
      const inserted = await db
        .insert(messengerUpdates)
        .values({ agentId, updateId: updateId as number, payload: update })
        .onConflictDoNothing()
        .returning({ updateId: messengerUpdates.updateId });
      // A repeat (Telegram re-delivering, or anyone replaying) is acknowledged and otherwise ignored.
      if (inserted.length > 0) processSoon(agentId, updateId as number);
      return ok();
    },

    /** Handles updates left unhandled (the process stopped between the 200 and the handling), and prunes old ones. */
    async sweep(): Promise<number> {
      const pending = await db
        .select({ agentId: messengerUpdates.agentId, updateId: messengerUpdates.updateId })
        .from(messengerUpdates)
        .where(isNull(messengerUpdates.processedAt))
        .orderBy(messengerUpdates.receivedAt, messengerUpdates.updateId)
        .limit(100);
      for (const row of pending) await processUpdate(row.agentId, row.updateId);
      await db
        .delete(messengerUpdates)
        .where(and(lt(messengerUpdates.receivedAt, sql`now() - ${INBOX_RETENTION}::interval`), sql`${messengerUpdates.processedAt} is not null`));
      return pending.length;
    },

    /** Waits for handling already started (graceful shutdown). */
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type MessengerWebhook = ReturnType<typeof createMessengerWebhook>;
