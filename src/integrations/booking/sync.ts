// Background synchronisation: on a timer, one instance at a time (an advisory lock across everything
// sharing the database) refreshes specialists, services and upcoming free times of every agent with
// sync on. It runs beside requests, never in front of them, and a stop waits for the agent in hand.
import type { DatabaseHandle } from '../../db/client';
import { createPeriodicJob } from '../../jobs/periodic';
import type { Logger } from '../../logger';
import type { BookingCache } from './cache';
import type { YclientsLimiter } from './limiter';
import type { BookingService } from './service';
import type { BookingSettings } from './settings';

export const BOOKING_SYNC_LOCK = 'booking-sync';
/** Free times are kept warm for today and the next days. */
const SYNC_DAYS = 3;
/** A bounded number of slot reads per agent and run (the limiter keeps their pace within YCLIENTS' limits). */
const MAX_SLOT_CALLS_PER_AGENT = 60;
/** Client matching (issue 42 point 4): dialogues that wrote within this window, at most this many per agent and run. */
const MATCH_RECENT_DAYS = 30;
const MATCH_DIALOGUES_PER_AGENT = 20;
/** A claim this old without an answer from YCLIENTS belongs to a process that died. */
const STALE_CLAIM_MINUTES = 15;

export interface BookingSyncResult {
  ran: boolean;
  agents: number;
  failed: number;
}

export function createBookingSync(deps: {
  database: DatabaseHandle;
  settings: BookingSettings;
  service: BookingService;
  cache: BookingCache;
  logger: Logger;
  intervalMs: number;
  /** The process's YCLIENTS gate: the sync's calls queue behind live ones. */
  limiter: YclientsLimiter;
}) {
  const { database, settings, service, cache, logger } = deps;
  let running: Promise<BookingSyncResult> | null = null;
  let stopping = false;

  async function syncAll(): Promise<Omit<BookingSyncResult, 'ran'>> {
    const started = performance.now();
    const agents = await settings.listSynced();
    let failed = 0;
    for (const s of agents) {
      if (stopping) break;
      try {
        const { slotCalls } = await deps.limiter.background(() => service.refresh(s, SYNC_DAYS, MAX_SLOT_CALLS_PER_AGENT));
        await settings.markSynced(s.agentId, null);
        // Records made elsewhere for clients the dialogues know, so they are reminded of without asking first.
        const since = new Date(Date.now() - MATCH_RECENT_DAYS * 24 * 3600_000);
        const matched = await deps.limiter.background(() => service.matchRecentClients(s, since, MATCH_DIALOGUES_PER_AGENT));
        logger.debug('booking sync: agent refreshed', { agentId: s.agentId, slotCalls, matched });
      } catch (error) {
        failed += 1;
        logger.warn('booking sync: agent failed', { agentId: s.agentId, error });
        await settings.markSynced(s.agentId, error instanceof Error ? error.message.slice(0, 300) : 'failed').catch(() => {});
      }
    }
    await service.dropStaleClaims(STALE_CLAIM_MINUTES);
    await cache.prune(24 * 3600);
    logger.info('booking sync finished', {
      agents: agents.length,
      failed,
      durationMs: Math.round(performance.now() - started),
    });
    return { agents: agents.length, failed };
  }

  /** One run, unless another instance (or this one) is already running it. */
  function runOnce(): Promise<BookingSyncResult> {
    running ??= database
      .withLock(BOOKING_SYNC_LOCK, syncAll)
      .then((r) => (r.acquired ? { ran: true, ...r.value } : { ran: false, agents: 0, failed: 0 }))
      .catch((error) => {
        logger.error('booking sync failed', { error });
        return { ran: false, agents: 0, failed: 0 };
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  // Every interval, never overlapping itself; stop() waits for a run in progress.
  const job = createPeriodicJob({ name: 'booking sync', intervalMs: deps.intervalMs, run: runOnce, logger });

  return {
    runOnce,
    start() {
      stopping = false;
      job.start();
    },
    async stop() {
      stopping = true;
      await job.stop();
      await running;
    },
  };
}

export type BookingSync = ReturnType<typeof createBookingSync>;
