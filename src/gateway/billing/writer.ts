// The settlement writer: settlements queue in memory and are written in batches, each batch one statement
// (rows.ts), so the hot path does no I/O. One writer runs at a time per instance and writes the queue in
// order, a settlement that outgrew its lease (overage.ts) on its own at its place: an instance never runs
// the batch statement and an overage transaction at once, which the lock order relies on. A transient
// failure leaves the rows queued for the next attempt. The backlog is bounded: when the writer falls behind,
// reserve() waits for room (admit) instead of memory and the window a crash would lose growing.
//
// Every settlement is appended to the journal as it is queued, which is before the answer's last byte
// leaves (settle() runs before the relay sends it); its journal segment is released once the database has it.
import { isTransientDatabaseError } from '../../db/transient';
import { AppError } from '../../http/errors';
import { gatewayMessages } from '../texts';
import type { Journal } from '../journal';
import type { BillingContext } from './context';
import { writeOverage } from './overage';
import { overageLine } from './replay';
import { serialize, writeBatchStatement, type Pending } from './rows';
import type { Charge } from './types';

/** A backlog of more than this many statementRows-sized statements is written in whole batches. */
const CATCH_UP_STATEMENTS = 8;

export class SettlementWriter {
  /** The journal settlements are appended to (replay.ts opens it at start); null: no journal. */
  journal: Journal | null = null;
  private readonly ctx: BillingContext;
  /** Settlements not yet written, oldest first; rows before `head` are written and only wait to be dropped. */
  private pending: Pending[] = [];
  private head = 0;
  /** Settlements ever queued / written: flush() waits for the writer to pass the count it saw. */
  private queuedTotal = 0;
  private writtenTotal = 0;
  private writer: Promise<boolean> | null = null;
  /** Charges written in the writer's current run, not yet told to the observer. */
  private charges: Charge[] = [];
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** reserve() calls held back while the backlog is at its bound. */
  private admissionWaiters: (() => void)[] = [];
  private stopped = false;
  /**
   * stop() gave up on the database: what is unwritten belongs to the journal now, and this instance starts
   * no further write (the next instance replays them; two writers would write them twice).
   */
  private abandoned = false;

  constructor(ctx: BillingContext) {
    this.ctx = ctx;
  }

  /** Settlements queued and not yet written. */
  get backlog() {
    return this.pending.length - this.head;
  }

  /** How long the oldest unwritten settlement has waited, in seconds (0 when none waits). */
  get oldestUnwrittenSeconds() {
    const oldest = this.pending[this.head];
    return oldest ? Math.max(0, (Date.now() - oldest.createdAt.getTime()) / 1000) : 0;
  }

  enqueue(row: Pending) {
    // On disk before the answer's last byte leaves: settle() runs before the relay sends it.
    if (!row.overage) row.json = serialize(row, row.costNano, 0n);
    if (this.journal) {
      try {
        row.segment = this.journal.append(row.json ?? overageLine(row));
      } catch (error) {
        this.ctx.logger.error('could not append to the settlement journal; the row is only in memory', { error });
      }
    }
    this.pending.push(row);
    this.queuedTotal += 1;
    this.scheduleFlush();
  }

  /**
   * Back-pressure: while the writer is this far behind (the backlog at maxPending), new requests wait for
   * it rather than queue more. The wait is bounded by `deadline`: with the database gone, a client hears
   * 429 and retries instead of hanging.
   */
  async admit(deadline: number): Promise<void> {
    while (this.backlog >= this.ctx.maxPending) {
      const left = deadline - Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: () => void = () => {};
      const admitted = await new Promise<boolean>((resolve) => {
        wake = () => resolve(true);
        this.admissionWaiters.push(wake);
        timer = setTimeout(() => resolve(false), Math.max(0, left));
        this.scheduleFlush();
      });
      clearTimeout(timer);
      if (!admitted) {
        this.admissionWaiters = this.admissionWaiters.filter((w) => w !== wake);
        throw new AppError('rate_limit_exceeded', gatewayMessages.billingBacklog, { headers: { 'retry-after': '5' } });
      }
    }
  }

