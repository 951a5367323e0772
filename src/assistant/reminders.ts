// Visit reminders (issue 42 point 1): for every upcoming YCLIENTS record booked in a dialogue, a VK message
// at each of the agent's offsets before the visit (24 h and 2 h by default), never in the salon's quiet
// night hours — one due in them goes when they end if that is still before the visit, else is skipped —
// with «Подтвердить» / «Перенести» / «Отменить». A row in appointment_reminders (unique: appointment, offset,
// the visit's start) is written in the transaction that queues the message, so each goes once across
// instances and restarts; a visit moved since has a new start and is reminded of its new time, a visit
// cancelled is no longer booked and gets nothing. Clients who denied messages are not written to.
import { and, eq, gt, isNotNull, lte, ne, or, isNull, type SQL } from 'drizzle-orm';
import { type Agent, type WorkingHours, zoneOf } from '../agents';
import { agents } from '../agents/tables';
import type { Database } from '../db/client';
import { dialogues } from '../dialogues/tables';
import type { BookingService } from '../integrations/booking';
import { appointmentReminders, appointments, bookingSettings } from '../integrations/booking/tables';
import type { Logger } from '../logger';
import type { DialogueRow, Say, SetFlow } from './flow';
import { flowTexts as ft } from './flow-texts';
import { ACTIONS, mainMenu } from './menus';
import { callbackButton, type ButtonPayload, type ReplyButtons } from './reply';
import { reminderTexts as rt } from './reminder-texts';
import { assistantTexts as t, formatSlot } from './texts';

/** The reminder's own button actions («Перенести» is the booking flow's ACTIONS.reschedule). */
export const REMINDER_ACTIONS = {
  confirm: 'visit_confirm',
  cancel: 'visit_cancel',
  cancelYes: 'visit_cancel_yes',
  keep: 'visit_keep',
} as const;

/** No offset may be longer than this (the settings' own limit): visits further out are not looked at. */
const LOOKAHEAD_MS = 7 * 24 * 3600_000;
const DAY_MINUTES = 24 * 60;

/** Minutes after midnight it is in `timeZone` at `at`. */
function minutesOfDay(timeZone: string, at: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: 'numeric', minute: 'numeric' }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/** Whether minute `m` of the day lies in the quiet hours [from, to) (which may run past midnight). */
function inQuiet(m: number, from: number, to: number): boolean {
  if (from === to) return false;
  return from < to ? m >= from && m < to : m >= from || m < to;
}

/**
 * When a reminder due at `due` may go: `due` itself, or the end of the quiet hours it falls in (the
 * minute-of-day difference, counted in the salon's zone at the moment of sending).
 */
export function sendableAt(due: number, quiet: { from: number; to: number }, timeZone: string): number {
  const m = minutesOfDay(timeZone, due);
  if (!inQuiet(m, quiet.from, quiet.to)) return due;
  const wait = (quiet.to - m + DAY_MINUTES) % DAY_MINUTES;
  // Down to the minute: the end is on the hour or minute the owner set.
  return Math.floor(due / 60_000) * 60_000 + wait * 60_000;
}

/**
 * A visit's service and specialist by name for a message about it (and the service's length in minutes, null
 * when unknown); their ids when YCLIENTS cannot be read now — the message goes all the same.
 */
export async function visitNames(booking: Pick<BookingService, 'specialists' | 'services'>, agentId: string, specialistId: string, serviceId: string) {
  const [specialists, services] = await Promise.all([booking.specialists(agentId).catch(() => []), booking.services(agentId).catch(() => [])]);
  const service = services.find((v) => v.id === serviceId);
  return {
    specialist: specialists.find((s) => s.id === specialistId)?.name ?? specialistId,
    service: service?.title ?? serviceId,
    minutes: service?.durationMinutes ?? null,
  };
}

/**
 * Booked visits in a dialogue that may still be written to, with the agent's YCLIENTS settings and working
 * hours: what the reminders before a visit and the messages after it both read, each with its own `conditions`.
 */
