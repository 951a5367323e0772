// Every upstream attempt, counted per provider: what the operator's «Провайдеры» screen shows for the last
// hour. A usage row names only the provider that answered or was tried last, so a provider that failed
// over to another left no trace of its own there; this counts each attempt where it was made.
//
// Why in memory and flushed, not written per attempt: the /v1 hot path must do no I/O it can avoid
// (house rule 6). An attempt is a Map lookup and an increment; every FLUSH_MS this instance adds what it
// counted into `provider_attempt_counts` (one row a provider and minute, by an upsert that adds, so every
// instance's counts sum), and once more when it stops (the lifecycle's shutdown). The settlement writer is
// not reused: its rows carry money, a journal and back-pressure, which a counter needs none of; a crash
// loses at most FLUSH_MS of counts, which a screen of hourly figures can bear.
//
// The classification is the health counter's (failover.ts decides both at one place): a fault is what
// health.failed / health.timedOut are told of (connection errors, timeouts, 408, 429, 5xx, our own key
// or account refused), plus a stream the provider cut after its answer began (which the health counter
// cannot see: the answer had already come); a client error is the client's own 4xx passed through, which
// counts for nothing against the provider's health. Every timeout counts here, while the health counter
// counts one account's timeouts once a minute, so the hour's faults are never fewer than the failures
// in a row it shows.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client';
import type { Logger } from '../../logger';
import { providerAttemptCounts } from '../tables';
import type { UsageFacts } from '../billing/types';

const FLUSH_MS = 5_000;
/** Per-minute rows are kept a week: enough for the hour shown, and a week of history for a look back. */
const KEEP_DAYS = 7;
/** How often the old rows are dropped (any instance may; a second delete finds nothing). */
const PRUNE_EVERY_MS = 60 * 60_000;

interface Counts {
  attempts: number;
  faults: number;
  clientErrors: number;
}

export type AttemptOutcome = 'answered' | 'fault' | 'client_error' | 'other';

/**
 * A settled request whose provider had answered 2xx and then broke off (the stream dropped, or no chunk
 * came in time): a fault of the provider that answered, though its health was told it answered.
 */
export function isCutAnswer(facts: Pick<UsageFacts, 'status' | 'upstreamStatus'>): boolean {
  const began = facts.upstreamStatus !== null && facts.upstreamStatus !== undefined && facts.upstreamStatus >= 200 && facts.upstreamStatus < 300;
  return began && (facts.status === 'upstream_dropped' || facts.status === 'upstream_timeout');
}

export interface AttemptCountsOptions {
  db: Database;
  logger: Logger;
  flushMs?: number;
}

export function createAttemptCounts(options: AttemptCountsOptions) {
  const { db, logger } = options;
  const flushMs = options.flushMs ?? FLUSH_MS;
  let counts = new Map<string, Counts>();
  let timer: ReturnType<typeof setInterval> | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let lastPrune = 0;

  function of(providerId: string): Counts {
    let c = counts.get(providerId);
    if (!c) counts.set(providerId, (c = { attempts: 0, faults: 0, clientErrors: 0 }));
    return c;
  }

  async function write() {
    if (counts.size === 0) return;
    const taken = counts;
    counts = new Map();
    const rows = [...taken].map(([providerId, c]) => ({ providerId, minute: sql`date_trunc('minute', now())`, ...c }));
    try {
      await db
        .insert(providerAttemptCounts)
        .values(rows)
        .onConflictDoUpdate({
          target: [providerAttemptCounts.providerId, providerAttemptCounts.minute],
          set: {
            attempts: sql`${providerAttemptCounts.attempts} + excluded.attempts`,
            faults: sql`${providerAttemptCounts.faults} + excluded.faults`,
            clientErrors: sql`${providerAttemptCounts.clientErrors} + excluded.client_errors`,
          },
        });
    } catch (error) {
      // Kept for the next flush rather than lost: the database may be back by then.
      for (const [providerId, c] of taken) {
        const into = of(providerId);
        into.attempts += c.attempts;
        into.faults += c.faults;
        into.clientErrors += c.clientErrors;
      }
      logger.warn('could not write the providers’ attempt counts; keeping them for the next flush', { error });
      return;
    }
    if (Date.now() - lastPrune >= PRUNE_EVERY_MS) {
      lastPrune = Date.now();
      await db
        .delete(providerAttemptCounts)
        .where(sql`${providerAttemptCounts.minute} < now() - make_interval(days => ${KEEP_DAYS})`)
        .catch((error) => logger.warn('could not drop old provider attempt counts', { error }));
    }
  }

  /** Writes what this instance counted so far; flushes run one after another. */
  function flush(): Promise<void> {
    flushing = flushing.then(write);
    return flushing;
  }

  return {
    /** One attempt at a provider and how it ended (failover.ts). */
    attempted(providerId: string, outcome: AttemptOutcome) {
      const c = of(providerId);
      c.attempts += 1;
      if (outcome === 'fault') c.faults += 1;
      else if (outcome === 'client_error') c.clientErrors += 1;
    },

    /** An answer the provider had begun and then cut (dropped, or timed out between chunks): its attempt was counted when the answer came. */
    cut(providerId: string) {
      of(providerId).faults += 1;
    },

    flush,

    start() {
      if (timer) return;
      timer = setInterval(() => void flush(), flushMs);
      timer.unref?.();
    },

    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await flush();
    },
  };
}

export type AttemptCounts = ReturnType<typeof createAttemptCounts>;
