// After the visit (issue 42 point 2), what a good administrator does by phone. Once YCLIENTS says the client
// came (attendance 1, read by the booking feature's attendance sync): «Как прошёл визит?» with 1–5 buttons a
// while after the visit's end; a low score tells the owner at once through the escalation path (Telegram, or
// mail without a bot) and hands the client to a person, who gets back to them; a high one thanks, with the
// salon's public review page when it set one. N days after the visit (per service, optional) a «записаться
// снова» nudge opens the booking flow for that service and specialist, unless the client already has a visit
// ahead. A client marked as not come (attendance -1) gets «мы вас ждали» when the owner turned it on. Each
// message goes once (visit_followups' unique key, claimed in the transaction that queues it), outside the
// salon's quiet hours, never to a client who denied messages; each score is kept once (visit_reviews).
import { and, eq, gt, isNotNull, lte, sql } from 'drizzle-orm';
import { type Agent, type WorkingHours, zoneOf } from '../agents';
import type { Database } from '../db/client';
import type { BookingService } from '../integrations/booking';
import { appointments, bookingSettings, visitFollowups, visitReviews } from '../integrations/booking/tables';
import type { Escalations } from '../integrations/messenger';
import type { Logger } from '../logger';
import { afterVisitTexts as vt } from './after-visit-texts';
import type { DialogueRow, Say } from './flow';
import { ACTIONS, mainMenu } from './menus';
import { bookedVisits, sendableAt, visitNames } from './reminders';
import { callbackButton, linkButton, type ButtonPayload, type ReplyButtons } from './reply';
import { assistantTexts as t, formatSlot } from './texts';

export const AFTER_VISIT_ACTIONS = { review: 'visit_review' } as const;

const DAY_MS = 24 * 3600_000;
/** Nothing after a visit is sent later than this after its time: a late «как прошёл визит» is worse than none. */
const LATE_MS = 3 * DAY_MS;
/** A visit whose length YCLIENTS cannot tell is taken to last this long. */
const DEFAULT_LENGTH_MINUTES = 60;
/** Rows looked at per kind and pass. */
const BATCH = 200;

type Kind = 'review' | 'rebook' | 'no_show';
type Row = {
  appointment: typeof appointments.$inferSelect;
  dialogue: DialogueRow;
  settings: typeof bookingSettings.$inferSelect;
  workingHours: unknown;
};

function reviewButtons(appointmentId: string): ReplyButtons {
  return [[1, 2, 3, 4, 5].map((n) => callbackButton(String(n), { action: AFTER_VISIT_ACTIONS.review, a: appointmentId, n }, n >= 4 ? 'positive' : 'secondary'))];
}

/** The booking flow's own «choose a time» for this service and specialist (booking-flow.ts ACTIONS.pickService). */
function bookAgainButtons(label: string, a: { specialistId: string; serviceId: string }): ReplyButtons {
  return [[callbackButton(label, { action: ACTIONS.pickService, s: a.specialistId, v: a.serviceId }, 'positive')]];
}

export interface AfterVisitDeps {
  db: Database;
  booking: Pick<BookingService, 'specialists' | 'services'>;
  escalations: Pick<Escalations, 'escalate'>;
  /** Where the owner opens the dialogue in the dashboard (the low score's notice). */
  dialogueUrl(agentId: string, dialogueId: string): string;
  /** The salon's zone for its quiet hours when the agent's working hours name none (YCLIENTS_TIME_ZONE). */
  timeZone: string;
  logger: Logger;
}