  /**
   * Rows settled while a batch is written wait for the next one: the delay applies again after every
   * write, so under steady load batches grow instead of turning into a transaction per handful of rows.
   */
  private scheduleFlush() {
    if (this.writer || this.abandoned) return;
    if (this.backlog >= this.ctx.maxBatch || this.admissionWaiters.length > 0 || this.pending[this.pending.length - 1]?.overage) {
      void this.startWriter();
      return;
    }
    if (this.backlog > 0) {
      this.flushTimer ??= setTimeout(() => {
        this.flushTimer = null;
        void this.startWriter();
      }, this.ctx.config.usageFlushMs);
    }
  }

  private async writeBatch(batch: Pending[]) {
    const rows = await this.ctx.query<{ user_id: string; total: string; short: string }>(
      writeBatchStatement,
      [`[${batch.map((p) => p.json ?? serialize(p, p.costNano, 0n)).join(',')}]`, this.ctx.leaseTtlSeconds],
      { prepared: true },
    );
    for (const row of rows) {
      this.ctx.logger.error('settled against the balance: the lease was gone', {
        userId: row.user_id,
        totalNano: BigInt(row.total),
        shortNano: BigInt(row.short),
      });
    }
  }

  private releaseAdmissions() {
    if (this.admissionWaiters.length === 0 || this.backlog >= this.ctx.maxPending) return;
    const waiting = this.admissionWaiters;
    this.admissionWaiters = [];
    for (const wake of waiting) wake();
  }

  /** Marks `n` rows from `head` as written. */
  private advance(n: number) {
    const head = this.head;
    for (let i = head; i < head + n; i++) this.pending[i]!.overage?.done();
    if (this.journal) this.journal.written(this.pending.slice(head, head + n).map((p) => p.segment ?? null));
    this.noteCharged(head, n);
    this.head += n;
    this.writtenTotal += n;
    // Drop written rows now and then, not per batch: slicing a long queue each time would be quadratic.
    if (this.head >= 4096 || this.head === this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
    this.releaseAdmissions();
  }

  /**
   * Notes whose money (and which limited key) the rows just written charged; the observer hears them once
   * the writer's run ends (tellCharged), not after each of its statements: its checks (alerts, auto top-up)
   * cost a transaction each, and on PGlite a run is several statements.
   */
  private noteCharged(from: number, n: number) {
    if (!this.ctx.observer?.charged) return;
    const charges = this.charges;
    for (let i = from; i < from + n; i++) {
      const p = this.pending[i]!;
      // A refusal for a member's limit charges nothing, but the member and the admins are told of it.
      const refused = p.member !== null && p.facts.status === 'refused_member_limit';
      if (p.costNano <= 0n && !refused) continue;
      const limited = p.keyLeaseId !== null || (p.overage?.keyId ?? null) !== null;
      const member = p.member ? { organizationId: p.member.organizationId, memberId: p.member.memberId, refused } : null;
      charges.push({ userId: p.facts.userId, keyId: limited ? (p.facts.apiKeyId ?? p.overage?.keyId ?? null) : null, member });
    }
  }

  /** Tells the observer of the charges written since it was last told. */
  private tellCharged() {
    const charges = this.charges;
    if (charges.length === 0) return;
    this.charges = [];
    // The rows are written whatever the observer does: a throw here must not leave them to be written again.
    try {
      this.ctx.observer?.charged?.(charges);
    } catch (error) {
      this.ctx.logger.error('billing observer failed on written charges', { error });
    }
  }

  /**
   * Writes the next `count` rows. A row the database refuses (not a transient failure, which is thrown
   * to retry everything later) must not stop billing for everyone: the batch is split until the bad row
   * stands alone, the rest is written, and the bad one is written with its texts and figures made safe,
   * or, failing that, dropped and logged (its charge then never leaves the lease, which goes back to the
   * user: the books still balance).
   */
  private async writeIsolating(count: number): Promise<void> {
    const batch = this.pending.slice(this.head, this.head + count);
    try {
      await this.writeBatch(batch);
      this.advance(count);
      return;
    } catch (error) {
      if (isTransientDatabaseError(error)) throw error;
      if (count > 1) {
        const half = Math.ceil(count / 2);
        await this.writeIsolating(half);
        await this.writeIsolating(count - half);
        return;
      }
      const row = batch[0]!;
      const safe: Pending = {
        ...row,
        facts: { ...row.facts, model: 'invalid', error: 'usage row refused by the database', durationMs: 0 },
      };
      // Its line is made again from the safe facts: the queued one is what the database just refused.
      safe.json = serialize(safe, safe.costNano, 0n);
      try {
        await this.writeBatch([safe]);
        this.ctx.logger.error('usage row refused; written with its texts replaced', { error, requestId: row.facts.requestId });
      } catch (again) {
        if (isTransientDatabaseError(again)) throw again;
        this.ctx.logger.error('usage row refused twice; dropped', { error: again, requestId: row.facts.requestId });
      }
      this.advance(1);
    }
  }

  /**
   * Writes the settlements waiting when it starts (not those that arrive meanwhile: they make the next
   * batch), at most statementRows per statement (maxBatch when it is behind) with the event loop let run
   * between statements, and each overage on its own at its place in the order. Resolves false when a write
   * failed; the rows stay queued.
   */
  private startWriter(): Promise<boolean> {
    if (this.writer) return this.writer;
    if (this.abandoned) return Promise.resolve(false);
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = null;
    }
    const { logger, statementRows, maxBatch } = this.ctx;
    const write = async (): Promise<boolean> => {
      let due = this.backlog;
      for (let again = false; due > 0; again = true) {
        // Requests that arrived during the last statement are served before the next one.
        if (again) await new Promise<void>((resolve) => setImmediate(resolve));
        const first = this.pending[this.head]!;
        if (first.overage) {
          try {
            await writeOverage(this.ctx, first, first.overage);
          } catch (error) {
            logger.error('overage settlement failed; will retry', { error, requestId: first.facts.requestId });
            return false;
          }
          this.advance(1);
          due -= 1;
          continue;
        }
        // Short statements while the writer keeps up; once it is behind, whole batches again: a statement's
        // fixed cost and a turn of the event loop between statements let a saturating load outrun it
        // (PGlite, plain c=64: the backlog stood at maxPending with 32-row statements).
        const rows = this.backlog > CATCH_UP_STATEMENTS * statementRows ? maxBatch : statementRows;
        let end = this.head + 1;
        const limit = this.head + Math.min(due, rows);
        while (end < limit && !this.pending[end]!.overage) end++;
        const count = end - this.head;
        try {
          await this.writeIsolating(count);
        } catch (error) {
          logger.error('usage batch failed; will retry', { error, rows: count });
          return false;
        }
        due -= count;
      }
      return true;
    };
    const run = async (): Promise<boolean> => {
      try {
        return await write();
      } finally {
        this.tellCharged();
      }
    };
    const current = run().then(
      (ok) => ok,
      (error) => {
        logger.error('usage writer crashed', { error });
        return false;
      },
    );
    this.writer = current;
    void current.then((ok) => {
      this.writer = null;
      if (!ok) {
        if (!this.stopped)
          this.flushTimer ??= setTimeout(() => {
            this.flushTimer = null;
            void this.startWriter();
          }, 1_000);
        return;
      }
      this.scheduleFlush();
    });
    return current;
  }

