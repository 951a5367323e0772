// /api/v1/social/webhook/:agentId — VK's Callback API for an agent's community.
//
// `confirmation` is answered with the code as text/plain, as VK gives it now (re-read at most once a minute;
// the stored copy only when VK cannot be asked). Every other event must carry the agent's
// secret (compared in constant time; wrong or missing → 403, nothing done), is written to the inbox
// under its event id before VK hears `ok` (a re-delivery finds the row and is not acted on twice), and is
// handled right after. Handling claims the event with a lease rather than a held transaction, because a
// model answer takes seconds; a sweep picks up events whose handling was cut short (crash, restart).
// Events of one client are handled in order, one at a time, within this process.
import { randomUUID } from 'node:crypto';
import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import { dialogueMessages } from '../../dialogues/tables';
import { socialEvents } from './tables';
import { readBodyText } from '../../http/body';
import { AppError } from '../../http/errors';
import { errorMessages } from '../../http/messages';
import { socialMessages } from './texts';
import { cleanStorableText } from '../../http/text';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/json';
import type { Logger } from '../../logger';
import type { Assistant } from '../../assistant';
import { readMedia } from './attachments';
import type { VkClient } from './client';
import type { Broadcasts } from './broadcasts';
import type { ButtonPayload } from './keyboards';
import type { SocialSettings } from './settings';

/** How long one handling may take before another worker may take the event over. */
const LEASE_SECONDS = 300;
const MAX_HANDLING_ATTEMPTS = 5;
const INBOX_RETENTION = '7 days';
/** Turns of a dialogue are kept this long: the model reads the last 20, nobody reads older ones. */
const DIALOGUE_RETENTION = '90 days';
const PRUNE_EVERY_MS = 10 * 60_000;
const MAX_EVENT_BYTES = 256 * 1024;

const text = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

interface VkEvent {
  type: string;
  event_id?: string;
  secret?: unknown;
  object?: Record<string, unknown>;
}

/** A payload arrives as a JSON string (message_new) or, despite the schema, as an object (message_event). */
function parsePayload(raw: unknown): ButtonPayload | null {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (value && typeof value === 'object' && typeof (value as { action?: unknown }).action === 'string') return value as ButtonPayload;
  return null;
}

/** The client an event is about: the peer of a message or press, the user of a consent change. */
function clientOf(event: VkEvent): string | null {
  const o = event.object ?? {};
  const m = (o.message && typeof o.message === 'object' ? o.message : o) as Record<string, unknown>;
  const id = m.peer_id ?? o.peer_id ?? o.user_id ?? m.from_id;
  return typeof id === 'number' || typeof id === 'string' ? String(id).slice(0, 40) : null;
}

/**
 * VK numbers group chats (беседы) from here: a chat is one peer for all its members. The assistant keys a
 * client by peer — its dialogue, phone, bookings and orders, cart — so in a chat one member would book and
 * another list and cancel it. Chats are not served: their messages and presses reach no assistant, and the
 * community's assistant works in private messages only (README, «The VK community and the assistant»).
 */
export const VK_CHAT_PEER_BASE = 2_000_000_000;
export const GROUP_CHAT_OUTCOME = 'group_chat';
const isGroupChat = (peerId: number) => peerId >= VK_CHAT_PEER_BASE;

const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : null);

/**
 * VK escapes a few characters in message text and writes line breaks as `<br>`; the assistant reads what the
 * client typed. The breaks go first: a "<br>" the client typed arrives escaped (`&lt;br&gt;`) and stays text.
 */
