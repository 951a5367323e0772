// VK (social): an agent's community settings and the events VK sends.
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns';
import { agents } from '../../agents/tables';
import { outbox } from '../../jobs/tables';

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

/**
 * A message the owner sent to the agent's VK clients who allow messages. `requestId` is the page's id of
 * the sending, so a retried POST makes no second broadcast; `text` is what every recipient gets.
 */
export const broadcasts = pgTable(
  'broadcasts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    requestId: text('request_id').notNull(),
    text: text('text').notNull(),
    /** How many clients it was queued for (those allowing messages and not unsubscribed at that moment). */
    recipients: integer('recipients').notNull(),
    createdAt: createdAt(),
  },
  (t) => [unique('broadcasts_request_unique').on(t.agentId, t.requestId), index('broadcasts_agent_idx').on(t.agentId, t.createdAt)],
);

/**
 * One client of a broadcast: the primary key makes it once per client, and its outbox row (queued in the
 * same transaction) is what delivers it — its status is the delivery's outcome.
 */
export const broadcastRecipients = pgTable(
  'broadcast_recipients',
  {
    broadcastId: uuid('broadcast_id')
      .notNull()
      .references(() => broadcasts.id, { onDelete: 'cascade' }),
    peerId: text('peer_id').notNull(),
    outboxId: bigint('outbox_id', { mode: 'number' }).references(() => outbox.id, { onDelete: 'set null' }),
    /** Why it was not sent after all: the client denied messages or unsubscribed between queueing and sending. */
    skipped: text('skipped'),
  },
  (t) => [primaryKey({ name: 'broadcast_recipients_pk', columns: [t.broadcastId, t.peerId] }), index('broadcast_recipients_outbox_idx').on(t.outboxId)],
);
