// Composes the VK integration: settings and connection tools, the callback inbox, the assistant that
// answers clients, the outbox kind that delivers its messages, and the relay that brings operator
// replies from the messenger back to the client.
import { createAfterVisit, createAssistant, createBookingFlow, createVisitReminders, type ShopFlow, type ToolProvider, assistantTexts } from '../../assistant';
import type { AgentService } from '../../agents';
import type { Config } from '../../config';
import type { SecretBox } from '../../crypto/secret-box';
import type { Database } from '../../db/client';
import { dialogueMessages } from '../../dialogues/tables';
import type { ChatHandler, TranscriptionsHandler } from '../../gateway';
import { createPeriodicJob } from '../../jobs/periodic';
import type { OutboxWorker } from '../../jobs/outbox';
import type { Logger } from '../../logger';
import type { Booking } from '../booking';
import type { DialogueRelay, Escalations, Notifier, OwnerMail, MessengerSettings } from '../messenger';
import { BROADCAST_KIND, createBroadcasts } from './broadcasts';
import { createVkClient } from './client';
import { vkReplyChannel } from './reply-channel';
import { createSocialMessageHandler, queueSocialMessage, SOCIAL_CHANNEL, SOCIAL_MESSAGE_KIND } from './sender';
import { createSocialSettings } from './settings';
import { createSocialWebhook } from './webhook';
import { createVoiceAudioClient } from './voice-audio';

/** messages.setActivity is a courtesy: it waits this long at most and is never retried. */
const TYPING_TIMEOUT_MS = 3000;
/** How often due visit reminders are looked for (each goes once whichever instance finds it). */
const REMINDER_INTERVAL_MS = 60_000;
/** How often past visits are asked about in YCLIENTS and their follow-ups looked for. */
const AFTER_VISIT_INTERVAL_MS = 5 * 60_000;

export interface SocialDeps {
  db: Database;
  box: SecretBox;
  logger: Logger;
  outbox: OutboxWorker;
  chat: Pick<ChatHandler, 'complete'>;
  /** Voice messages of agents whose owner switched transcription on, billed to the owner. */
  transcriptions?: Pick<TranscriptionsHandler, 'transcribe'>;
  agents: Pick<AgentService, 'find'>;
  escalations: Escalations;
  /** Whether an agent has a Telegram bot to hand clients to. */
  messengerSettings: Pick<MessengerSettings, 'recipients'>;
  /** The owner's alerts when the balance cannot pay the assistant's model. */
  notifier: Pick<Notifier, 'enqueueOutOfBalance'>;
  ownerMail: Pick<OwnerMail, 'enqueue' | 'topupUrl' | 'dialoguesUrl'>;
  booking: Booking;
  /** The shop of E-commerce agents in the dialogue (built with the services: its model tools share it). */
  shopFlow: ShopFlow;
  /** The model's tool families besides escalate_to_human (booking, shop, knowledge), each choosing its agents. */
  toolProviders: ToolProvider[];
  /** The knowledge entries that match the client's message well, for the turn's system prompt. */
  knowledgeForPrompt?: (agentId: string, clientText: string) => Promise<string | null>;
  config: Pick<
    Config,
    | 'publicBaseUrl'
    | 'vkApiBaseUrl'
    | 'bodyLimitBytes'
    | 'outboxPollIntervalMs'
    | 'assistantMaxSteps'
    | 'yclientsTimeZone'
    | 'assistantDebounceMs'
    | 'assistantMaxToolCalls'
    | 'assistantTurnLeaseSeconds'
    | 'handoffTimeoutMinutes'
    | 'assistantClientMessagesPerMinute'
    | 'vkAudioBaseUrls'
    | 'audioMaxBytes'
    | 'transcriptionModel'
  >;
  /** Told how each VK event's handling ended (metrics). */
  observeEvent?: (outcome: 'handled' | 'failed') => void;
}

