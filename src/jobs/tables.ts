// The outbox: messages that must leave the service, delivered by the outbox worker.
import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { agents, notifications } from '../agents/tables';

/**
 * Messages that must leave the service, one row per recipient, written in the transaction of their
 * cause and delivered by the outbox worker. A row is marked sent as soon as its recipient is served.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** Which handler delivers it, e.g. "messenger.message". */
    kind: text('kind').notNull(),
    agentId: uuid('agent_id').references(() => agents.id, { onDelete: 'cascade' }),
    notificationId: uuid('notification_id').references(() => notifications.id, { onDelete: 'cascade' }),
    recipient: text('recipient').notNull(),
    /**
     * Rows of one lane are delivered one at a time, lowest id first (one bot's messages in order, one
     * account's webhook calls never more than one at once); lanes are delivered side by side. Null: a row
     * queued before lanes, its own lane.
     */
    lane: text('lane'),
    payload: jsonb('payload').notNull(),
    /** pending | sent | failed */
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** A worker claimed the row until then; after it, another worker may take it over. */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    /** What the recipient's side answered (e.g. the Telegram chat and message id). */
    result: jsonb('result'),
    createdAt: createdAt(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index('outbox_lane_idx').on(t.lane).where(sql`${t.status} = 'pending'`),
    index('outbox_notification_idx').on(t.notificationId),
    index('outbox_agent_idx').on(t.agentId, t.createdAt),
    check('outbox_status_known', sql`${t.status} in ('pending', 'sent', 'failed')`),
  ],
);
