// Upkeep of usage_records' monthly partitions (migration 0022 made the table partitioned by month of
// created_at, UTC). On a timer and at start-up, one instance at a time (an advisory lock across everything
// sharing the database):
//   1. with USAGE_RETENTION_DAYS > 0, deletes the rows of the DEFAULT partition older than the cutoff;
//   2. moves whatever else the DEFAULT partition holds into its month's partition, made for it (a row of a
//      month that had none: the job did not run for months, or a clock far off);
//   3. makes the partitions of this month and the next MONTHS_AHEAD months, so rows never land in DEFAULT;
//   4. with USAGE_RETENTION_DAYS > 0, drops every partition that ends at or before the cutoff: whole months
//      only, so a month the cutoff falls in keeps all its rows until its end has passed the cutoff;
//   5. on PGlite, which has no autovacuum, gathers the table's statistics for the planner.
// The per-period totals (usage_rollups) and the ledger are other tables: nothing here touches them.
import { sql } from 'drizzle-orm';
import { rowsOf, type DatabaseHandle, type Executor } from '../db/client';
import { createPeriodicJob } from '../jobs/periodic';
import type { Logger } from '../logger';

export const USAGE_PARTITIONS_LOCK = 'usage-partitions';

/** Months made ahead of the current one: a month of the job failing still leaves a month of room. */
const MONTHS_AHEAD = 2;
const DAY_MS = 86_400_000;
/**
 * Adding or dropping a partition takes a lock that waits for running reads of the table (an export can run
 * for minutes), and every insert queues behind the waiting lock. Rather than stall the batch writer, the
 * step gives up after this long and the next run tries again.
 */
const LOCK_TIMEOUT = '2s';

export interface UsagePartitionsResult {
  /** False when another instance (or this one) was already running it. */
  ran: boolean;
  /** Partitions made, by name: months ahead, and months whose rows had landed in DEFAULT. */
  created: string[];
  /** Rows moved out of DEFAULT into their month's partition. */
  moved: number;
  /** Partitions dropped for retention, by name. */
  dropped: string[];
  /** Rows of DEFAULT older than the cutoff, deleted. */
  deletedFromDefault: number;
}

interface Partition {
  name: string;
  /** Null for DEFAULT. */
  from: Date | null;
  to: Date | null;
  /** The planner's estimate: counting a month of rows to log it would read the whole month. */
  approxRows: number;
}

const PARENT = 'usage_records';
const DEFAULT_PARTITION = 'usage_records_default';

function monthStart(at: Date, plusMonths = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + plusMonths, 1));
}

