// The assistant of a community: what it does with a client's message or button press. Triggers and
// menus answer at once; booking goes through its flow; anything else is the agent's model, billed to
// the agent's owner like any /v1 call; a client who wants a person (or a question the model cannot take)
// is escalated to the owner's operator, after a phone number is asked for when none is known.
// Messages for the model may come in a burst: with ASSISTANT_DEBOUNCE_MS they are answered once, as one
// turn (pending-answers.ts); typed button labels, triggers and flows act at once.
import { randomUUID } from 'node:crypto';
import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, or } from 'drizzle-orm';
import type { Agent, AgentService } from '../agents';
import type { Database, Executor } from '../db/client';
import { dialogueMessages, dialogues } from '../dialogues/tables';
import type { ChatHandler } from '../gateway';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { Escalations, Notifier, OwnerMail } from '../integrations/messenger';
import type { BookingFlow } from './booking-flow';
import type { MessageMedia, ReplyChannel, ShownButtons } from './channel';
import type { DialogueRow, Flow } from './flow';
import { createFlowDetours, keyboardAnsweredLater } from './flow-detours';
import { flowTexts as ft } from './flow-texts';
import type { ShopFlow } from './shop-flow';
import type { VisitReminders } from './reminders';
import type { AfterVisit } from './after-visit';
import { ACTIONS, handoffPhoneKeyboard, mainMenu } from './menus';
import type { ButtonPayload, ReplyButtons } from './reply';
import { createPendingAnswers } from './pending-answers';
import { createClientRate } from './client-rate';
import { createHandoff } from './handoff';
import { createOutOfBalance } from './out-of-balance';
import { assistantTexts as t } from './texts';
import { matchTrigger } from './triggers';
import { createModelTurn } from './model-turn';
import { createToolRegistry } from './tools';
import { textOfChoice } from './tools/choices';
import { createEscalationTools } from './tools/escalation';
import type { ToolProvider } from './tools/types';
import { buttonForTypedText, labelOfPress } from './typed-buttons';
import { turnAlreadyRan, UNSENT } from './turn-guard';

/** Photos of one turn the model is shown at most (VK allows ten attachments a message). */
const MAX_IMAGES = 10;
/** How far back a callback press's label is looked for: inline keyboards stay pressable in older messages. */
const RECENT_KEYBOARDS = 20;

/** What a client's turn reads as in the transcript (and the model's history) when it is not plain text. */
function turnText(text: string, media: MessageMedia): string {
  const typed = text.trim();
  if (media.photos.length > 0) return typed ? `${t.turnPhoto} ${typed}` : t.turnPhoto;
  if (typed) return typed;
  if (media.voice) return t.turnVoice;
  if (media.sticker) return t.turnSticker;
  return '';
}

const NO_MEDIA: MessageMedia = { voice: null, photos: [], sticker: false };

export interface IncomingMessage {
  peerId: number;
  text: string;
  /** From a text button (clients without callback buttons). */
  payload: ButtonPayload | null;
  /** Voice, photos, a sticker (none when absent). */
  media?: MessageMedia;
}

