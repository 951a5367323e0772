// The reminder of an unpaid order: once an order placed from a dialogue has waited the shop's
// unpaidReminderHours (default 2; 0 switches it off) and is still pending, its client is reminded once,
// with the payment link. A periodic pass, one instance at a time (an advisory lock), and each order claimed
// by a conditional update of unpaid_reminder_at — the reminder's message (orderUnpaid → the outbox) commits
// with the claim, so neither a second instance nor a restart sends it again. An order paid or cancelled
// meanwhile no longer matches; a client who denied messages is skipped by the listener (claimed, not sent).
// Never at night: a reminder falling due outside the agent's working hours (in its zone) — or, when the owner
// set none, outside the day (09:00–21:00 every day in YCLIENTS_TIME_ZONE, a salon's default quiet hours turned
// round) — is left unclaimed and goes on the first pass after the next working day starts.
import { and, asc, eq, gt, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { availabilityAt, type WorkingHours } from '../agents';
import { agents } from '../agents/tables';
import type { DatabaseHandle } from '../db/client';
import { createPeriodicJob } from '../jobs/periodic';
import type { Logger } from '../logger';
import type { Events } from '../platform/events';
import { orderUnpaid } from './events';
import { commerceSettings, orders } from './tables';

export const UNPAID_REMINDER_LOCK = 'unpaid-order-reminders';
/** A shop that set no working hours is still not written to at night: the day is its working time. */
const DAYTIME: WorkingHours = { days: [1, 2, 3, 4, 5, 6, 7], from: '09:00', to: '21:00' };
const BATCH = 100;

export function createOrderReminders(deps: {
  database: DatabaseHandle;
  events: Pick<Events, 'emitAndWait'>;
  outbox: { wake(): void };
  logger: Logger;
  intervalMs: number;
  /** The zone of working hours that name none (YCLIENTS_TIME_ZONE). */
  timeZone: string;
}) {
  const { database, logger } = deps;
  const db = database.db;

  /**
   * The reminders due at `now` whose shop is at work (its working hours, else the day), oldest first; those of
   * a closed shop are passed over, page by page, so they hold up no other shop's.
   */
  async function dueNow(now: Date): Promise<string[]> {
    const ids: string[] = [];
    let after: { createdAt: Date; id: string } | null = null;
    for (let page = 0; page < 20 && ids.length < BATCH; page++) {
      const rows: { id: string; createdAt: Date; workingHours: unknown }[] = await db
        .select({ id: orders.id, createdAt: orders.createdAt, workingHours: agents.workingHours })
        .from(orders)
        .innerJoin(commerceSettings, eq(commerceSettings.agentId, orders.agentId))
        .innerJoin(agents, eq(agents.id, orders.agentId))
        .where(
          and(
            eq(orders.status, 'pending'),
            isNull(orders.unpaidReminderAt),
            isNotNull(orders.dialogueId),
            gt(commerceSettings.unpaidReminderHours, 0),
            lte(orders.createdAt, sql`${now.toISOString()}::timestamptz - make_interval(hours => ${commerceSettings.unpaidReminderHours})`),
            after ? sql`(${orders.createdAt}, ${orders.id}) > (${after.createdAt.toISOString()}::timestamptz, ${after.id}::uuid)` : undefined,
          ),
        )
        .orderBy(asc(orders.createdAt), asc(orders.id))
        .limit(BATCH);
      for (const row of rows) {
        if (availabilityAt((row.workingHours as WorkingHours | null) ?? DAYTIME, now, deps.timeZone).kind !== 'closed') ids.push(row.id);
      }
      if (rows.length < BATCH) break;
      const last = rows[rows.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
    return ids.slice(0, BATCH);
  }

  /** The reminders due at `now`: claimed and queued; returns how many were claimed. */
  async function remindDue(now: Date): Promise<number> {
    const due = await dueNow(now);
    let claimed = 0;
    for (const id of due) {
      const sent = await db.transaction(async (tx) => {
        const [order] = await tx
          .update(orders)
          .set({ unpaidReminderAt: now })
          .where(and(eq(orders.id, id), eq(orders.status, 'pending'), isNull(orders.unpaidReminderAt)))
          .returning();
        if (!order?.dialogueId) return false;
        await deps.events.emitAndWait(orderUnpaid, {
          tx,
          agentId: order.agentId,
          dialogueId: order.dialogueId,
          orderNumber: order.number,
          totalMinor: order.totalMinor,
          currency: order.currency,
          paymentLink: order.paymentLink,
        });
        return true;
      });
      if (sent) claimed += 1;
    }
    if (claimed > 0) {
      deps.outbox.wake();
      logger.info('unpaid order reminders queued', { count: claimed });
    }
    return claimed;
  }

  let running: Promise<{ ran: boolean; reminded: number }> | null = null;
  /** One pass, unless another instance (or this one) is already running it. Tests call it with their clock. */
  function runOnce(now: Date = new Date()): Promise<{ ran: boolean; reminded: number }> {
    running ??= database
      .withLock(UNPAID_REMINDER_LOCK, () => remindDue(now))
      .then((r) => (r.acquired ? { ran: true, reminded: r.value } : { ran: false, reminded: 0 }))
      .catch((error) => {
        logger.error('unpaid order reminders failed', { error });
        return { ran: false, reminded: 0 };
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const job = createPeriodicJob({ name: 'unpaid order reminders', intervalMs: deps.intervalMs, run: () => runOnce(), logger });
  return {
    runOnce,
    start: () => job.start(),
    async stop() {
      await job.stop();
      await running;
    },
  };
}

export type OrderReminders = ReturnType<typeof createOrderReminders>;