export function bookedVisits(db: Database, ...conditions: (SQL | undefined)[]) {
  return db
    .select({ appointment: appointments, dialogue: dialogues, settings: bookingSettings, workingHours: agents.workingHours })
    .from(appointments)
    .innerJoin(dialogues, eq(dialogues.id, appointments.dialogueId))
    .innerJoin(bookingSettings, eq(bookingSettings.agentId, appointments.agentId))
    .innerJoin(agents, eq(agents.id, appointments.agentId))
    .where(and(eq(appointments.status, 'booked'), or(isNull(dialogues.messagingAllowed), ne(dialogues.messagingAllowed, false)), ...conditions));
}

function reminderButtons(appointmentId: string): ReplyButtons {
  return [
    [
      callbackButton(rt.buttonConfirm, { action: REMINDER_ACTIONS.confirm, a: appointmentId }, 'positive'),
      callbackButton(rt.buttonReschedule, { action: ACTIONS.reschedule, a: appointmentId }, 'primary'),
    ],
    [callbackButton(rt.buttonCancel, { action: REMINDER_ACTIONS.cancel, a: appointmentId }, 'negative')],
  ];
}

export interface VisitRemindersDeps {
  db: Database;
  booking: Pick<BookingService, 'specialists' | 'services' | 'appointmentsOf' | 'confirm' | 'cancel' | 'recheck'>;
  /** The salon's zone for its quiet hours when the agent's working hours name none (YCLIENTS_TIME_ZONE). */
  timeZone: string;
  logger: Logger;
}