export interface AssistantDeps {
  db: Database;
  /** Where the assistant's replies leave (VK's community messages): the channel renders and queues them. */
  channel: ReplyChannel;
  agents: Pick<AgentService, 'find'>;
  chat: Pick<ChatHandler, 'complete'>;
  escalations: Pick<Escalations, 'escalate' | 'returnUnanswered'>;
  outbox: Pick<OutboxWorker, 'wake'>;
  /** The owner's alerts when the balance cannot pay the model (Telegram, mail). */
  notifier: Pick<Notifier, 'enqueueOutOfBalance'>;
  ownerMail: Pick<OwnerMail, 'enqueue' | 'topupUrl'>;
  /** HANDOFF_TIMEOUT_MINUTES: a client waiting this long for a person goes back to the assistant. */
  handoffTimeoutMinutes: number;
  /** ASSISTANT_CLIENT_MESSAGES_PER_MINUTE (0: no limit). */
  clientMessagesPerMinute: number;
  bookingFlow: BookingFlow;
  shopFlow: ShopFlow;
  /** Visit reminders and their buttons (issue 42 point 1). */
  reminders?: VisitReminders;
  /** After the visit: the review request, the nudge, the no-show's message, and the score buttons (issue 42 point 2). */
  afterVisit?: AfterVisit;
  /** The tool families besides escalation (booking, shop, knowledge…), each deciding which agents get its tools. */
  toolProviders: ToolProvider[];
  /** Whether the agent's owner has a Telegram bot to hand a client to. */
  hasMessenger(agentId: string): Promise<boolean>;
  /** Config ASSISTANT_MAX_STEPS. */
  maxSteps: number;
  /** Where "today" is for the model. */
  timeZone: string;
  /** The knowledge entries that match the client's message well, for the turn's system prompt. */
  knowledgeForPrompt?: (agentId: string, clientText: string) => Promise<string | null>;
  logger: Logger;
  /** ASSISTANT_DEBOUNCE_MS: messages for the model this close together get one answer; 0 answers each at once. */
  debounceMs: number;
  /** Config ASSISTANT_MAX_TOOL_CALLS: tool calls of one model answer that run. */
  maxToolCalls?: number;
  /** Config ASSISTANT_TURN_LEASE_SECONDS: how long a worker's claim on a burst lasts unless renewed. */
  turnLeaseSeconds?: number;
  /** Shows the client «печатает…» (VK messages.setActivity) while the model or a tool works. */
  typing?: (agentId: string, peerId: number) => Promise<void>;
  /**
   * A voice message's text, for an agent whose owner switched transcription on: its audio downloaded and
   * transcribed through the gateway, billed to the owner under `requestId`; null or a throw: not heard.
   */
  transcribe?: (agent: Agent, audioUrl: string, requestId: string) => Promise<string | null>;
}

