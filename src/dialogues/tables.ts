// An agent's dialogues with clients and their messages.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, jsonb, pgTable, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { agents } from '../agents/tables';
import { users } from '../accounts/tables';

/**
 * A conversation of an agent with a client in some channel (e.g. "social" with a VK peer id). Only what
 * escalation needs so far: who the client is, and whether the assistant or an operator is answering.
 */
export const dialogues = pgTable(
  'dialogues',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull(),
    peerId: text('peer_id').notNull(),
    clientPhone: text('client_phone'),
    /** assistant | operator */
    mode: text('mode').notNull().default('assistant'),
    /** Whether the client lets the community write to them (message_allow / message_deny); null: never said. */
    messagingAllowed: boolean('messaging_allowed'),
    /**
     * When the client pressed «Отписаться» under a broadcast: no broadcast goes to them after it, whatever
     * message_allow says (the assistant still answers them). Null: never unsubscribed.
     */
    broadcastsDeniedAt: timestamp('broadcasts_denied_at', { withTimezone: true, mode: 'date' }),
    /** A multi-step exchange in progress (asking for a phone, choosing a slot…), as the assistant left it. */
    flow: jsonb('flow'),
    /** The name the client gave (booking), shown to the owner. */
    clientName: text('client_name'),
    /**
     * Who answers the client while mode is operator: "user:<id>" (the owner, from the dashboard) or
     * "telegram:<id>" (an operator replying in Telegram); null while an escalation waits for someone.
     * Taken by a conditional UPDATE, so two operators never hold one dialogue.
     */
    heldBy: text('held_by'),
    heldByName: text('held_by_name'),
    heldAt: timestamp('held_at', { withTimezone: true, mode: 'date' }),
    /** The last turn the owner has seen in the dashboard: later client turns are unread. */
    ownerReadMessageId: bigint('owner_read_message_id', { mode: 'number' }).notNull().default(0),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, mode: 'date' }),
    /**
     * When the client was told the assistant is unavailable (its owner's account blocked): told once per
     * dialogue and block, so a notice older than the owner's blocked_at means a new block, told again.
     */
    unavailableNoticeAt: timestamp('unavailable_notice_at', { withTimezone: true, mode: 'date' }),
    /**
     * A model answer owed to the client's messages (a burst): due then, pushed forward by each message
     * that joins it, so one turn answers them all. Any instance's worker claims a due one.
     */
    answerDueAt: timestamp('answer_due_at', { withTimezone: true, mode: 'date' }),
    /** A worker is answering until then; past it (a crash), another worker answers again. */
    answerLockedUntil: timestamp('answer_locked_until', { withTimezone: true, mode: 'date' }),
    /** The request id of the burst's newest message: the owed turn's model calls are billed under it. */
    answerRequestId: text('answer_request_id'),
    /** The keyboard of the assistant's last message (null: it had none): its labels, typed, act as presses. */
    lastKeyboard: jsonb('last_keyboard'),
    /**
     * When a client writing while a person has the dialogue was told their question is with that person:
     * once per hand-over (one earlier than the hand-over's start belongs to an earlier one).
     */
    operatorAckAt: timestamp('operator_ack_at', { withTimezone: true, mode: 'date' }),
    /** When the client was last told they write faster than ASSISTANT_CLIENT_MESSAGES_PER_MINUTE allows. */
    rateNoticeAt: timestamp('rate_notice_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('dialogues_peer_unique').on(t.agentId, t.channel, t.peerId),
    check('dialogues_mode_known', sql`${t.mode} in ('assistant', 'operator')`),
    index('dialogues_agent_activity_idx').on(t.agentId, t.lastMessageAt, t.id),
    index('dialogues_answer_due_idx').on(t.answerDueAt).where(sql`${t.answerDueAt} is not null or ${t.answerLockedUntil} is not null`),
    // The inbox badge: dialogues waiting for a person (handed over, held by nobody) are few; only they are indexed.
    index('dialogues_waiting_idx').on(t.agentId).where(sql`${t.mode} = 'operator' and ${t.heldBy} is null`),
    // The hand-over timeout's sweep looks at every dialogue a person has: few, so only they are indexed.
    index('dialogues_with_person_idx').on(t.heldAt).where(sql`${t.mode} = 'operator'`),
  ],
);

/** The recent turns of a dialogue, which the model sees as context. */
export const dialogueMessages = pgTable(
  'dialogue_messages',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    /**
     * user | assistant | operator | tool (a tool the model called: its name and the result's summary) |
     * note (the owner's internal note: shown in the transcript, never sent to the client nor to the model)
     */
    role: text('role').notNull(),
    content: text('content').notNull(),
    /** Assistant turns the model wrote: the request id of its usage record (model, tokens, cost). */
    requestId: text('request_id'),
    /** Operator turns: who wrote it (the owner's e-mail, the Telegram operator's name). */
    operatorName: text('operator_name'),
    /** Operator turns from the dashboard: the client's id of the reply, so a retried POST sends it once. */
    clientMessageId: text('client_message_id'),
    /** Tool turns: the name of the tool the model called (the content is the result's summary). */
    toolName: text('tool_name'),
    /** User turns with photos the model may look at: each photo's largest size URL, as VK gave it. */
    images: jsonb('images').$type<string[]>(),
    /** Assistant turns sent with a keyboard: its buttons by row (label as the client saw it, payload a press brings back). */
    buttons: jsonb('buttons').$type<{ label: string; payload: string }[][]>(),
    /**
     * User turns: `tap` when the client pressed a button (the content is its label), null for what they wrote.
     * Assistant turns: `unsent` when the owner took the dialogue over before it could go out (kept, never sent).
     */
    kind: text('kind'),
    createdAt: createdAt(),
  },
  (t) => [
    index('dialogue_messages_dialogue_idx').on(t.dialogueId, t.id),
    // The inbox's unread counts: a dialogue's client turns after the owner's last read one, read from the index alone.
    index('dialogue_messages_client_idx').on(t.dialogueId, t.id).where(sql`${t.role} = 'user'`),
    check('dialogue_messages_kind_known', sql`${t.kind} is null or ${t.kind} in ('tap', 'unsent')`),
    uniqueIndex('dialogue_messages_client_message_unique').on(t.dialogueId, t.clientMessageId),
    check('dialogue_messages_role_known', sql`${t.role} in ('user', 'assistant', 'operator', 'tool', 'note')`),
  ],
);

/** The owner's saved replies, usable in any of their agents' dialogues (picked into the reply box, edited before sending). */
export const quickReplies = pgTable(
  'quick_replies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    text: text('text').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('quick_replies_user_idx').on(t.userId, t.title, t.id)],
);
