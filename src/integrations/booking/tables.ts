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
  /** After the visit (issue 42 point 2): «Как прошёл визит?» this long after its end; null: not asked. */
  reviewDelayMinutes: integer('review_delay_minutes').default(120),
  /** A score at or below this one tells the owner at once and hands the client to a person. */
  reviewLowScore: integer('review_low_score').notNull().default(3),
  /** The salon's public review page, offered after a high score; null: none. */
  reviewUrl: text('review_url'),
  /** «Записаться снова»: the agent's service id → days after an attended visit; a service not named gets none. */
  rebookDays: jsonb('rebook_days').$type<Record<string, number>>().notNull().default({}),
  /** «Мы вас ждали»: a message to a client marked as not come (attendance -1); off unless the owner turns it on. */
  noShowMessage: boolean('no_show_message').notNull().default(false),
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
    /** YCLIENTS' `attendance` of the record once read after the visit: 1 came, -1 did not come, 2 confirmed, 0 waiting. */
    attendance: integer('attendance'),
    /** When that value was first read here (the follow-ups count from it). */
    attendanceAt: timestamp('attendance_at', { withTimezone: true, mode: 'date' }),
    /** When the attendance sync last asked YCLIENTS (claimed by one pass at a time). */
    attendanceCheckedAt: timestamp('attendance_checked_at', { withTimezone: true, mode: 'date' }),
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

// One row per message after a visit (the review request, the «записаться снова» nudge, the no-show's «мы вас
// ждали»): its unique key (appointment, kind) makes each go once across instances and restarts.
export const visitFollowups = pgTable(
  'visit_followups',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appointmentId: uuid('appointment_id')
      .notNull()
      .references(() => appointments.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['review', 'rebook', 'no_show'] }).notNull(),
    /** sent: queued to the client; skipped: not to be sent (an upcoming booking already, or its time long gone). */
    outcome: text('outcome', { enum: ['sent', 'skipped'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('visit_followups_once').on(t.appointmentId, t.kind)],
);

// A client's score of a visit (1–5), one per appointment: a second tap changes nothing.
export const visitReviews = pgTable(
  'visit_reviews',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    appointmentId: uuid('appointment_id')
      .notNull()
      .references(() => appointments.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    dialogueId: uuid('dialogue_id').references(() => dialogues.id, { onDelete: 'set null' }),
    score: integer('score').notNull(),
    comment: text('comment'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('visit_reviews_appointment_unique').on(t.appointmentId), index('visit_reviews_agent_idx').on(t.agentId, t.createdAt)],
);
