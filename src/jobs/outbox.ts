// The outbox: messages that must not be lost are written as rows (one per recipient) in the transaction
// of their cause, and this worker delivers them. Handlers are registered per kind, so any integration
// can add its own messages.
//
// Claiming: due rows are leased (locked_until/locked_by) with FOR UPDATE SKIP LOCKED, so two instances
// never take the same row; the lease is not a held transaction, so no connection waits on a slow remote
// API. A row is marked sent the moment its recipient is served, so a restart (or a crash mid-delivery)
// never re-sends to a recipient already served; a crash in the instant between a remote accept and the
// mark is the one window where at-least-once shows, as no Bot API call is idempotent.
//
// Concurrency: rows are delivered side by side, so one slow recipient (a webhook that never answers, a
// remote API that hangs until its timeout) holds up only its own lane. A lane (one agent's bot, one
// account's webhook) is delivered one row at a time, lowest due id first, so a chat's messages keep their
// order and a bot's rate limit is met as before. At most `concurrency` rows are in delivery per instance,
// and a handler may cap its kind lower (the alert webhooks do), so no kind can take every slot.
import { and, eq, sql } from 'drizzle-orm';
import { rowsOf, type Database, type Executor, type Transaction } from '../db/client';
import { outbox } from './tables';
import { safeErrorMessage, type Logger } from '../logger';

export interface OutboxRow {
  id: number;
  kind: string;
  agentId: string | null;
  notificationId: string | null;
  recipient: string;
  /** Rows of one lane are delivered one at a time, in id order; null for rows queued before lanes. */
  lane: string | null;
  payload: Record<string, unknown>;
  /** Including the current one. */
  attempts: number;
}

export interface NewOutboxRow {
  kind: string;
  agentId?: string | null;
  notificationId?: string | null;
  recipient: string;
  /** Default: the kind and the agent (one bot's messages, which share its rate limit), or the recipient. */
  lane?: string;
  payload: Record<string, unknown>;
}

/**
 * The lane of a row that names none: one agent's messages of one kind (one bot or community, whose remote
 * rate limit they share, so a 429 pauses the next one before it is sent), else one recipient's.
 */
export const defaultLane = (row: Pick<NewOutboxRow, 'kind' | 'agentId' | 'recipient'>) =>
  row.agentId ? `${row.kind}:agent:${row.agentId}` : `${row.kind}:to:${row.recipient}`;

/** The remote side may accept later: retry. `afterMs` is a wait it asked for (e.g. 429 retry_after). */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
  readonly afterMs: number | null;
  /** A wait the remote asked for (flood control) is not a failure and does not use up an attempt. */
  readonly countsAsAttempt: boolean;
  /** Other rows of the same agent wait as long (a per-bot rate limit). */
  readonly pausesAgent: boolean;

  constructor(reason: string, options: { afterMs?: number | null; countsAsAttempt?: boolean; pausesAgent?: boolean } = {}) {
    super(reason);
    this.afterMs = options.afterMs ?? null;
    this.countsAsAttempt = options.countsAsAttempt ?? true;
    this.pausesAgent = options.pausesAgent ?? false;
  }
}

/** The same request can never succeed (bad chat, blocked bot, unreadable secret): stop trying. */
export class GiveUp extends Error {
  override readonly name = 'GiveUp';
}

export interface OutboxHandler {
  /** Delivers one row; throws RetryLater or GiveUp (anything else counts as a retryable failure). */
  deliver(row: OutboxRow): Promise<{ result?: Record<string, unknown> }>;
  /** Runs in the transaction that marks the row sent (e.g. to remember the remote message id). */
  onSent?(tx: Transaction, row: OutboxRow, result: Record<string, unknown> | undefined): Promise<void>;
  /** At most this many rows of the kind in delivery at once in one instance (default: the worker's whole concurrency). */
  concurrency?: number;
}

export interface OutboxWorkerOptions {
  db: Database;
  logger: Logger;
  instanceId: string;
  pollIntervalMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  /** How long a claimed row stays this worker's; must exceed the time to deliver one row. */
  leaseMs: number;
  /** Rows in delivery at once in this instance (default 32). */
  concurrency?: number;
}

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/** Writes outbox rows with the caller's executor, so they commit (or roll back) with the cause. */
export async function enqueueOutbox(executor: Executor, rows: NewOutboxRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted = await executor
    .insert(outbox)
    .values(
      rows.map((r) => ({
        kind: r.kind,
        agentId: r.agentId ?? null,
        notificationId: r.notificationId ?? null,
        recipient: r.recipient,
        lane: r.lane ?? defaultLane(r),
        payload: r.payload,
      })),
    )
    .returning({ id: outbox.id });
  return inserted.map((r) => r.id);
}