export function createSocial(deps: SocialDeps) {
  const { db, box, logger, outbox, config } = deps;
  const vkFor = (accessToken: string) => createVkClient({ baseUrl: config.vkApiBaseUrl, accessToken });
  const settings = createSocialSettings({ db, box, logger, publicBaseUrl: config.publicBaseUrl, vkFor });
  const voiceAudio = createVoiceAudioClient({ baseUrls: config.vkAudioBaseUrls, maxBytes: config.audioMaxBytes });
  const transcriptions = deps.transcriptions;
  const bookingFlow = createBookingFlow({ flowDb: db, booking: deps.booking.service, settings: deps.booking.settings, outbox, logger });
  const assistant = createAssistant({
    db,
    channel: vkReplyChannel,
    agents: deps.agents,
    chat: deps.chat,
    escalations: deps.escalations,
    outbox,
    notifier: deps.notifier,
    ownerMail: deps.ownerMail,
    handoffTimeoutMinutes: config.handoffTimeoutMinutes,
    clientMessagesPerMinute: config.assistantClientMessagesPerMinute,
    bookingFlow,
    reminders: createVisitReminders({ db, booking: deps.booking.service, timeZone: config.yclientsTimeZone, logger }),
    afterVisit: createAfterVisit({
      db,
      booking: deps.booking.service,
      escalations: deps.escalations,
      dialogueUrl: (agentId, dialogueId) => `${deps.ownerMail.dialoguesUrl(agentId)}/${dialogueId}`,
      timeZone: config.yclientsTimeZone,
      logger,
    }),
    shopFlow: deps.shopFlow,
    toolProviders: deps.toolProviders,
    knowledgeForPrompt: deps.knowledgeForPrompt,
    hasMessenger: async (agentId) => (await deps.messengerSettings.recipients(db, agentId).catch(() => null)) !== null,
    maxSteps: config.assistantMaxSteps,
    // The salon's bookings are in its local dates; YCLIENTS_TIME_ZONE is the zone assumed when YCLIENTS names none.
    timeZone: config.yclientsTimeZone,
    logger,
    debounceMs: config.assistantDebounceMs,
    maxToolCalls: config.assistantMaxToolCalls,
    turnLeaseSeconds: config.assistantTurnLeaseSeconds,
    transcribe: transcriptions
      ? async (agent, audioUrl, requestId) => {
          const audio = await voiceAudio.download(audioUrl);
          const payer = { userId: agent.userId, apiKeyId: null, agentId: agent.id };
          const input = {
            file: new Blob([audio.bytes], { type: audio.type }),
            filename: audio.filename,
            model: agent.transcriptionModel ?? config.transcriptionModel,
            format: 'json' as const,
            fields: [],
          };
          const response = await transcriptions.transcribe(payer, input, requestId, null);
          const answer = (await response.json()) as { text?: unknown };
          return typeof answer.text === 'string' ? answer.text : null;
        }
      : undefined,
    // A short call of its own: a slow VK must not hold the turn up (the indicator is a courtesy).
    typing: async (agentId, peerId) => {
      const community = await settings.load(agentId);
      if (community)
        await createVkClient({
          baseUrl: config.vkApiBaseUrl,
          accessToken: community.accessToken,
          timeoutMs: TYPING_TIMEOUT_MS,
          retry: { maxRetries: 0 },
        }).messagesSetActivity({
          peerId,
          type: 'typing',
          groupId: community.groupId,
        });
    },
  });
  const broadcasts = createBroadcasts({ db, outbox, settings, vkFor, logger });
  const webhook = createSocialWebhook({
    db,
    settings,
    assistant,
    vkFor,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    observe: deps.observeEvent,
    broadcasts,
  });

  outbox.register(SOCIAL_MESSAGE_KIND, createSocialMessageHandler({ db, settings, vkFor }));
  outbox.register(BROADCAST_KIND, broadcasts.handler);

  const relay: DialogueRelay = {
    async relayOperatorReply(tx, reply) {
      const dialogue = await assistant.dialogueById(tx, reply.dialogueId);
      if (!dialogue) return { delivered: false, reason: assistantTexts.relayNoDialogue };
      if (dialogue.messagingAllowed === false) return { delivered: false, reason: assistantTexts.relayDenied };
      const community = await settings.load(reply.agentId, tx).catch(() => null);
      if (!community) return { delivered: false, reason: assistantTexts.relayNoCommunity };
      await tx.insert(dialogueMessages).values({ dialogueId: dialogue.id, role: 'operator', content: reply.text.slice(0, 8000), operatorName: reply.operatorName });
      await queueSocialMessage(tx, { agentId: reply.agentId, peerId: Number(reply.peerId), text: reply.text });
      return { delivered: true };
    },
    releaseNotice(messagingAllowed, why = 'released') {
      if (messagingAllowed === false) return null;
      return why === 'unanswered' ? assistantTexts.handoffTimedOut : assistantTexts.released;
    },
    async release(tx, ref, why = 'released') {
      const dialogue = await assistant.dialogueById(tx, ref.dialogueId);
      const told = dialogue ? relay.releaseNotice(dialogue.messagingAllowed, why) : null;
      if (!dialogue || told === null) return;
      // The transcript shows what the client was told, this notice included.
      await tx.insert(dialogueMessages).values({ dialogueId: dialogue.id, role: 'assistant', content: told });
      await queueSocialMessage(tx, { agentId: ref.agentId, peerId: Number(ref.peerId), text: told });
    },
  };
  deps.escalations.registerRelay(SOCIAL_CHANNEL, relay);

  // Events are normally handled right after their `ok`, and bursts answered when their timer fires; this
  // catches those a stop or a failure cut short (and bursts whose timer is in another, stopped instance).
  const sweep = createPeriodicJob({
    name: 'social inbox sweep',
    intervalMs: Math.max(50, config.outboxPollIntervalMs * 5),
    run: async () => {
      await webhook.sweep();
      await assistant.sweepAnswers();
    },
    logger,
  });

  // Nobody is parked: clients who waited for a person past HANDOFF_TIMEOUT_MINUTES are the assistant's again.
  const handoffSweep = createPeriodicJob({
    name: 'unanswered hand-over sweep',
    intervalMs: assistant.handoffSweepIntervalMs,
    run: async () => {
      const returned = await assistant.returnUnanswered();
      if (returned > 0) outbox.wake();
    },
    logger,
  });

  // Visit reminders: due ones queued through the outbox, once each (appointment_reminders' unique key).
  const reminderJob = createPeriodicJob({ name: 'visit reminders', intervalMs: REMINDER_INTERVAL_MS, run: () => assistant.sendReminders(), logger });
  // After the visit: YCLIENTS asked what became of past visits, then the messages that follow from it.
  const afterVisit = async (now = new Date()) => {
    const attendance = await deps.booking.attendance.run(now);
    return { attendance, ...(await assistant.sendAfterVisit(now)) };
  };
  const afterVisitJob = createPeriodicJob({ name: 'after visit', intervalMs: AFTER_VISIT_INTERVAL_MS, run: () => afterVisit(), logger });

  return {
    settings,
    assistant,
    webhook,
    broadcasts,
    vkFor,
    /** One pass of the visit reminders at `now` (the job's own pass uses the clock). */
    sendReminders: (now?: Date) => assistant.sendReminders(now),
    /** One after-visit pass at `now`: the attendance sync, then the review requests, nudges and no-show messages due. */
    afterVisit,
    start() {
      sweep.start();
      reminderJob.start();
      afterVisitJob.start();
      if (config.handoffTimeoutMinutes > 0) handoffSweep.start();
    },
    async stop() {
      await reminderJob.stop();
      await afterVisitJob.stop();
      await handoffSweep.stop();
      await sweep.stop();
      await webhook.drain();
      await assistant.stop();
    },
  };
}

export type Social = ReturnType<typeof createSocial>;
