// Assistant agents and their owners' notifications.
import { sql } from 'drizzle-orm';
import { boolean, check, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { users } from '../accounts/tables';

/** An assistant of a user. Every agent-scoped route checks `user_id` against the caller. */
export const agents = pgTable(
  'agents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** creator | service | ecommerce */
    type: text('type').notNull(),
    systemPrompt: text('system_prompt').notNull().default(''),
    model: text('model').notNull(),
    /** The owner's switch: clients' photos go to the model as images (its model must take them). */
    acceptsImages: boolean('accepts_images').notNull().default(false),
    /** The owner's switch: a VK voice message without VK's transcript is transcribed through the gateway, billed to the owner. */
    transcribeVoice: boolean('transcribe_voice').notNull().default(false),
    /** The model voice messages are transcribed with; null: TRANSCRIPTION_MODEL. */
    transcriptionModel: text('transcription_model'),
    /**
     * When a person answers clients: `{days: [1..7] (1 = Monday), from: "HH:MM", to: "HH:MM", timeZone?}`;
     * null: not said, so clients are promised no time (agents/working-hours.ts).
     */
    workingHours: jsonb('working_hours'),
    /**
     * Since when the owner's balance could not pay the assistant's model (null: it can): clients are told
     * once per such spell and the owner alerted once; cleared by the next answer paid for.
     */
    outOfBalanceAt: timestamp('out_of_balance_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('agents_user_idx').on(t.userId, t.createdAt), check('agents_type_known', sql`${t.type} in ('creator', 'service', 'ecommerce')`)],
);

/** Notifications of an agent (escalation, payment) as the owner sees them listed. */
export const notifications = pgTable(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    /** escalation | payment | balance (the assistant stopped: the owner's balance cannot pay its model) */
    kind: text('kind').notNull(),
    text: text('text').notNull(),
    /** The escalation id or order number it is about. */
    reference: text('reference'),
    createdAt: createdAt(),
  },
  (t) => [index('notifications_agent_idx').on(t.agentId, t.createdAt)],
);