function unescapeVk(value: string): string {
  return value
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export interface SocialWebhookDeps {
  db: Database;
  settings: SocialSettings;
  assistant: Assistant;
  vkFor(accessToken: string): VkClient;
  logger: Logger;
  bodyLimitBytes: number;
  /** Told how each event's handling ended (metrics). */
  observe?: (outcome: 'handled' | 'failed') => void;
  /** «Отписаться» under a broadcast, pressed or typed: handled there, before the assistant. */
  broadcasts: Pick<Broadcasts, 'onPress' | 'onTyped'>;
}

export function createSocialWebhook(deps: SocialWebhookDeps) {
  const { db, settings, assistant, logger } = deps;
  const inFlight = new Set<Promise<void>>();
  /** Per client: the tail of its chain of handlings, so its events are handled in order. */
  const chains = new Map<string, Promise<void>>();
  let lastPrune = 0;

  async function handleEvent(agentId: string, event: VkEvent): Promise<string> {
    const object = event.object ?? {};
    const requestId = `vk-${event.event_id ?? randomUUID()}`;
    switch (event.type) {
      case 'message_new': {
        // API ≥ 5.103 wraps the message; older servers post it flat.
        const message = (object.message && typeof object.message === 'object' ? object.message : object) as Record<string, unknown>;
        const peerId = int(message.peer_id) ?? int(message.from_id);
        if (peerId === null || message.out === 1) return 'ignored';
        if (isGroupChat(peerId)) return GROUP_CHAT_OUTCOME;
        const body = typeof message.text === 'string' ? unescapeVk(message.text) : '';
        const payload = parsePayload(message.payload);
        const unsubscribed = (await deps.broadcasts.onPress(agentId, peerId, payload)) ?? (await deps.broadcasts.onTyped(agentId, peerId, body));
        if (unsubscribed) return unsubscribed;
        return assistant.onMessage(agentId, { peerId, text: body, payload, media: readMedia(message) }, requestId);
      }
      case 'message_event': {
        const peerId = int(object.peer_id);
        const userId = int(object.user_id);
        const payload = parsePayload(object.payload);
        if (peerId === null || userId === null) return 'ignored';
        // The button spins until answered, and the answer is only valid for about a minute: first thing.
        const s = await settings.load(agentId);
        if (s && typeof object.event_id === 'string') {
          await deps
            .vkFor(s.accessToken)
            .messagesSendMessageEventAnswer({ eventId: object.event_id, userId, peerId })
            .catch((error) => logger.warn('vk: could not acknowledge a button press', { agentId, error }));
        }
        if (isGroupChat(peerId)) return GROUP_CHAT_OUTCOME;
        if (!payload) return 'ignored';
        return (await deps.broadcasts.onPress(agentId, peerId, payload)) ?? assistant.onButton(agentId, { peerId, payload }, requestId);
      }
      case 'message_allow':
      case 'message_deny': {
        const userId = int(object.user_id);
        if (userId === null) return 'ignored';
        return assistant.onConsent(agentId, userId, event.type === 'message_allow');
      }
      default:
        return 'ignored';
    }
  }

  /** Claims, handles and closes one stored event; does nothing when it is done or someone else holds it. */
  async function processEvent(agentId: string, eventId: string): Promise<void> {
    const [claimed] = await db
      .update(socialEvents)
      .set({ lockedUntil: sql`now() + make_interval(secs => ${LEASE_SECONDS})`, attempts: sql`${socialEvents.attempts} + 1` })
      .where(
        and(
          eq(socialEvents.agentId, agentId),
          eq(socialEvents.eventId, eventId),
          isNull(socialEvents.processedAt),
          or(isNull(socialEvents.lockedUntil), lt(socialEvents.lockedUntil, sql`now()`)),
          // One client's events oldest first and one at a time, whichever instance holds them: an earlier
          // one still open, or one in hand elsewhere, keeps this one waiting (the sweep comes back to it).
          sql`not exists (select 1 from social_events o
                           where o.agent_id = ${socialEvents.agentId} and o.client_key = ${socialEvents.clientKey}
                             and o.event_id <> ${socialEvents.eventId} and o.processed_at is null
                             and (o.received_at < ${socialEvents.receivedAt} or o.locked_until > now()))`,
        ),
      )
      .returning({ payload: socialEvents.payload, attempts: socialEvents.attempts });
    if (!claimed) return;
    try {
      const outcome = await handleEvent(agentId, claimed.payload as VkEvent);
      await db
        .update(socialEvents)
        .set({ processedAt: new Date(), outcome, lockedUntil: null, lastError: null })
        .where(and(eq(socialEvents.agentId, agentId), eq(socialEvents.eventId, eventId)));
      deps.observe?.('handled');
    } catch (error) {
      deps.observe?.('failed');
      logger.error('vk event handling failed', { agentId, eventId, error });
      const giveUp = claimed.attempts >= MAX_HANDLING_ATTEMPTS;
      await db
        .update(socialEvents)
        .set({
          lockedUntil: null,
          lastError: (error instanceof Error ? error.message : String(error)).slice(0, 500),
          ...(giveUp ? { processedAt: new Date(), outcome: 'failed' } : {}),
        })
        .where(and(eq(socialEvents.agentId, agentId), eq(socialEvents.eventId, eventId)))
        .catch((e) => logger.error('vk event bookkeeping failed', { agentId, eventId, error: e }));
    }
  }

  /** Drops handled events past the inbox retention and dialogue turns past theirs. */
  async function prune(): Promise<void> {
    await db.delete(socialEvents).where(and(isNotNull(socialEvents.processedAt), lt(socialEvents.receivedAt, sql`now() - ${INBOX_RETENTION}::interval`)));
    await db.delete(dialogueMessages).where(lt(dialogueMessages.createdAt, sql`now() - ${DIALOGUE_RETENTION}::interval`));
  }

  function processSoon(agentId: string, eventId: string, event: VkEvent) {
    const key = `${agentId}:${clientOf(event) ?? eventId}`;
    const previous = chains.get(key) ?? Promise.resolve();
    const work = previous.then(() => processEvent(agentId, eventId)).catch(() => {});
    chains.set(key, work);
    const tracked = work.finally(() => {
      inFlight.delete(tracked);
      if (chains.get(key) === work) chains.delete(key);
    });
    inFlight.add(tracked);
  }

  return {
    /** GET: the confirmation code as text, for whoever sets the server up by hand. */
    async confirmation(agentId: string): Promise<Response> {
      const code = await settings.storedConfirmationCode(agentId);
      if (!code) throw new AppError('not_found', socialMessages.socialNoConfirmationCode);
      return text(code);
    },

    async handle(request: Request, agentId: string): Promise<Response> {
      const s = await settings.load(agentId);
      if (!s) throw new AppError('not_found', socialMessages.socialUnknownWebhook);
      let event: VkEvent;
      try {
        // Kept in the inbox (jsonb) and read by the assistant: VK's text is cleaned of what PostgreSQL cannot
        // store rather than refused, since VK would only deliver the same event again.
        const raw = await readBodyText(request, Math.min(deps.bodyLimitBytes, MAX_EVENT_BYTES));
        // Nested too deep to store (http/json.ts): acknowledged with VK's `ok` and dropped, not refused. The
        // secret inside is unread, so the sender is unknown; were it VK, any other answer would only bring
        // the same event again and count against our server until VK switches it off.
        if (nestsDeeperThan(raw)) {
          logger.warn('vk: an event nested deeper than allowed; acknowledged and dropped', { agentId, bytes: raw.length, maxDepth: MAX_JSON_DEPTH });
          return text('ok');
        }
        const parsed = cleanStorableText(JSON.parse(raw) as unknown);
        if (!parsed || typeof parsed !== 'object' || typeof (parsed as VkEvent).type !== 'string') throw new SyntaxError('not an event');
        event = parsed as VkEvent;
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new AppError('invalid_request_error', errorMessages.malformedJson);
      }

      if (event.type === 'confirmation') {
        if (event.secret !== undefined && !settings.secretMatches(s.secretKey, event.secret)) {
          throw new AppError('forbidden', socialMessages.socialBadSecret);
        }
        // VK changes the code from time to time: the one it gives now, the stored one only when it cannot be asked.
        const code = await settings.codeForConfirmation(s);
        if (!code) throw new AppError('not_found', socialMessages.socialNoConfirmationCode);
        return text(code);
      }
      if (!settings.secretMatches(s.secretKey, event.secret)) {
        throw new AppError('forbidden', socialMessages.socialBadSecret);
      }
      const eventId = typeof event.event_id === 'string' && event.event_id !== '' ? event.event_id : null;
      if (!eventId) throw new AppError('invalid_request_error', socialMessages.socialNoEventId);
      // The secret is ours to check, not to keep.
      const { secret: _, ...stored } = event;
      const inserted = await db
        .insert(socialEvents)
        .values({ agentId, eventId: eventId.slice(0, 200), type: event.type.slice(0, 50), clientKey: clientOf(event), payload: stored })
        .onConflictDoNothing()
        .returning({ eventId: socialEvents.eventId });
      if (inserted.length > 0) processSoon(agentId, eventId.slice(0, 200), event);
      return text('ok');
    },

    /** Handles events left unhandled (a stop between `ok` and handling, or a failure), and prunes old ones. */
    async sweep(): Promise<number> {
      const pending = await db
        .select({ agentId: socialEvents.agentId, eventId: socialEvents.eventId, payload: socialEvents.payload })
        .from(socialEvents)
        .where(and(isNull(socialEvents.processedAt), or(isNull(socialEvents.lockedUntil), lt(socialEvents.lockedUntil, sql`now()`))))
        .orderBy(socialEvents.receivedAt)
        .limit(100);
      for (const row of pending) processSoon(row.agentId, row.eventId, row.payload as VkEvent);
      await Promise.allSettled([...inFlight]);
      // Pruning scans old rows: every few minutes is plenty, not every sweep.
      if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = Date.now();
        await prune();
      }
      return pending.length;
    },

    prune,

    /** Waits for handling already started (graceful shutdown). */
    async drain(): Promise<void> {
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type SocialWebhook = ReturnType<typeof createSocialWebhook>;
