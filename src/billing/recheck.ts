// The safety net under notifications: on a timer, one instance at a time (an advisory lock across
// everything sharing the database) re-reads pending top-ups older than TOPUP_RECHECK_SECONDS through the
// same path as a notification, so a notification YooKassa gave up on, or one that arrived while YooKassa
// could not be asked, still credits.
import type { DatabaseHandle } from '../db/client';
import { createPeriodicJob } from '../jobs/periodic';
import type { Logger } from '../logger';
import type { RecheckResult, TopupService } from './topups';

export const TOPUP_RECHECK_LOCK = 'topup-recheck';

export function createTopupRecheck(deps: { database: DatabaseHandle; topups: TopupService; logger: Logger; intervalMs: number }) {
  const { database, topups, logger } = deps;
  let running: Promise<RecheckResult & { ran: boolean }> | null = null;
  const idle = { ran: false, checked: 0, credited: 0, canceled: 0, failed: 0 };

  /** One pass, unless another instance (or this one) is already running it. Tests call it directly. */
  function runOnce(): Promise<RecheckResult & { ran: boolean }> {
    running ??= database
      .withLock(TOPUP_RECHECK_LOCK, () => topups.recheckDue())
      .then((r) => {
        if (!r.acquired) return idle;
        if (r.value.checked > 0 || r.value.canceled > 0) logger.info('top-up re-check finished', { ...r.value });
        return { ran: true, ...r.value };
      })
      .catch((error) => {
        logger.error('top-up re-check failed', { error });
        return idle;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const job = createPeriodicJob({ name: 'top-up re-check', intervalMs: deps.intervalMs, run: runOnce, logger });

  return {
    runOnce,
    start: () => job.start(),
    async stop() {
      await job.stop();
      await running;
    },
  };
}

export type TopupRecheck = ReturnType<typeof createTopupRecheck>;