  /**
   * Writes every settlement queued before the call; resolves when they are committed, or after a write
   * failed (logged; the rows stay queued and are retried).
   */
  async flush(): Promise<void> {
    const target = this.queuedTotal;
    while (this.writtenTotal < target) {
      const ok = await (this.writer ?? this.startWriter());
      if (!ok) return;
    }
  }

  /** stop() has begun: a failed write is no longer retried on a timer, only by stop()'s own flushes. */
  stopping() {
    this.stopped = true;
  }

  /**
   * Every row must reach the database before the process goes: a write that fails is retried until
   * `deadline`, and what is still unwritten then stays in the journal for the next start, this writer
   * writing nothing more. Closes the journal; resolves whether every row was written.
   */
  async finish(deadline: number): Promise<boolean> {
    const writeAll = async () => {
      await this.flush();
      while (this.writtenTotal < this.queuedTotal && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        await this.flush();
      }
    };
    // A write that hangs (the database stopped answering) must not hold the shutdown past the deadline.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([writeAll(), new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
    clearTimeout(timer);
    if (this.writtenTotal < this.queuedTotal) {
      // The journal keeps them: the next instance to start on this DATA_DIR writes them.
      this.ctx.logger.error(
        this.journal ? 'the database did not take every settlement; the journal keeps them for the next start' : 'shutting down with usage rows unwritten',
        { rows: this.queuedTotal - this.writtenTotal },
      );
      this.abandoned = true;
      this.journal?.close();
      return false;
    }
    this.journal?.close();
    return true;
  }
}