/** usage_records_p2026_03, the name migration 0022 gives the months it makes. */
function partitionName(month: Date): string {
  return `${PARENT}_p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** A timestamptz literal for DDL, which takes no bind parameters; only ever one of our own Dates. */
function literal(at: Date): string {
  return `'${at.toISOString()}'`;
}

export interface UsagePartitionsDeps {
  database: DatabaseHandle;
  logger: Logger;
  /** USAGE_RETENTION_DAYS; 0 keeps every row. */
  retentionDays: number;
  intervalMs: number;
}

export function createUsagePartitions(deps: UsagePartitionsDeps) {
  const { database, logger } = deps;
  const db = database.db;

  async function partitions(): Promise<Partition[]> {
    // pg_get_expr renders the bounds as timestamptz literals (in the session's zone); cast back, they are exact.
    // (Backslashes doubled: this is a JavaScript template.)
    const rows = rowsOf<{ name: string; from: string | null; to: string | null; approx_rows: number | string }>(
      await db.execute(sql`
        select c.relname as name,
               to_char(substring(pg_get_expr(c.relpartbound, c.oid) from $re$FROM \\('([^']+)'\\)$re$)::timestamptz
                 at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "from",
               to_char(substring(pg_get_expr(c.relpartbound, c.oid) from $re$TO \\('([^']+)'\\)$re$)::timestamptz
                 at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "to",
               greatest(c.reltuples, 0)::bigint as approx_rows
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = ${PARENT}::regclass`),
    );
    return rows.map((r) => ({
      name: r.name,
      from: r.from ? new Date(r.from) : null,
      to: r.to ? new Date(r.to) : null,
      approxRows: Number(r.approx_rows),
    }));
  }

  async function inTransaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
    // drizzle's transaction, not BEGIN through query(): on PGlite it holds the one session to itself, so no
    // other statement of this process (a batch of usage rows) can fall into this transaction.
    return db.transaction(async (tx) => {
      await tx.execute(sql.raw(`set local lock_timeout = '${LOCK_TIMEOUT}'`));
      return fn(tx);
    });
  }

  /**
   * Makes the partition of the month starting at `month`, taking over the rows DEFAULT holds for it: made
   * as a plain table, filled, then attached (attaching checks DEFAULT no longer has rows of its range, and
   * builds the table's indexes from the parent's).
   */
  async function createMonth(month: Date): Promise<{ name: string; moved: number }> {
    const name = partitionName(month);
    const from = literal(month);
    const to = literal(monthStart(month, 1));
    return inTransaction(async (tx) => {
      await tx.execute(sql.raw(`create table "${name}" (like "${PARENT}" including defaults)`));
      const moved = rowsOf<{ n: number | string }>(
        await tx.execute(
          sql.raw(`with moved as (delete from "${DEFAULT_PARTITION}" where created_at >= ${from} and created_at < ${to} returning *),
                        copied as (insert into "${name}" select * from moved returning 1)
                   select count(*) as n from copied`),
        ),
      );
      await tx.execute(sql.raw(`alter table "${PARENT}" attach partition "${name}" for values from (${from}) to (${to})`));
      return { name, moved: Number(moved[0]?.n ?? 0) };
    });
  }

  async function upkeep(now: Date): Promise<Omit<UsagePartitionsResult, 'ran'>> {
    const result = { created: [] as string[], moved: 0, dropped: [] as string[], deletedFromDefault: 0 };
    const cutoff = deps.retentionDays > 0 ? new Date(now.getTime() - deps.retentionDays * DAY_MS) : null;

    if (cutoff) {
      const deleted = rowsOf<{ n: number | string }>(
        await db.execute(sql`with gone as (delete from ${sql.identifier(DEFAULT_PARTITION)} where created_at < ${cutoff.toISOString()}::timestamptz returning 1)
          select count(*) as n from gone`),
      );
      result.deletedFromDefault = Number(deleted[0]?.n ?? 0);
    }

    // Months with rows in DEFAULT, and the months ahead, that no partition covers yet.
    const stray = rowsOf<{ month: string }>(
      await db.execute(sql`select distinct to_char(date_trunc('month', created_at at time zone 'UTC'), 'YYYY-MM-DD"T00:00:00Z"') as month
        from ${sql.identifier(DEFAULT_PARTITION)}`),
    ).map((r) => new Date(r.month));
    const ahead = Array.from({ length: MONTHS_AHEAD + 1 }, (_, i) => monthStart(now, i));
    const existing = await partitions();
    const covered = (month: Date) => existing.some((p) => p.from && p.to && p.from <= month && month < p.to);
    const wanted = new Map<number, Date>();
    for (const month of [...stray, ...ahead]) if (!covered(month)) wanted.set(month.getTime(), month);
    for (const month of [...wanted.values()].sort((a, b) => a.getTime() - b.getTime())) {
      try {
        const made = await createMonth(month);
        result.created.push(made.name);
        result.moved += made.moved;
      } catch (error) {
        // One month that cannot be made (its lock not granted in time) does not stop the others.
        logger.warn('usage partition not created; the next run tries again', { partition: partitionName(month), error });
      }
    }

    if (cutoff) {
      for (const partition of existing) {
        if (!partition.to || partition.to > cutoff) continue;
        try {
          await inTransaction((tx) => tx.execute(sql.raw(`drop table "${partition.name}"`)));
          result.dropped.push(partition.name);
          logger.info('usage retention: dropped a partition of raw usage rows', {
            partition: partition.name,
            from: partition.from?.toISOString(),
            to: partition.to.toISOString(),
            approxRows: partition.approxRows,
            cutoff: cutoff.toISOString(),
          });
        } catch (error) {
          logger.warn('usage partition not dropped; the next run tries again', { partition: partition.name, error });
        }
      }
    }
    if (database.driver === 'pglite') {
      // PGlite runs no autovacuum, so without this the planner never learns how many rows a partition
      // holds, and with its guess (a few hundred) it sorts a whole account's rows for every export page
      // (~1 s a page at 100 000 rows) where the index gives them in order (~40 ms). ANALYZE samples.
      await db.execute(sql.raw(`analyze "${PARENT}"`));
    }
    if (result.created.length > 0) logger.info('usage partitions created', { partitions: result.created, movedFromDefault: result.moved });
    if (result.deletedFromDefault > 0) {
      logger.info('usage retention: deleted rows of the default partition', { rows: result.deletedFromDefault, cutoff: cutoff?.toISOString() });
    }
    return result;
  }

  /**
   * Makes the month partitions of [from, to] that no partition covers yet (a whole month each). Cheap for
   * months DEFAULT holds no rows of; the seed calls it for its period before writing, so its rows land in
   * their months instead of DEFAULT (whose rows upkeep must move, a pass over all of them).
   */
  async function ensureMonths(from: Date, to: Date): Promise<string[]> {
    const existing = await partitions();
    const made: string[] = [];
    for (let month = monthStart(from); month <= to; month = monthStart(month, 1)) {
      if (existing.some((p) => p.from && p.to && p.from <= month && month < p.to)) continue;
      made.push((await createMonth(month)).name);
    }
    return made;
  }

  let running: Promise<UsagePartitionsResult> | null = null;
  const idle: UsagePartitionsResult = { ran: false, created: [], moved: 0, dropped: [], deletedFromDefault: 0 };

  /**
   * One pass, unless another instance is running it. A pass of this instance already under way (the one
   * start() leaves running) is waited for, then a new one made: a caller sees rows written before its call.
   * Tests call it directly.
   */
  async function runOnce(): Promise<UsagePartitionsResult> {
    while (running) await running;
    running = database
      .withLock(USAGE_PARTITIONS_LOCK, () => upkeep(new Date()))
      .then((r) => (r.acquired ? { ran: true, ...r.value } : idle))
      .catch((error) => {
        logger.error('usage partition upkeep failed', { error });
        return idle;
      })
      .finally(() => {
        running = null;
      });
    return running;
  }

  const job = createPeriodicJob({ name: 'usage partitions', intervalMs: deps.intervalMs, run: runOnce, logger });

  return {
    runOnce,
    ensureMonths,
    /**
     * Before the server takes requests only this month's and the next months' partitions are made (cheap);
     * the full pass — rows out of DEFAULT, retention — reads whole partitions (minutes at millions of rows,
     * seen: a 10 M-row database did not answer /health within 60 s), so it runs after start, on the timer.
     */
    async start() {
      await database
        .withLock(USAGE_PARTITIONS_LOCK, () => ensureMonths(new Date(), monthStart(new Date(), MONTHS_AHEAD)))
        .catch((error) => logger.warn('usage partitions ahead not made at start; the periodic pass tries again', { error }));
      job.start();
      void runOnce();
    },
    async stop() {
      await job.stop();
      await running;
    },
  };
}

export type UsagePartitions = ReturnType<typeof createUsagePartitions>;
