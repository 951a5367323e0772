// An agent's integrations: Telegram (messenger), VK (social) and YCLIENTS (booking).
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';
import { agents } from './agents';
import { dialogues } from './dialogues';

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

// YCLIENTS settings of a Service agent; every credential sealed by the secret box.
export const bookingSettings = pgTable('booking_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  partnerTokenSealed: text('partner_token_sealed').notNull(),
  loginSealed: text('login_sealed').notNull(),
  passwordSealed: text('password_sealed').notNull(),
  companyId: integer('company_id').notNull(),
  syncEnabled: boolean('sync_enabled').notNull().default(false),
  slotCacheTtlMinutes: integer('slot_cache_ttl_minutes').notNull().default(15),
  specialistMapping: jsonb('specialist_mapping').$type<Record<string, number>>().notNull().default({}),
  serviceMapping: jsonb('service_mapping').$type<Record<string, number>>().notNull().default({}),
  lastSyncAt: timestamp('last_sync_at', { withTimezone: true, mode: 'date' }),
  lastSyncError: text('last_sync_error'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

// What YCLIENTS answered (administrator token sealed, specialists, services, free times), shared by
// every instance until it expires.
export const bookingCache = pgTable(
  'booking_cache',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    value: jsonb('value').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ name: 'booking_cache_pk', columns: [t.agentId, t.key] }), index('booking_cache_expires_idx').on(t.expiresAt)],
);

// Appointments booked through an agent. The unique index is what stops a double booking: a claim row
// ('pending') is inserted before YCLIENTS is asked, so of concurrent requests for one start only one
// gets that far; a failed booking deletes its claim.
export const appointments = pgTable(
  'appointments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    specialistId: text('specialist_id').notNull(),
    serviceId: text('service_id').notNull(),
    staffId: integer('staff_id').notNull(),
    externalServiceId: integer('external_service_id').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The start as YCLIENTS wrote it, with the company's offset. */
    datetime: text('datetime').notNull(),
    clientName: text('client_name').notNull(),
    clientPhone: text('client_phone').notNull(),
    /** pending: claimed, YCLIENTS not yet answered; booked; canceled: the record deleted in YCLIENTS. */
    status: text('status', { enum: ['pending', 'booked', 'canceled'] }).notNull(),
    externalRecordId: text('external_record_id'),
    /** Who booked it: the owner's API, the dialogue's buttons, or the model's book_appointment tool. */
    source: text('source', { enum: ['api', 'button', 'model'] }).notNull(),
    /**
     * The client dialogue the appointment was booked in (buttons or the model): a client may list and
     * cancel only these. Null for the API's bookings; cleared when the dialogue is deleted.
     */
    dialogueId: uuid('dialogue_id').references(() => dialogues.id, { onDelete: 'set null' }),
    canceledAt: timestamp('canceled_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // A canceled appointment frees its slot for the next booking.
    uniqueIndex('appointments_slot_unique').on(t.agentId, t.staffId, t.startsAt).where(sql`${t.status} <> 'canceled'`),
    index('appointments_pending_idx').on(t.status, t.createdAt),
    index('appointments_dialogue_idx').on(t.dialogueId).where(sql`${t.dialogueId} is not null`),
  ],
);

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