export function createAfterVisit(deps: AfterVisitDeps) {
  const { db, booking, logger } = deps;

  async function names(agentId: string, specialistId: string, serviceId: string) {
    const n = await visitNames(booking, agentId, specialistId, serviceId);
    return { ...n, minutes: n.minutes ?? DEFAULT_LENGTH_MINUTES };
  }

  /** The visits of one kind whose message may be due: past, recent enough, in a dialogue that may be written to, not yet done. */
  function candidates(kind: Kind, now: Date, extra: ReturnType<typeof and>) {
    return bookedVisits(
      db,
      lte(appointments.startsAt, now),
      sql`not exists (select 1 from ${visitFollowups} f where f.appointment_id = ${appointments.id} and f.kind = ${kind})`,
      extra,
    ).limit(BATCH);
  }

  const zoneOfRow = (r: Row) => zoneOf(r.workingHours as WorkingHours | null, deps.timeZone);
  const quietOf = (r: Row) => ({ from: r.settings.quietFromMinutes, to: r.settings.quietToMinutes });

  /** Claims the follow-up and queues its message in one transaction; false when another pass had it. */
  async function claim(r: Row, kind: Kind, outcome: 'sent' | 'skipped', say: Say, message?: { text: string; buttons: ReplyButtons }): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [claimed] = await tx
        .insert(visitFollowups)
        .values({ appointmentId: r.appointment.id, kind, outcome })
        .onConflictDoNothing()
        .returning({ id: visitFollowups.id });
      if (claimed && message) await say(r.dialogue, message.text, message.buttons, tx);
      return Boolean(claimed);
    });
  }

  return {
    /** Queues every after-visit message due at `now` (an injected clock in tests) through `say`. */
    async sendDue(now: Date, say: Say): Promise<{ sent: number; skipped: number }> {
      const at = now.getTime();
      let sent = 0;
      let skipped = 0;
      const count = (done: boolean, outcome: 'sent' | 'skipped') => {
        if (done && outcome === 'sent') sent += 1;
        else if (done) skipped += 1;
      };
      // The attendance sync reads visits of the last 3 days; the request may wait up to 3 days more (its delay).
      const recent = gt(appointments.startsAt, new Date(at - 2 * LATE_MS));

      // The review request: a while after the visit's end, once YCLIENTS says the client came.
      for (const r of await candidates('review', now, and(eq(appointments.attendance, 1), isNotNull(bookingSettings.reviewDelayMinutes), recent))) {
        const a = r.appointment;
        const n = await names(a.agentId, a.specialistId, a.serviceId);
        const after = Math.max(a.startsAt.getTime() + n.minutes * 60_000 + (r.settings.reviewDelayMinutes ?? 0) * 60_000, a.attendanceAt?.getTime() ?? 0);
        if (sendableAt(after, quietOf(r), zoneOfRow(r)) > at) continue;
        count(await claim(r, 'review', 'sent', say, { text: vt.reviewRequest({ when: formatSlot(a.datetime), ...n }), buttons: reviewButtons(a.id) }), 'sent');
      }

      // «Мы вас ждали»: when the owner turned it on, once the salon marked the client as not come.
      for (const r of await candidates('no_show', now, and(eq(appointments.attendance, -1), eq(bookingSettings.noShowMessage, true), recent))) {
        const a = r.appointment;
        if (sendableAt(a.attendanceAt?.getTime() ?? at, quietOf(r), zoneOfRow(r)) > at) continue;
        const n = await names(a.agentId, a.specialistId, a.serviceId);
        const text = vt.noShow({ when: formatSlot(a.datetime), ...n });
        count(await claim(r, 'no_show', 'sent', say, { text, buttons: bookAgainButtons(vt.buttonNoShowRebook, a) }), 'sent');
      }

      // «Записаться снова»: the service's days after an attended visit, unless a visit is booked ahead already.
      const days = sql`(${bookingSettings.rebookDays} ->> ${appointments.serviceId})::int`;
      const rebookDue = and(
        eq(appointments.attendance, 1),
        sql`${days} is not null`,
        sql`${appointments.startsAt} + make_interval(days => ${days}) <= ${now.toISOString()}::timestamptz`,
      );
      for (const r of await candidates('rebook', now, rebookDue)) {
        const a = r.appointment;
        const due = sendableAt(a.startsAt.getTime() + (r.settings.rebookDays[a.serviceId] ?? 0) * DAY_MS, quietOf(r), zoneOfRow(r));
        if (due > at) continue;
        const [ahead] = await db
          .select({ id: appointments.id })
          .from(appointments)
          .where(and(eq(appointments.dialogueId, r.dialogue.id), eq(appointments.status, 'booked'), gt(appointments.startsAt, now)))
          .limit(1);
        // Booked again already, or the nudge's time long gone (the setting came later): nothing is sent.
        if (ahead || due < at - LATE_MS) {
          count(await claim(r, 'rebook', 'skipped', say), 'skipped');
          continue;
        }
        const n = await names(a.agentId, a.specialistId, a.serviceId);
        const text = vt.rebook({ when: formatSlot(a.datetime), ...n });
        count(await claim(r, 'rebook', 'sent', say, { text, buttons: bookAgainButtons(vt.buttonRebook, a) }), 'sent');
      }
      if (sent + skipped > 0) logger.info('after-visit messages', { sent, skipped });
      return { sent, skipped };
    },

    /** A score button under the review request; null when the payload is not one. */
    async act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload, say: Say): Promise<string | null> {
      if (payload.action !== AFTER_VISIT_ACTIONS.review) return null;
      const score = Number(payload.n);
      const appointmentId = typeof payload.a === 'string' ? payload.a : '';
      const [own] = await db
        .select()
        .from(appointments)
        .where(and(eq(appointments.agentId, agent.id), eq(appointments.dialogueId, dialogue.id), sql`${appointments.id}::text = ${appointmentId}`))
        .limit(1);
      if (!own || !Number.isInteger(score) || score < 1 || score > 5) {
        await say(dialogue, t.tapUnknown, mainMenu(agent.type));
        return 'review_unknown';
      }
      const [settings] = await db.select().from(bookingSettings).where(eq(bookingSettings.agentId, agent.id)).limit(1);
      const low = score <= (settings?.reviewLowScore ?? 3);
      const n = low ? await names(agent.id, own.specialistId, own.serviceId) : null;
      const outcome = await db.transaction(async (tx) => {
        const [kept] = await tx
          .insert(visitReviews)
          .values({ appointmentId: own.id, agentId: agent.id, dialogueId: dialogue.id, score })
          .onConflictDoNothing()
          .returning({ id: visitReviews.id });
        if (!kept) return 'review_repeated';
        if (n) {
          // The escalation path: the owner hears at once (Telegram, or mail without a bot), the inbox shows the
          // client waiting, and whoever answers there reaches the client.
          const reason = vt.lowScoreReason({
            score,
            when: formatSlot(own.datetime),
            service: n.service,
            specialist: n.specialist,
            client: own.clientName,
            link: deps.dialogueUrl(agent.id, dialogue.id),
          });
          await deps.escalations.escalate(
            { agentId: agent.id, channel: dialogue.channel, peerId: dialogue.peerId, clientPhone: dialogue.clientPhone ?? own.clientPhone, reason },
            tx,
          );
          await say(dialogue, vt.apology, undefined, tx);
          return 'review_low';
        }
        const url = settings?.reviewUrl;
        if (url) await say(dialogue, `${vt.thanksHigh}\n${vt.askPublicReview}`, [[linkButton(vt.buttonPublicReview, url)]], tx);
        else await say(dialogue, vt.thanksHigh, mainMenu(agent.type), tx);
        return 'review_high';
      });
      if (outcome === 'review_repeated') {
        const [first] = await db.select({ score: visitReviews.score }).from(visitReviews).where(eq(visitReviews.appointmentId, own.id));
        await say(dialogue, vt.alreadyScored(first?.score ?? score), mainMenu(agent.type));
      } else {
        logger.info('visit review', { agentId: agent.id, appointmentId: own.id, score });
      }
      return outcome;
    },
  };
}

export type AfterVisit = ReturnType<typeof createAfterVisit>;
