// The monthly issue of closing documents: every ten minutes, on one instance at a time (an advisory lock across all
// sharing the database), the month that ended last in Moscow time gets its documents — nothing for accounts
// that already have them, so the runs after the first issue nothing (and this process, once a month is done, no longer asks until the
// next month ends). Without the operator's requisites
// the run issues nothing and waits for them (the next run after they are set issues the month).
import type { DatabaseHandle } from '../db/client';
import { AppError } from '../http/errors';
import { createPeriodicJob } from '../jobs/periodic';
import type { Logger } from '../logger';
import type { ClosingDocument, ClosingDocuments } from './closing-documents';
import { moscowMonth } from './moscow';

export const CLOSING_DOCUMENTS_LOCK = 'closing-documents';
/** Often enough that a month's documents come within minutes of its end, and a restart does not skip a run. */
const CHECK_MS = 10 * 60_000;

/** The month before `month` (YYYY-MM). */
export function previousMonth(month: string): string {
  const [year, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  return m === 1 ? `${String(year - 1).padStart(4, '0')}-12` : `${month.slice(0, 4)}-${String(m - 1).padStart(2, '0')}`;
}

export function createClosingJob(deps: { database: DatabaseHandle; closing: ClosingDocuments; flush: () => Promise<void>; logger: Logger }) {
  const { database, closing, logger } = deps;
  /** The month this process has seen issued in full (requisites set): later timer runs skip it. */
  let done: string | null = null;

  /** One pass for the month ended last before `now`; `ran: false` when another instance holds the lock. */
  async function runOnce(now = new Date()): Promise<{ ran: boolean; month: string; issued: ClosingDocument[] }> {
    const month = previousMonth(moscowMonth(now));
    await deps.flush();
    const outcome = await database.withLock(CLOSING_DOCUMENTS_LOCK, async () => {
      try {
        return await closing.issueMonth(month, now);
      } catch (error) {
        // Requisites not set yet: nothing to issue with; the next run tries again.
        if (error instanceof AppError && error.type === 'conflict') return null;
        throw error;
      }
    });
    if (!outcome.acquired) return { ran: false, month, issued: [] };
    if (outcome.value !== null) done = month;
    const issued = outcome.value ?? [];
    if (issued.length > 0) logger.info('closing documents issued', { month, issued: issued.length });
    return { ran: true, month, issued };
  }

  const job = createPeriodicJob({
    name: 'closing documents',
    intervalMs: CHECK_MS,
    run: () => (done === previousMonth(moscowMonth(new Date())) ? Promise.resolve() : runOnce()),
    logger,
  });
  return { runOnce, start: () => job.start(), stop: () => job.stop() };
}

export type ClosingJob = ReturnType<typeof createClosingJob>;