export function createVisitReminders(deps: VisitRemindersDeps) {
  const { db, booking, logger } = deps;

  const names = (agentId: string, specialistId: string, serviceId: string) => visitNames(booking, agentId, specialistId, serviceId);

  return {
    /**
     * Queues every reminder due at `now` (an injected clock in tests) through `say`; returns how many were
     * sent and skipped. Safe to run on any number of instances at once: the unique key decides.
     */
    async sendDue(now: Date, say: Say): Promise<{ sent: number; skipped: number }> {
      const rows = await bookedVisits(
        db,
        isNotNull(appointments.externalRecordId),
        gt(appointments.startsAt, now),
        lte(appointments.startsAt, new Date(now.getTime() + LOOKAHEAD_MS)),
      );
      let sent = 0;
      let skipped = 0;
      for (const { appointment: a, dialogue, settings, workingHours } of rows) {
        // The agent's own zone (its working hours) when the owner set one, else the salon's configured one.
        const zone = zoneOf(workingHours as WorkingHours | null, deps.timeZone);
        const start = a.startsAt.getTime();
        const quiet = { from: settings.quietFromMinutes, to: settings.quietToMinutes };
        // Longest offset first; only the latest one already due is sent, the earlier ones are overtaken.
        const offsets = [...settings.reminderOffsetsMinutes].sort((x, y) => y - x);
        const planned = offsets.map((offset) => ({ offset, at: sendableAt(start - offset * 60_000, quiet, zone) }));
        const due = planned.filter((r) => r.at <= now.getTime() && r.at < start);
        const work = [
          // Only the latest one already due is sent: the earlier ones were overtaken (the job was down, or the
          // visit was booked or moved after their time) and are never sent late.
          ...due.map((r, i) => ({ ...r, outcome: i < due.length - 1 || r.at < a.updatedAt.getTime() ? ('skipped' as const) : ('sent' as const) })),
          // Due in quiet hours that last until the visit: skipped once its own time has come.
          ...planned.filter((r) => r.at >= start && start - r.offset * 60_000 <= now.getTime()).map((r) => ({ ...r, outcome: 'skipped' as const })),
        ];
        if (work.length === 0) continue;
        // Those already written (sent or skipped on an earlier pass) are done: YCLIENTS is not asked again for them.
        const done = new Set(
          (
            await db
              .select({ offset: appointmentReminders.offsetMinutes })
              .from(appointmentReminders)
              .where(and(eq(appointmentReminders.appointmentId, a.id), eq(appointmentReminders.startsAt, a.startsAt)))
          ).map((x) => x.offset),
        );
        const todo = work.filter((r) => !done.has(r.offset));
        if (todo.length === 0) continue;
        if (todo.some((r) => r.outcome === 'sent')) {
          // The salon may have cancelled or moved the record in YCLIENTS since: asked just before sending. A
          // moved visit is reminded of its new time on a later pass; YCLIENTS unreachable: the next pass asks again.
          const state = await booking.recheck(a.id, a.startsAt).catch((error) => {
            logger.warn('visit reminder: the record could not be checked in yclients', { agentId: a.agentId, appointmentId: a.id, error });
            return 'unknown' as const;
          });
          if (state !== 'same') continue;
        }
        for (const r of todo) {
          const { outcome } = r;
          // Read before the transaction: the names come through the booking cache, on the database's own connections.
          const n = outcome === 'sent' ? await names(a.agentId, a.specialistId, a.serviceId) : null;
          const queued = await db.transaction(async (tx) => {
            const [claimed] = await tx
              .insert(appointmentReminders)
              .values({ appointmentId: a.id, offsetMinutes: r.offset, startsAt: a.startsAt, outcome })
              .onConflictDoNothing()
              .returning({ id: appointmentReminders.id });
            if (!claimed || !n) return Boolean(claimed);
            await say(dialogue as DialogueRow, rt.reminder({ when: formatSlot(a.datetime), ...n }), reminderButtons(a.id), tx);
            return true;
          });
          if (!queued) continue;
          if (outcome === 'sent') sent += 1;
          else skipped += 1;
        }
      }
      if (sent + skipped > 0) logger.info('visit reminders', { sent, skipped });
      return { sent, skipped };
    },

    /** A reminder's button; null when the payload is not one of them. */
    async act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload, tools: { say: Say; setFlow: SetFlow }): Promise<string | null> {
      const actions: string[] = Object.values(REMINDER_ACTIONS);
      if (!actions.includes(payload.action)) return null;
      const appointmentId = typeof payload.a === 'string' ? payload.a : '';
      const gone = async () => {
        await tools.say(dialogue, ft.appointmentGone, mainMenu(agent.type));
        return 'appointment_gone';
      };
      try {
        const own = (await booking.appointmentsOf(agent.id, dialogue.id)).find((x) => x.id === appointmentId);
        if (!own) return gone();
        const when = formatSlot(own.datetime);
        switch (payload.action) {
          case REMINDER_ACTIONS.confirm:
            if (!(await booking.confirm(agent.id, own.id, dialogue.id))) return gone();
            await tools.say(dialogue, rt.confirmed(when), mainMenu(agent.type));
            return 'visit_confirmed';
          case REMINDER_ACTIONS.cancel: {
            const n = await names(agent.id, own.specialistId, own.serviceId);
            await tools.say(dialogue, rt.askCancel({ when, ...n }), [
              [
                callbackButton(rt.buttonCancelYes, { action: REMINDER_ACTIONS.cancelYes, a: own.id }, 'negative'),
                callbackButton(rt.buttonKeep, { action: REMINDER_ACTIONS.keep, a: own.id }, 'secondary'),
              ],
            ]);
            return 'visit_cancel_asked';
          }
          case REMINDER_ACTIONS.cancelYes:
            if (!(await booking.cancel(agent.id, own.id, dialogue.id))) return gone();
            await tools.say(dialogue, rt.canceled(when), mainMenu(agent.type));
            return 'visit_canceled';
          default:
            await tools.say(dialogue, rt.kept(when), mainMenu(agent.type));
            return 'visit_kept';
        }
      } catch (error) {
        logger.warn('a visit reminder button failed', { agentId: agent.id, action: payload.action, error });
        await tools.say(dialogue, t.bookingFailed, mainMenu(agent.type));
        return 'booking_failed';
      }
    },
  };
}

export type VisitReminders = ReturnType<typeof createVisitReminders>;