export function createOutboxWorker(options: OutboxWorkerOptions) {
  const { db, logger, instanceId } = options;
  const concurrency = options.concurrency ?? 32;
  const handlers = new Map<string, OutboxHandler>();
  /** agent id → epoch ms before which its rows are not sent (the remote asked us to slow down). */
  const pausedAgents = new Map<string, number>();
  /** Rows in delivery in this instance, by id. */
  const inFlight = new Map<number, Promise<void>>();
  /** Lanes with a row in delivery here, and how many rows of each kind are. */
  const busyLanes = new Set<string>();
  const kindsInFlight = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<number> | undefined;
  let rerun = false;
  let stopped = true;

  const kindRoom = (kind: string) => (handlers.get(kind)?.concurrency ?? concurrency) - (kindsInFlight.get(kind) ?? 0);
  const textList = (items: Iterable<string>) => sql`array(select jsonb_array_elements_text(${JSON.stringify([...items])}::jsonb))`;

  /**
   * Leases up to `limit` due rows: the lowest-id due row of each lane that has no row in delivery (here or,
   * by its lease, in another instance), of kinds with room left here; oldest due first.
   */
  async function claim(limit: number): Promise<OutboxRow[]> {
    const fullKinds = [...handlers.keys()].filter((kind) => kindRoom(kind) <= 0);
    const result = await db.execute(sql`
      update outbox
         set locked_until = now() + make_interval(secs => ${options.leaseMs / 1000}),
             locked_by = ${instanceId},
             attempts = attempts + 1
       where id in (
         select id from outbox
          where id in (
            select id from (
              select distinct on (coalesce(o.lane, o.id::text)) o.id, o.next_attempt_at
                from outbox o
               where o.status = 'pending' and o.next_attempt_at <= now()
                 and (o.locked_until is null or o.locked_until < now())
                 and not (coalesce(o.lane, o.id::text) = any(${textList(busyLanes)}))
                 and not (o.kind = any(${textList(fullKinds)}))
                 and (o.lane is null or not exists (
                   select 1 from outbox b where b.lane = o.lane and b.status = 'pending' and b.locked_until >= now()))
               order by coalesce(o.lane, o.id::text), o.id) firsts
            order by next_attempt_at, id
            limit ${limit})
            and status = 'pending' and (locked_until is null or locked_until < now())
          for update skip locked)
      returning id, kind, agent_id, notification_id, recipient, lane, payload, attempts`);
    return rowsOf<Record<string, unknown>>(result)
      .map((r) => ({
        id: Number(r.id),
        kind: String(r.kind),
        agentId: (r.agent_id as string | null) ?? null,
        notificationId: (r.notification_id as string | null) ?? null,
        recipient: String(r.recipient),
        lane: (r.lane as string | null) ?? null,
        payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
        attempts: Number(r.attempts),
      }))
      .sort((a, b) => a.id - b.id);
  }

  const mine = (id: number) => and(eq(outbox.id, id), eq(outbox.lockedBy, instanceId), eq(outbox.status, 'pending'));

  async function markSent(row: OutboxRow, handler: OutboxHandler, result: Record<string, unknown> | undefined) {
    await db.transaction(async (tx) => {
      const updated = await tx
        .update(outbox)
        .set({ status: 'sent', sentAt: new Date(), result: result ?? null, lockedUntil: null, lockedBy: null, lastError: null })
        .where(mine(row.id))
        .returning({ id: outbox.id });
      if (updated.length > 0 && handler.onSent) await handler.onSent(tx, row, result);
    });
  }

  async function reschedule(row: OutboxRow, delayMs: number, error: string, countsAsAttempt: boolean) {
    await db
      .update(outbox)
      .set({
        nextAttemptAt: new Date(Date.now() + delayMs),
        lockedUntil: null,
        lockedBy: null,
        lastError: error,
        ...(countsAsAttempt ? {} : { attempts: sql`greatest(${outbox.attempts} - 1, 0)` }),
      })
      .where(mine(row.id));
  }

  /** Gives a claimed row back as it was: due now, its attempt not counted. */
  async function release(row: OutboxRow) {
    await db
      .update(outbox)
      .set({ lockedUntil: null, lockedBy: null, attempts: sql`greatest(${outbox.attempts} - 1, 0)` })
      .where(mine(row.id));
  }

  async function fail(row: OutboxRow, error: string) {
    await db.update(outbox).set({ status: 'failed', lockedUntil: null, lockedBy: null, lastError: error }).where(mine(row.id));
  }

  function backoffMs(attempts: number): number {
    const delay = options.retryBaseMs * 2 ** Math.max(0, attempts - 1);
    return Math.min(MAX_RETRY_DELAY_MS, delay);
  }

  async function deliverOne(row: OutboxRow): Promise<void> {
    const handler = handlers.get(row.kind);
    if (!handler) {
      await fail(row, `no handler for outbox kind ${row.kind}`);
      return;
    }
    const pausedUntil = row.agentId ? (pausedAgents.get(row.agentId) ?? 0) : 0;
    if (pausedUntil > Date.now()) {
      await reschedule(row, pausedUntil - Date.now(), 'waiting: rate limited by the remote API', false);
      return;
    }
    let outcome: { result?: Record<string, unknown> };
    try {
      outcome = await handler.deliver(row);
    } catch (error) {
      // Kept in the row and logged: a database error's message must not carry its statement's parameters.
      const message = safeErrorMessage(error);
      if (error instanceof GiveUp) {
        logger.warn('outbox message given up', { id: row.id, kind: row.kind, error: message });
        await fail(row, message);
        return;
      }
      const retry = error instanceof RetryLater ? error : null;
      if (retry?.pausesAgent && retry.afterMs && row.agentId) pausedAgents.set(row.agentId, Date.now() + retry.afterMs);
      const counts = retry ? retry.countsAsAttempt : true;
      if (counts && row.attempts >= options.maxAttempts) {
        logger.warn('outbox message failed after its last attempt', { id: row.id, kind: row.kind, error: message });
        await fail(row, message);
        return;
      }
      const delay = Math.max(retry?.afterMs ?? 0, counts ? backoffMs(row.attempts) : 0);
      if (!retry) logger.warn('outbox delivery failed', { id: row.id, kind: row.kind, error: message });
      await reschedule(row, delay, message, counts);
      return;
    }
    await markSent(row, handler, outcome.result);
  }

  /** Delivers a claimed row in the background; its lane and its kind's slot are held until it is recorded. */
  function begin(row: OutboxRow) {
    const lane = row.lane ?? String(row.id);
    busyLanes.add(lane);
    kindsInFlight.set(row.kind, (kindsInFlight.get(row.kind) ?? 0) + 1);
    const done = (async () => {
      try {
        // A row past its kind's room (more of it claimed in one pass) goes back at once, untouched.
        if (kindRoom(row.kind) < 0) await release(row);
        else await deliverOne(row);
      } catch (error) {
        // A database failure while recording an outcome: the lease expires and the row is retried.
        logger.error('outbox bookkeeping failed', { id: row.id, error });
      } finally {
        busyLanes.delete(lane);
        kindsInFlight.set(row.kind, (kindsInFlight.get(row.kind) ?? 1) - 1);
        inFlight.delete(row.id);
        // Its lane may hold the next row, and a slot is free.
        wake();
      }
    })();
    inFlight.set(row.id, done);
  }

  /** Claims and starts due rows while there is room; the number started. */
  async function fill(): Promise<number> {
    let started = 0;
    for (;;) {
      const room = concurrency - inFlight.size;
      if (room <= 0 || stopped) return started;
      const rows = await claim(room);
      for (const row of rows) begin(row);
      started += rows.length;
      if (rows.length < room) return started;
    }
  }

  /** Delivers every due row and waits for them (tests, tools); the number delivered. */
  async function runOnce(): Promise<number> {
    let handled = 0;
    for (;;) {
      const started = await fill();
      await Promise.all(inFlight.values());
      handled += started;
      if (started === 0) return handled;
    }
  }

  function schedule(delayMs: number) {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, delayMs);
  }

  function tick() {
    timer = undefined;
    if (stopped) return;
    if (running) {
      rerun = true;
      return;
    }
    running = fill()
      .catch((error) => {
        logger.error('outbox run failed', { error });
        return 0;
      })
      .finally(() => {
        running = undefined;
        const again = rerun;
        rerun = false;
        schedule(again ? 0 : options.pollIntervalMs);
      });
  }

  function wake() {
    if (stopped) return;
    if (running) rerun = true;
    else schedule(0);
  }

  return {
    register(kind: string, handler: OutboxHandler) {
      if (handlers.has(kind)) throw new Error(`outbox kind ${kind} is already registered`);
      handlers.set(kind, handler);
    },
    enqueue: enqueueOutbox,
    /** Looks for due rows now (call after committing rows, so they leave without waiting for a poll). */
    wake,
    /** One pass over every due row; for tests and tools. */
    runOnce,
    start() {
      if (!stopped) return;
      stopped = false;
      schedule(0);
    },
    /** Stops polling and waits for the rows in delivery, so nothing is left half-recorded. */
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
      await Promise.all(inFlight.values());
    },
  };
}

export type OutboxWorker = ReturnType<typeof createOutboxWorker>;