export function createAssistant(deps: AssistantDeps) {
  const { db, logger } = deps;

  async function dialogueFor(agentId: string, peerId: number): Promise<DialogueRow> {
    const [row] = await db
      .insert(dialogues)
      .values({ agentId, channel: deps.channel.name, peerId: String(peerId), lastMessageAt: new Date() })
      .onConflictDoUpdate({
        target: [dialogues.agentId, dialogues.channel, dialogues.peerId],
        set: { lastMessageAt: new Date() },
      })
      .returning();
    return row!;
  }

  async function setFlow(executor: Executor, dialogueId: string, flow: Flow | null, extra: Partial<DialogueRow> = {}) {
    await executor
      .update(dialogues)
      .set({ flow, updatedAt: new Date(), ...extra })
      .where(eq(dialogues.id, dialogueId));
  }

  /**
   * `requestId`: the model request that wrote an assistant turn, whose usage record tells its model, tokens and cost.
   * `shown`: what the transcript shows besides the text — the keyboard's labels under an assistant turn, or
   * that a client turn is a button press.
   */
  async function remember(
    executor: Executor,
    dialogueId: string,
    role: 'user' | 'assistant',
    content: string,
    requestId?: string,
    images?: string[],
    shown: { buttons?: ShownButtons; tap?: boolean } = {},
  ): Promise<number | null> {
    if (content.trim() === '') return null;
    const [row] = await executor
      .insert(dialogueMessages)
      .values({
        dialogueId,
        role,
        content: content.slice(0, 8000),
        requestId: requestId ?? null,
        images: images && images.length > 0 ? images : null,
        buttons: shown.buttons ?? null,
        kind: shown.tap ? 'tap' : null,
      })
      .returning({ id: dialogueMessages.id });
    return row?.id ?? null;
  }

  /**
   * What a voice message without the channel's transcript said, when the owner switched transcription on
   * (billed to the owner like the model's answers); the client's turn in the transcript then reads as it.
   * Null when it is off, the audio cannot be had, or the transcription failed: the client is asked to write.
   */
  async function heardVoice(agent: Agent, voice: NonNullable<MessageMedia['voice']>, turnId: number | null, requestId: string): Promise<string | null> {
    if (!agent.transcribeVoice || !voice.audioUrl || !deps.transcribe) return null;
    const heard = await deps.transcribe(agent, voice.audioUrl, `${requestId}-voice`).catch((error) => {
      logger.warn('a voice message could not be transcribed', { agentId: agent.id, requestId, error: error instanceof Error ? error.message : String(error) });
      return null;
    });
    const text = heard?.trim() ?? '';
    if (text === '') return null;
    if (turnId !== null)
      await db
        .update(dialogueMessages)
        .set({ content: text.slice(0, 8000) })
        .where(eq(dialogueMessages.id, turnId));
    return text;
  }

  /**
   * Says something to the client: queued on the channel and remembered in the dialogue in one transaction,
   * with the buttons as the channel shows them. Given the caller's transaction, the caller wakes the outbox
   * once it has committed (a row not yet committed is invisible to the worker).
   */
  async function say(dialogue: DialogueRow, text: string, buttons?: ReplyButtons, executor?: Executor, requestId?: string, keepKeyboard = false) {
    if (dialogue.messagingAllowed === false) return;
    const run = async (tx: Executor) => {
      const shown = await deps.channel.queue(tx, dialogue, buttons ? { text, buttons } : { text }, keepKeyboard ? { keepKeyboard } : {});
      await remember(tx, dialogue.id, 'assistant', text, requestId, undefined, shown ? { buttons: shown } : {});
    };
    if (executor) return run(executor);
    await db.transaction(run);
    deps.outbox.wake();
  }

  const handoff = createHandoff({
    db,
    escalations: deps.escalations,
    hasMessenger: deps.hasMessenger,
    timeZone: deps.timeZone,
    timeoutMinutes: deps.handoffTimeoutMinutes,
    logger,
  });
  const balance = createOutOfBalance({
    db,
    notifier: deps.notifier,
    ownerMail: deps.ownerMail,
    outbox: deps.outbox,
    say: (dialogue, text, executor) => say(dialogue, text, undefined, executor),
  });
  const clientRate = createClientRate({ db, perMinute: deps.clientMessagesPerMinute });

  /**
   * Hands the dialogue to a person, asking for a phone first when none is known (with «Пропустить»: the
   * person answers in the chat anyway; `askPhone` false hands over without one).
   */
  async function escalate(
    agent: Agent,
    dialogue: DialogueRow,
    reason: string,
    phone: string | null = dialogue.clientPhone,
    askPhone = true,
  ): Promise<'asked_phone' | 'escalated'> {
    if (!phone && askPhone) {
      await setFlow(db, dialogue.id, { step: 'phone', reason });
      await say(dialogue, ft.askHandoffPhone, handoffPhoneKeyboard());
      return 'asked_phone';
    }
    const told = await handoff.handedOverText(agent);
    await db.transaction(async (tx) => {
      await setFlow(tx, dialogue.id, null, phone ? { clientPhone: phone } : {});
      await deps.escalations.escalate({ agentId: agent.id, channel: dialogue.channel, peerId: dialogue.peerId, clientPhone: phone, reason }, tx);
      await say(dialogue, told, undefined, tx);
    });
    deps.outbox.wake();
    return 'escalated';
  }

  const detours = createFlowDetours({ db, say, setFlow, escalate, bookingFlow: deps.bookingFlow, shopFlow: deps.shopFlow });
  const tools = createToolRegistry([createEscalationTools(escalate), ...deps.toolProviders], logger);
  const runModelTurn = createModelTurn({
    db,
    chat: deps.chat,
    escalations: deps.escalations,
    outbox: deps.outbox,
    tools,
    // A late answer keeps a keyboard a button's reply sent meanwhile (read in the send's own transaction).
    say: async (dialogue, text, requestId, buttons, executor) =>
      say(dialogue, text, buttons, executor, requestId, buttons ? false : await keyboardAnsweredLater(executor ?? db, dialogue.id)),
    outOfBalance: (agent, dialogue) => balance.refused(agent, dialogue),
    typing: deps.typing ? (dialogue) => deps.typing!(dialogue.agentId, Number(dialogue.peerId)) : undefined,
    maxToolCalls: deps.maxToolCalls,
    hasMessenger: deps.hasMessenger,
    whenClosed: (agent) => handoff.whenClosed(agent),
    maxSteps: deps.maxSteps,
    timeZone: deps.timeZone,
    knowledgeForPrompt: deps.knowledgeForPrompt,
    logger,
  });

  /**
   * What the client said since the assistant (or an operator) last spoke — one message, or a burst: the
   * newest turn's text (it is the last user message the model sees) and the photos of all of them.
   */
  async function burstInput(dialogueId: string): Promise<{ clientText: string; images: string[] }> {
    const [lastReply] = await db
      .select({ id: dialogueMessages.id })
      .from(dialogueMessages)
      .where(
        and(
          eq(dialogueMessages.dialogueId, dialogueId),
          inArray(dialogueMessages.role, ['assistant', 'operator']),
          // Kept unsent after a takeover: the client never got it, so it answered nothing.
          or(isNull(dialogueMessages.kind), ne(dialogueMessages.kind, UNSENT)),
        ),
      )
      .orderBy(desc(dialogueMessages.id))
      .limit(1);
    const turns = await db
      .select({ content: dialogueMessages.content, images: dialogueMessages.images })
      .from(dialogueMessages)
      .where(and(eq(dialogueMessages.dialogueId, dialogueId), eq(dialogueMessages.role, 'user'), gt(dialogueMessages.id, lastReply?.id ?? 0)))
      .orderBy(dialogueMessages.id);
    return { clientText: turns.at(-1)?.content ?? '', images: turns.flatMap((r) => r.images ?? []).slice(-MAX_IMAGES) };
  }

  /** One model turn for what the client said since the last answer (one message, or a burst). */
  async function answerTurn(agent: Agent, dialogue: DialogueRow, requestId: string): Promise<string> {
    const input = await burstInput(dialogue.id);
    // A question in the middle of a flow: the model knows where the flow stands, and the flow resumes after.
    const flow = dialogue.flow as Flow | null;
    const context = detours.modelContext(dialogue);
    const outcome = await runModelTurn(agent, dialogue, requestId, {
      clientText: input.clientText,
      images: agent.acceptsImages ? input.images : [],
      ...(context ? { context } : {}),
    });
    if (!outcome.startsWith('out_of_balance')) await balance.paid(agent);
    await detours.resume(agent, dialogue.id, flow);
    return outcome;
  }

  /** A burst's answer, when it falls due (pending-answers.ts): the dialogue as it is now decides. */
  async function answerOwed(dialogueId: string, requestId: string): Promise<string> {
    const [dialogue] = await db.select().from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
    if (!dialogue) return 'dialogue_gone';
    const agent = await loadAgent(dialogue.agentId);
    if (!agent) return 'agent_gone';
    if (dialogue.messagingAllowed === false) return 'client_denied';
    if (dialogue.mode === 'operator') return 'with_operator';
    if (agent.ownerBlockedAt) return ownerBlocked(dialogue, agent.ownerBlockedAt);
    // This burst's turn already ran (a claim that lapsed after the answer, a leftover due time): answering
    // again would repeat the answer, its tools and its bill.
    if (await turnAlreadyRan(db, dialogue.id, requestId)) return 'stale_turn';
    return answerTurn(agent, dialogue, requestId);
  }

  const pending = createPendingAnswers({ db, debounceMs: deps.debounceMs, leaseSeconds: deps.turnLeaseSeconds, logger, answer: answerOwed });

  /** A message for the model: answered now, or (ASSISTANT_DEBOUNCE_MS) once the burst it belongs to ends. */
  async function answerOrDefer(agent: Agent, dialogue: DialogueRow, requestId: string): Promise<string> {
    if (deps.debounceMs === 0) return answerTurn(agent, dialogue, requestId);
    await pending.defer(db, dialogue.id, requestId);
    return 'answer_deferred';
  }

  /** A step of a flow in progress consumed the message; returns the outcome, or null when no flow applies. */
  async function continueFlow(agent: Agent, dialogue: DialogueRow, text: string): Promise<string | null> {
    const flow = dialogue.flow as Flow | null;
    if (!flow) return null;
    if (flow.step === 'phone') return detours.continueHandoff(agent, dialogue, flow, text);
    if (flow.step === 'checkout_phone' || flow.step === 'checkout_delivery' || flow.step === 'checkout_address' || flow.step === 'checkout_recipient')
      return deps.shopFlow.continue(agent, dialogue, flow, text, { say, setFlow });
    return deps.bookingFlow.continue(agent, dialogue, flow, text, { say, setFlow });
  }

  async function act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload): Promise<string> {
    switch (payload.action) {
      case ACTIONS.menu:
        await setFlow(db, dialogue.id, null);
        await say(dialogue, t.menu, mainMenu(agent.type));
        return 'menu';
      case ACTIONS.help:
        await say(dialogue, t.help(agent.type), mainMenu(agent.type));
        return 'help';
      default: {
        const detour = await detours.act(agent, dialogue, payload);
        if (detour) return detour;
        if (agent.type === 'ecommerce') {
          const shop = await deps.shopFlow.act(agent, dialogue, payload, { say, setFlow });
          if (shop) return shop;
        }
        const reviewed = await deps.afterVisit?.act(agent, dialogue, payload, say);
        if (reviewed) {
          // Its answer was queued in its own transaction, committed by now.
          deps.outbox.wake();
          return reviewed;
        }
        const reminded = await deps.reminders?.act(agent, dialogue, payload, { say, setFlow });
        if (reminded) return reminded;
        return deps.bookingFlow.act(agent, dialogue, payload, { say, setFlow });
      }
    }
  }

  /**
   * The owner's account is blocked: nothing is done for the client (no model call billed to the account,
   * no booking, no menu), and the client is told once per dialogue and block that the assistant is
   * unavailable. The conditional update claims the notice, so two events of one client never send two.
   */
  async function ownerBlocked(dialogue: DialogueRow, blockedAt: Date): Promise<string> {
    const claimed = await db
      .update(dialogues)
      .set({ unavailableNoticeAt: new Date() })
      .where(and(eq(dialogues.id, dialogue.id), or(isNull(dialogues.unavailableNoticeAt), lt(dialogues.unavailableNoticeAt, blockedAt))))
      .returning({ id: dialogues.id });
    if (claimed.length === 0) return 'owner_blocked';
    await say(dialogue, t.assistantUnavailable);
    return 'owner_blocked_notice';
  }

  async function loadAgent(agentId: string): Promise<Agent | null> {
    const agent = await deps.agents.find(agentId);
    return agent ?? null;
  }

  const assistant = {
    /** A client's message (message_new). Returns what was done, for the inbox's record. */
    async onMessage(agentId: string, message: IncomingMessage, requestId: string): Promise<string> {
      // A text answer the model offered (offer_choices), pressed as a text button: what the client typed.
      const chosen = textOfChoice(message.payload);
      if (chosen !== null) return assistant.onMessage(agentId, { ...message, text: chosen, payload: null }, requestId);
      const agent = await loadAgent(agentId);
      if (!agent) return 'agent_gone';
      const dialogue = await dialogueFor(agentId, message.peerId);
      const media = message.media ?? NO_MEDIA;
      // A voice message arrives with empty text: VK's transcript is what the client said (decisions.md).
      let text = media.voice?.transcript && message.text.trim() === '' ? media.voice.transcript : message.text;
      let hasText = text.trim() !== '';
      // Kept only when the model may look at them: they are the burst’s photos (burstInput).
      const photos = agent.acceptsImages ? media.photos.slice(0, MAX_IMAGES) : [];
      // A text button's press arrives as its label with the payload: recorded as the tap it was.
      const turnId = await remember(db, dialogue.id, 'user', turnText(text, media), undefined, photos, { tap: Boolean(message.payload?.action) });
      if (dialogue.messagingAllowed === false) return 'client_denied';
      // With an operator: the assistant keeps quiet until the dialogue is released, but for one acknowledgement.
      if (dialogue.mode === 'operator') return handoff.acknowledge(agent, dialogue, (d, text) => say(d, text));
      if (agent.ownerBlockedAt) return ownerBlocked(dialogue, agent.ownerBlockedAt);
      const rate = await clientRate.check(dialogue.id);
      if (rate === 'notice') await say(dialogue, t.tooManyMessages);
      if (rate !== 'ok') return `rate_limited${rate === 'notice' ? '_notice' : ''}`;

      if (message.payload?.action) return act(agent, dialogue, message.payload);
      if (media.voice && !hasText) {
        // No transcript (yet): whether VK tells a community bot when it is ready is undocumented (vk.md §5).
        // The owner's own transcription, when switched on, hears it instead; otherwise the client is asked to write.
        const heard = await heardVoice(agent, media.voice, turnId, requestId);
        if (heard === null) {
          await say(dialogue, t.voiceNotHeard);
          return 'voice_not_heard';
        }
        text = heard;
        hasText = true;
      }
      if (media.sticker && !hasText && media.photos.length === 0) {
        await say(dialogue, t.stickerReply);
        return 'sticker';
      }
      if (media.photos.length > 0 && !agent.acceptsImages) {
        // Said first; text sent with the photo is still answered.
        await say(dialogue, t.imagesOff);
        if (!hasText) return 'photo_declined';
      }
      const typed = buttonForTypedText(text, agent.type, deps.channel.lastButtons(dialogue));
      if (typed) return act(agent, dialogue, typed);

      if (hasText) {
        const flowed = await continueFlow(agent, dialogue, text);
        if (flowed) return flowed;
        switch (matchTrigger(text)) {
          case 'welcome':
            await say(dialogue, t.welcome(agent.name, agent.type), mainMenu(agent.type));
            return 'welcome';
          case 'menu':
            await say(dialogue, t.menu, mainMenu(agent.type));
            return 'menu';
          case 'help':
            await say(dialogue, t.help(agent.type), mainMenu(agent.type));
            return 'help';
          case 'operator':
            return escalate(agent, dialogue, t.escalationReasonAsked);
          default:
            break;
        }
      } else if (photos.length === 0) {
        return 'ignored';
      }
      return answerOrDefer(agent, dialogue, requestId);
    },

    /**
     * A callback button press (message_event), already acknowledged to VK. A text answer the model offered
     * (offer_choices) goes on as if the client had typed it, its model turn billed under `requestId`.
     */
    async onButton(agentId: string, press: { peerId: number; payload: ButtonPayload }, requestId = `press-${randomUUID()}`): Promise<string> {
      const chosen = textOfChoice(press.payload);
      if (chosen !== null) return assistant.onMessage(agentId, { peerId: press.peerId, text: chosen, payload: null }, requestId);
      const agent = await loadAgent(agentId);
      if (!agent) return 'agent_gone';
      const dialogue = await dialogueFor(agentId, press.peerId);
      const keyboards = await db
        .select({ buttons: dialogueMessages.buttons })
        .from(dialogueMessages)
        .where(and(eq(dialogueMessages.dialogueId, dialogue.id), isNotNull(dialogueMessages.buttons)))
        .orderBy(desc(dialogueMessages.id))
        .limit(RECENT_KEYBOARDS);
      const label =
        labelOfPress(
          press.payload,
          agent.type,
          keyboards.map((k) => k.buttons ?? []),
        ) ?? t.tapUnknown;
      await remember(db, dialogue.id, 'user', label, undefined, undefined, { tap: true });
      if (dialogue.messagingAllowed === false) return 'client_denied';
      if (dialogue.mode === 'operator') return handoff.acknowledge(agent, dialogue, (d, text) => say(d, text));
      if (agent.ownerBlockedAt) return ownerBlocked(dialogue, agent.ownerBlockedAt);
      return act(agent, dialogue, press.payload);
    },

    /** message_allow / message_deny. */
    async onConsent(agentId: string, userId: number, allowed: boolean): Promise<string> {
      await db
        .insert(dialogues)
        .values({ agentId, channel: deps.channel.name, peerId: String(userId), messagingAllowed: allowed })
        .onConflictDoUpdate({
          target: [dialogues.agentId, dialogues.channel, dialogues.peerId],
          set: { messagingAllowed: allowed, updatedAt: new Date() },
        });
      return allowed ? 'allowed' : 'denied';
    },

    /**
     * The model's turn for a message already remembered: for intake that has more than text to give the
     * model (the images of a photo message).
     */
    runModelTurn,

    /** The tools the agent's model is offered now, and those it lacks with the reason (the agent's page). */
    toolsFor: (agent: Agent) => tools.toolsFor(agent),

    /** Gives dialogues nobody answered past HANDOFF_TIMEOUT_MINUTES back to the assistant (a periodic job). */
    returnUnanswered: () => handoff.sweep(),
    handoffSweepIntervalMs: handoff.sweepIntervalMs,

    /** Queues the visit reminders due at `now` (a periodic job; tests inject the clock). */
    async sendReminders(now: Date = new Date()): Promise<{ sent: number; skipped: number }> {
      if (!deps.reminders) return { sent: 0, skipped: 0 };
      const done = await deps.reminders.sendDue(now, say);
      if (done.sent > 0) deps.outbox.wake();
      return done;
    },

    /** Queues the after-visit messages due at `now` (review requests, nudges, no-shows; a periodic job). */
    async sendAfterVisit(now: Date = new Date()): Promise<{ sent: number; skipped: number }> {
      if (!deps.afterVisit) return { sent: 0, skipped: 0 };
      const done = await deps.afterVisit.sendDue(now, say);
      if (done.sent > 0) deps.outbox.wake();
      return done;
    },

    /** Answers bursts that are due and unclaimed (the periodic backstop of their timers). */
    sweepAnswers: () => pending.sweep(),

    /** Stops the burst timers and waits for turns under way (graceful shutdown). */
    stop: () => pending.stop(),

    /** For the operator relay: the dialogue's row by id. */
    async dialogueById(executor: Executor, dialogueId: string): Promise<DialogueRow | null> {
      const [row] = await executor
        .select()
        .from(dialogues)
        .where(and(eq(dialogues.id, dialogueId)))
        .limit(1);
      return row ?? null;
    },
  };
  return assistant;
}

export type Assistant = ReturnType<typeof createAssistant>;
