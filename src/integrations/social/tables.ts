// VK (social): an agent's community settings and the events VK sends.
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns';
import { agents } from '../../agents/tables';

/** The VK community of an agent. The access token and the callback secret are sealed. */
export const socialSettings = pgTable('social_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  groupId: bigint('group_id', { mode: 'number' }).notNull(),
  accessTokenSealed: text('access_token_sealed').notNull(),
  secretKeySealed: text('secret_key_sealed').notNull(),
  confirmationCode: text('confirmation_code'),
  /** The callback server registered in the community for this agent's webhook URL. */
  callbackServerId: integer('callback_server_id'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * Inbox of VK callback events: written before VK is answered `ok`, keyed by the event id so a
 * re-delivery changes nothing, and processed afterwards (again after a crash, until processed_at is set).
 */
export const socialEvents = pgTable(
  'social_events',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    type: text('type').notNull(),
    /** The client the event is about (VK peer or user id): one client's events are handled oldest first, one at a time. */
    clientKey: text('client_key'),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }),
    /** A worker handles the event until then (a model answer takes seconds: no transaction is held). */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    outcome: text('outcome'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ name: 'social_events_pk', columns: [t.agentId, t.eventId] }),
    index('social_events_pending_idx').on(t.receivedAt).where(sql`${t.processedAt} is null`),
    index('social_events_client_pending_idx').on(t.agentId, t.clientKey, t.receivedAt).where(sql`${t.processedAt} is null`),
  ],
);
