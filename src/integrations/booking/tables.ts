// YCLIENTS (booking): an agent's settings, the cached schedule and the appointments made.
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../../db/columns';
import { agents } from '../../agents/tables';
import { dialogues } from '../../dialogues/tables';

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
  /** Visit reminders: minutes before the visit each one goes (24 h and 2 h by default); empty: none. */
  reminderOffsetsMinutes: jsonb('reminder_offsets_minutes').$type<number[]>().notNull().default([1440, 120]),
  /** The salon's quiet night hours in its own zone, minutes after midnight: no reminder goes between them. */
  quietFromMinutes: integer('quiet_from_minutes')
    .notNull()
    .default(21 * 60),
  quietToMinutes: integer('quiet_to_minutes')
    .notNull()
    .default(9 * 60),
  /**
   * Issue 42 point 4: link the client's upcoming YCLIENTS records made elsewhere (a phone call, the widget) whose
   * card's phone and name match what the client gave in the dialogue. Off by default: a typed phone is not verified.
   */
  matchClientRecords: boolean('match_client_records').notNull().default(false),
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
    /**
     * Who booked it: the owner's API, the dialogue's buttons, or the model's book_appointment tool; 'matched': a
     * record made elsewhere in YCLIENTS, linked to the dialogue whose client's phone and name match (match.ts).
     */
    source: text('source', { enum: ['api', 'button', 'model', 'matched'] }).notNull(),
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
    // One live row per YCLIENTS record: a record is linked to one dialogue, once, however many times matching runs.
    uniqueIndex('appointments_record_unique').on(t.agentId, t.externalRecordId).where(sql`${t.status} <> 'canceled' and ${t.externalRecordId} is not null`),
  ],
);

// One row per visit reminder sent: the unique key (appointment, offset, the visit's start) is what makes it
// go once across instances and restarts; a moved visit has a new start, so it is reminded of again.
export const appointmentReminders = pgTable(
  'appointment_reminders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appointmentId: uuid('appointment_id')
      .notNull()
      .references(() => appointments.id, { onDelete: 'cascade' }),
    offsetMinutes: integer('offset_minutes').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** sent: queued to the client; skipped: its time fell in the quiet hours and the visit came first. */
    outcome: text('outcome', { enum: ['sent', 'skipped'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('appointment_reminders_once').on(t.appointmentId, t.offsetMinutes, t.startsAt)],
);
