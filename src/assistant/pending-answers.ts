// Bursts: a client who writes three short messages in a row gets one answer to all three. Each message
// that goes to the model pushes the dialogue's `answer_due_at` ASSISTANT_DEBOUNCE_MS past its arrival
// (the database's clock, which every instance shares); once it passes with no newer message, one worker
// of any instance claims the dialogue with SKIP LOCKED and answers the whole burst as one turn.
//
// The instance that pushed the due time last arms a timer for it; the periodic sweep of every instance is
// the backstop (a stopped instance, a message that came in while a turn was running). A claim is a lease
// (`answer_locked_until`), not a held transaction, since a model turn takes seconds: a lease that ran out
// means a turn cut short, which is claimed and answered again. While a turn runs, its worker renews the
// lease every third of it, so a long turn (slow model calls, a slow YCLIENTS) is never taken for a cut-short
// one and answered twice; a claim that finds nothing new from the client is skipped by the caller.
import { eq, sql } from 'drizzle-orm';
import { rowsOf, type Database, type Executor } from '../db/client';
import { dialogues } from '../dialogues/tables';
import type { Logger } from '../logger';

/** How long a turn's claim lasts unless renewed (ASSISTANT_TURN_LEASE_SECONDS); renewed every third of it. */
const DEFAULT_LEASE_SECONDS = 300;
/** The timer fires this much after the due time, so the claim does not race the due time itself. */
const TIMER_SLACK_MS = 25;
const SWEEP_BATCH = 20;

export interface PendingAnswersDeps {
  db: Database;
  debounceMs: number;
  /** Config ASSISTANT_TURN_LEASE_SECONDS: a claim not renewed for this long is taken for a crashed worker's. */
  leaseSeconds?: number;
  logger: Logger;
  /** Answers the dialogue's burst as one turn; `requestId` is the newest message's. */
  answer(dialogueId: string, requestId: string): Promise<unknown>;
}

interface Claimed {
  id: string;
  requestId: string;
}

export function createPendingAnswers(deps: PendingAnswersDeps) {
  const { db, logger } = deps;
  const leaseSeconds = deps.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  function track(work: Promise<void>) {
    const tracked = work.catch((error) => logger.error('answering a burst failed', { error })).finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }

  function arm(dialogueId: string, delayMs: number) {
    if (stopped) return;
    const previous = timers.get(dialogueId);
    if (previous) clearTimeout(previous);
    timers.set(
      dialogueId,
      setTimeout(() => {
        timers.delete(dialogueId);
        track(answerIfDue(dialogueId));
      }, Math.max(0, delayMs) + TIMER_SLACK_MS),
    );
  }

  /** Takes due dialogues (one, or any for the sweep) whose burst nobody is answering, or whose answer was cut short. */
  async function claim(dialogueId: string | null, limit: number): Promise<Claimed[]> {
    const result = await db.execute(sql`
      update dialogues
         set answer_due_at = null,
             answer_locked_until = now() + make_interval(secs => ${leaseSeconds})
       where id in (
         select id from dialogues
          where ((answer_locked_until is null and answer_due_at <= now()) or answer_locked_until < now())
            ${dialogueId ? sql`and id = ${dialogueId}` : sql``}
          order by coalesce(answer_due_at, answer_locked_until)
          limit ${limit}
          for update skip locked)
      returning id, answer_request_id`);
    return rowsOf<{ id: string; answer_request_id: string | null }>(result).map((r) => ({ id: String(r.id), requestId: r.answer_request_id ?? `burst-${r.id}` }));
  }

  /** Answers a claimed burst, then releases it; a message that came meanwhile owes another turn. */
  async function run(claimed: Claimed): Promise<void> {
    // The turn is alive: its lease is pushed forward while it runs.
    const renew = setInterval(
      () => {
        db.execute(sql`
          update dialogues set answer_locked_until = now() + make_interval(secs => ${leaseSeconds})
           where id = ${claimed.id} and answer_locked_until is not null`).catch((error: unknown) =>
          logger.warn('renewing a turn’s lease failed', { dialogueId: claimed.id, error }),
        );
      },
      (leaseSeconds * 1000) / 3,
    );
    try {
      await deps.answer(claimed.id, claimed.requestId);
    } finally {
      clearInterval(renew);
      const result = await db.execute(sql`
        update dialogues set answer_locked_until = null where id = ${claimed.id}
        returning (extract(epoch from (answer_due_at - now())) * 1000)::float8 as due_in_ms`);
      const dueIn = rowsOf<{ due_in_ms: number | null }>(result)[0]?.due_in_ms;
      if (dueIn !== null && dueIn !== undefined) arm(claimed.id, Number(dueIn));
    }
  }

  async function answerIfDue(dialogueId: string): Promise<void> {
    if (stopped) return;
    const [claimed] = await claim(dialogueId, 1);
    if (claimed) return run(claimed);
    // Not due yet: a message that came to another instance pushed it; look again then (that instance's
    // timer will usually have answered by then, and this claim finds nothing).
    const result = await db.execute(sql`
      select (extract(epoch from (answer_due_at - now())) * 1000)::float8 as due_in_ms from dialogues
       where id = ${dialogueId} and answer_due_at > now() and answer_locked_until is null`);
    const dueIn = rowsOf<{ due_in_ms: number }>(result)[0]?.due_in_ms;
    if (dueIn !== undefined) arm(dialogueId, Number(dueIn));
  }

  return {
    /**
     * Owes the client an answer: due ASSISTANT_DEBOUNCE_MS from now, replacing any earlier due time, so the
     * burst's newest message decides. With the caller's executor, so it commits with the remembered turn.
     */
    async defer(executor: Executor, dialogueId: string, requestId: string): Promise<void> {
      await executor
        .update(dialogues)
        .set({ answerDueAt: sql`now() + make_interval(secs => ${deps.debounceMs / 1000})`, answerRequestId: requestId })
        .where(eq(dialogues.id, dialogueId));
      arm(dialogueId, deps.debounceMs);
    },

    /**
     * Answers whatever is due and unclaimed (the periodic backstop); returns how many it started. The turns
     * run on their own (stop() waits for them): a long one must not hold up the next sweeps.
     */
    async sweep(): Promise<number> {
      if (stopped) return 0;
      const claimed = await claim(null, SWEEP_BATCH);
      for (const c of claimed) track(run(c));
      return claimed.length;
    },

    /** Stops the timers and waits for turns under way (graceful shutdown); due bursts stay for the others. */
    async stop(): Promise<void> {
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}

export type PendingAnswers = ReturnType<typeof createPendingAnswers>;
