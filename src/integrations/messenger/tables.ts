// Telegram (the messenger): a bot's settings and updates, and escalations of a dialogue to a human operator
// with the operator's replies.
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns';
import { agents } from '../../agents/tables';
import { dialogues } from '../../dialogues/tables';

/** The Telegram bot of an agent. Chat ids are text: they exceed 32 bits and channels may be "@name". */
export const messengerSettings = pgTable('messenger_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  botTokenSealed: text('bot_token_sealed').notNull(),
  botId: bigint('bot_id', { mode: 'number' }).notNull(),
  botUsername: text('bot_username'),
  /** Chat id that receives notifications (the operator's private chat with the bot). */
  userId: text('user_id').notNull(),
  /** "@name" or a numeric id; notifications are duplicated there when set. */
  channelId: text('channel_id'),
  /** Sent to Telegram as secret_token, so it comes back on every update; sealed because it is re-sent on re-registration. */
  webhookSecretSealed: text('webhook_secret_sealed').notNull(),
  webhookUrl: text('webhook_url').notNull(),
  webhookRegisteredAt: timestamp('webhook_registered_at', { withTimezone: true, mode: 'date' }),
  /** Telegram's refusal of the last setWebhook (English, as Telegram said it); null when registered. */
  webhookError: text('webhook_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** Inbox of Telegram updates: the primary key drops re-deliveries; rows are handled after the 200. */
export const messengerUpdates = pgTable(
  'messenger_updates',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    updateId: bigint('update_id', { mode: 'number' }).notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    /** What handling did (start, operator_reply, release, ignored, failed…). */
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ name: 'messenger_updates_pk', columns: [t.agentId, t.updateId] }),
    index('messenger_updates_pending_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`),
  ],
);

/** A dialogue handed to a human; released_at set when the operator gives it back to the assistant. */
export const escalations = pgTable(
  'escalations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    reason: text('reason').notNull(),
    clientPhone: text('client_phone'),
    createdAt: createdAt(),
    releasedAt: timestamp('released_at', { withTimezone: true, mode: 'date' }),
    /**
     * Made outside the agent's working hours: the start of the working day it waits for. Its notice went
     * silently; the owner hears of it in that morning's summary (morning-queue.ts). Null: announced at once.
     */
    quietUntil: timestamp('quiet_until', { withTimezone: true, mode: 'date' }),
    /** When a morning summary took it (listed, or found answered already); null while it waits for one. */
    summarizedAt: timestamp('summarized_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('escalations_dialogue_idx').on(t.dialogueId, t.createdAt),
    index('escalations_morning_idx').on(t.quietUntil).where(sql`${t.quietUntil} is not null and ${t.summarizedAt} is null`),
  ],
);

/**
 * One morning summary per agent and working day (`day`: the date in the agent's zone): the row is claimed in
 * the transaction that queues the summary, so two instances or a restart never send a second one.
 */
export const morningSummaries = pgTable(
  'morning_summaries',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    /** Dialogues listed (those still waiting when the morning came). */
    listed: integer('listed').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'morning_summaries_pk', columns: [t.agentId, t.day] })],
);

/** Which Telegram message announced which escalation, so an operator's reply to it finds the dialogue. */
export const escalationMessages = pgTable(
  'escalation_messages',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
    escalationId: uuid('escalation_id')
      .notNull()
      .references(() => escalations.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'escalation_messages_pk', columns: [t.agentId, t.chatId, t.messageId] })],
);

/** Every operator reply to an escalation, and what became of it. */
export const operatorReplies = pgTable(
  'operator_replies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    escalationId: uuid('escalation_id')
      .notNull()
      .references(() => escalations.id, { onDelete: 'cascade' }),
    chatId: bigint('chat_id', { mode: 'number' }).notNull(),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
    operatorName: text('operator_name'),
    text: text('text').notNull(),
    /** relayed | undeliverable | dialogue_released | release */
    outcome: text('outcome').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('operator_replies_escalation_idx').on(t.escalationId, t.createdAt)],
);
