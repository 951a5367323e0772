// After the visit (issue 42 point 2): a periodic pass asks YCLIENTS what became of each visit booked in a
// dialogue (the ones followed up) whose time has passed, within a few days' lookback — its record's
// `attendance` (1 came, -1 did not come) — and keeps it on the appointment, where the follow-ups (the review
// request, the nudge, the no-show's message) read it. A record deleted in YCLIENTS cancels the appointment.
// The rows of one pass are claimed by an update (attendance_checked_at), so instances running at once never
// ask twice; the calls go through the YCLIENTS gate's background lane, behind the calls a client waits for.
// Polling only: no YCLIENTS webhook.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../../db/client';
import type { Logger } from '../../logger';
import type { YclientsLimiter } from './limiter';
import type { BookingService } from './service';

/** Visits further back than this are not asked about any more: the salon marks a visit within days, if at all. */
export const ATTENDANCE_LOOKBACK_MS = 3 * 24 * 3600_000;
/** Records asked about per pass (the gate paces them within YCLIENTS' limits). */
const BATCH = 50;
/** A visit asked about is not asked again for this long. */
const RECHECK_MS = 10 * 60_000;

export interface AttendanceSyncResult {
  checked: number;
  came: number;
  noShow: number;
  canceled: number;
  failed: number;
}

export function createAttendanceSync(deps: { db: Database; service: Pick<BookingService, 'readAttendance'>; limiter: YclientsLimiter; logger: Logger }) {
  const { db, logger } = deps;
  return {
    /** One pass at `now` (an injected clock in tests). */
    async run(now: Date): Promise<AttendanceSyncResult> {
      const since = new Date(now.getTime() - ATTENDANCE_LOOKBACK_MS);
      const recheckBefore = new Date(now.getTime() - RECHECK_MS);
      // Not yet final (no attendance read, or still 0/2), past its start, within the lookback; claimed now.
      const claimed = rowsOf<{ id: string }>(
        await db.execute(sql`
          update appointments set attendance_checked_at = ${now.toISOString()}::timestamptz
           where id in (
             select id from appointments
              where status = 'booked' and external_record_id is not null and dialogue_id is not null
                and starts_at <= ${now.toISOString()}::timestamptz and starts_at > ${since.toISOString()}::timestamptz
                and (attendance is null or attendance in (0, 2))
                and (attendance_checked_at is null or attendance_checked_at <= ${recheckBefore.toISOString()}::timestamptz)
              order by attendance_checked_at nulls first, starts_at
              limit ${BATCH}
              for update skip locked)
             and (attendance_checked_at is null or attendance_checked_at <= ${recheckBefore.toISOString()}::timestamptz)
          returning id`),
      );
      const result: AttendanceSyncResult = { checked: 0, came: 0, noShow: 0, canceled: 0, failed: 0 };
      for (const { id } of claimed) {
        try {
          const found = await deps.limiter.background(() => deps.service.readAttendance(id, now));
          result.checked += 1;
          if (found.state === 'canceled') result.canceled += 1;
          else if (found.attendance === 1) result.came += 1;
          else if (found.attendance === -1) result.noShow += 1;
        } catch (error) {
          result.failed += 1;
          logger.warn('attendance sync: the record could not be read in yclients', { appointmentId: id, error });
        }
      }
      if (result.checked + result.failed > 0) logger.info('attendance sync', { ...result });
      return result;
    },
  };
}

export type AttendanceSync = ReturnType<typeof createAttendanceSync>;
