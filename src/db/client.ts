// One Database type over two drivers: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { preparedStatements } from './pglite-prepared';

// No schema: queries name their tables (a feature's tables.ts), so the base needs to know none of them, and
// drizzle's relational `db.query.*`, the one thing a schema here would give, is not used.
type NoSchema = Record<string, never>;
export type Database = PgDatabase<PgQueryResultHKT, NoSchema>;
export type Transaction = PgTransaction<PgQueryResultHKT, NoSchema, ExtractTablesWithRelations<NoSchema>>;
/** Either the database or an open transaction: functions that must join the caller's transaction take this. */
export type Executor = Database | Transaction;

/** Rows of a raw `execute` result: postgres.js returns an array, PGlite an object with `rows`. */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

export interface DatabaseHandle {
  db: Database;
  driver: 'postgres' | 'pglite';
  /**
   * Subscribes to a NOTIFY channel; resolves to an unsubscribe function. `onListen` runs on every
   * (re)connection of the listener: notifications sent while it was down are lost, so callers resync.
   */
  listen(channel: string, onPayload: (payload: string) => void, onListen?: () => void): Promise<() => Promise<void>>;
  /**
   * Runs raw SQL and returns its rows, whatever the driver. `prepared`: the statement is parsed once per
   * connection and then only bound and executed (postgres.js names it; PGlite, one session in this process,
   * PREPAREs it once and runs it as EXECUTE: pglite-prepared.ts). For a statement run over and over with the
   * same text: drizzle's `execute` sends every raw statement unnamed, which costs PostgreSQL a parse and the
   * client an extra round trip (the parameter types are asked first) each time.
   */
  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: { prepared?: boolean }): Promise<T[]>;
  /**
   * Runs `fn` while this process holds the named lock across every instance sharing the database
   * (a PostgreSQL session advisory lock on a connection set aside for it), or skips it when another
   * holder has it. The connection is not otherwise used, so `fn` may take its time without blocking
   * requests or holding a transaction open.
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  /**
   * PostgreSQL only (undefined on PGlite): reads one query through a server-side cursor (DECLARE … CURSOR
   * in a read-only transaction on a connection of its own), `rowsPerBatch` rows at a time, each batch
   * fetched only when the consumer asks for the next. A declared cursor is planned for its first rows
   * (cursor_tuple_fraction), so an ordered read walks an index instead of sorting everything first.
   * Leaving the loop early (return/break, an exception) ends the transaction, which closes the cursor, and
   * gives the connection back. A consumer that asks for nothing for `idleLimit` has its session ended by
   * the server, so it cannot hold a connection and an old snapshot forever. PGlite has no such cursor short
   * of a transaction held across the whole read, which would stop every other query of the process
   * meanwhile (it has one session).
   */
  cursor?<T = Record<string, unknown>>(text: string, params: unknown[], rowsPerBatch: number): AsyncGenerator<T[], void, undefined>;
  close(): Promise<void>;
}

/** How long a cursor's reader may leave it unread before PostgreSQL ends its session (DatabaseHandle.cursor). */
const CURSOR_IDLE_LIMIT = '5min';
/** Rows of a cursor's first batch, before the reader's own batch size. */
const CURSOR_FIRST_BATCH = 100;

/** Advisory locks of this application live under one first key, so they cannot meet another program's. */
const LOCK_NAMESPACE = 0x436f6e64; // "Cond"

/** A stable 32-bit signed id for a lock name (FNV-1a). */
export function lockId(name: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Pool size for postgres.js. */
  maxConnections?: number;
}

export function pgliteDataPath(dataDir: string): string {
  return join(dataDir, 'pgdata');
}

/**
 * Takes group and other access away from everything under a directory, as PostgreSQL keeps its own data
 * directory. PGlite writes most files of a new cluster 0666 and its relation-cache init files 0644
 * whatever the process umask (measured: 969 of 1,100 files of a fresh directory; a umask changed only its
 * directories), so a umask cannot do this; files PostgreSQL creates later are 0600 and directories 0700
 * already. Run after opening, when the init files have been written, and after closing.
 */
function restrictToOwner(root: string): void {
  const visit = (path: string, isDirectory: boolean) => {
    try {
      const mode = lstatSync(path).mode & 0o777;
      if (mode & 0o077) chmodSync(path, mode & 0o700);
      if (!isDirectory) return;
      for (const entry of readdirSync(path, { withFileTypes: true })) {
        if (!entry.isSymbolicLink()) visit(join(path, entry.name), entry.isDirectory());
      }
    } catch (error) {
      // PGlite removes temporary files as it goes; one gone between listing and chmod needs nothing.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  };
  visit(root, true);
}

/**
 * The embedded database's memory, sized for a 1 GB machine (issue 30). PGlite runs PostgreSQL inside this
 * process, in a WebAssembly memory that never shrinks, and its default shared_buffers (128MB) is zeroed at
 * start, so all of it is resident from the first second; the rest of what it holds at idle is the compiled
 * module and PostgreSQL's own caches. Measured with `npm run bench:pglite-memory` (a fresh DATA_DIR, plain
 * requests at 64 connections for 30 s; two alternating rounds on the shared 2-core machine), RSS of the
 * whole server:
 *
 *   PGlite's defaults                   idle 332–334 MiB, peak under load 454–458, after 346, first start 867–887
 *   shared_buffers 32MB, 1MB WAL        idle 229–231 MiB, peak under load 322–330, after 242–244, first start 662–696
 *
 * (shared_buffers 32MB alone: first start ~780 MiB; the WAL segments change nothing else.) Throughput was
 * the same (req/s within the host's noise); p99 in the same pairs was 102 and 48 ms before, 120 and 74 ms
 * after, small against the noise of the shared machine but worth watching. shared_buffers 16MB saved another
 * ~20 MiB idle and ~35 MiB under load, but its p99 was worse than 32MB's or 128MB's in each of four
 * alternating pairs (dirty pages of the usage table written out sooner), so 32MB.
 * The first start of a new DATA_DIR peaks highest: PGlite runs initdb in a second instance on an in-memory
 * file system, whose growing files leave hundreds of MiB of garbage behind until the next collection; WAL
 * segments of 1MB instead of 16MB (a property of the cluster, fixed by initdb) cut that by ~110 MiB. Later
 * starts find the cluster and skip it. Also tried: wal_buffers 256kB (nothing), max_connections 5 (−4 MiB),
 * Bun's --smol (−12 MiB at the peak, slower), a forced collection after start (nothing).
 * The settings are start parameters, so clusters made before them (postgresql.conf saying 128MB) get them too.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';

function pgliteMemoryOptions(defaultStartParams: readonly string[]) {
  return {
    startParams: [...defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    initDbStartParams: ['--wal-segsize=1', '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  };
}

/**
 * Under load the JS heap, not PGlite, is what grows: plain c=64 makes garbage at some 20–30 MiB a second,
 * and Bun's collector let it pile up to 600 MiB resident within a minute before a full collection brought
 * it back to ~285 MiB (bench:pglite-memory at 90 s; at 30 s three runs of four peaked at 507–555 MiB).
 * Bun's --smol did not change that. So the embedded default, which shares its process with the whole
 * database, asks for a full collection itself once it has grown: every second it reads its RSS, and above
 * GC_RSS_FLOOR and GC_GROWTH past what the last collection left, it collects (at most every GC_MIN_GAP_MS).
 * Measured in alternating pairs (a later start, 30 s): peak 490 and 446 MiB without, 333 and 314 with. The
 * price is paid only while above the floor, i.e. near saturation: a full collection stops the thread for
 * tens of milliseconds, and those pairs ran at 6408/5009 req/s (p99 61/87 ms) without it and 5599/3565
 * req/s (p99 140/352 ms) with it on the shared 2-core host. An asynchronous collection (Bun.gc(false)) did
 * not hold the peak down (457, 477 MiB). PostgreSQL-backed instances do not run this.
 */
const GC_RSS_FLOOR = 300 * 1024 * 1024;
const GC_GROWTH = 48 * 1024 * 1024;
const GC_MIN_GAP_MS = 2_000;

/** One watcher per process however many PGlite databases it has open (tests open several): RSS is the process's. */
const collector = { users: 0, timer: null as ReturnType<typeof setInterval> | null, after: 0, last: 0 };

function collectWhenGrown(): () => void {
  if (collector.users++ === 0) {
    collector.timer = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss < Math.max(GC_RSS_FLOOR, collector.after + GC_GROWTH)) return;
      if (performance.now() - collector.last < GC_MIN_GAP_MS) return;
      Bun.gc(true);
      collector.last = performance.now();
      collector.after = process.memoryUsage.rss();
    }, 1000);
    collector.timer.unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--collector.users === 0 && collector.timer) {
      clearInterval(collector.timer);
      collector.timer = null;
    }
  };
}

/**
 * Each driver is loaded only when it is the one in use: on PostgreSQL, not loading PGlite's modules keeps
 * ~3 MB less resident at idle (87 vs 90 MB), and an embedded start does not load postgres.js.
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const [{ default: postgres }, { drizzle: drizzlePostgres }] = await Promise.all([import('postgres'), import('drizzle-orm/postgres-js')]);
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // Exact money: bigint columns come back as JS bigint, not lossy numbers or strings.
      types: { bigint: postgres.BigInt },
      connection: { application_name: 'conduit' },
    });
    const db = drizzlePostgres(client) as unknown as Database;
    return {
      db,
      driver: 'postgres',
      async listen(channel, onPayload, onListen) {
        const sub = await client.listen(channel, onPayload, onListen);
        return () => sub.unlisten();
      },
      async query<T>(text: string, params: unknown[] = [], options: { prepared?: boolean } = {}) {
        return (await client.unsafe(text, params as never[], { prepare: options.prepared === true })) as unknown as T[];
      },
      async withLock(name, fn) {
        const id = lockId(name);
        const conn = await client.reserve();
        try {
          const [row] = await conn`select pg_try_advisory_lock(${LOCK_NAMESPACE}, ${id}) as locked`;
          if (!row?.locked) return { acquired: false };
          try {
            return { acquired: true, value: await fn() };
          } finally {
            await conn`select pg_advisory_unlock(${LOCK_NAMESPACE}, ${id})`;
          }
        } finally {
          conn.release();
        }
      },
      async *cursor<T>(text: string, params: unknown[], rowsPerBatch: number) {
        const conn = await client.reserve();
        let open = false;
        try {
          await conn.unsafe('begin isolation level repeatable read read only');
          open = true;
          await conn.unsafe(`set local idle_in_transaction_session_timeout = '${CURSOR_IDLE_LIMIT}'`);
          await conn.unsafe(`declare conduit_cursor no scroll cursor for ${text}`, params as never[]);
          // A small first batch: the reader (an HTTP answer) has its first bytes sooner.
          let batch = Math.min(CURSOR_FIRST_BATCH, Math.trunc(rowsPerBatch));
          for (;;) {
            const rows = (await conn.unsafe(`fetch ${batch} from conduit_cursor`)) as unknown as T[];
            if (rows.length > 0) yield rows;
            if (rows.length < batch) break;
            batch = Math.trunc(rowsPerBatch);
          }
          open = false;
          await conn.unsafe('commit');
        } finally {
          // Stopped early or failed: the rollback closes the cursor. A connection that broke meanwhile
          // cannot roll back, and is not reused by postgres.js anyway.
          if (open) await conn.unsafe('rollback').catch(() => undefined);
          conn.release();
        }
      },
      close: () => client.end({ timeout: 5 }),
    };
  }

  // Only this user may enter DATA_DIR: the database in it holds every account, key hash and ledger entry.
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const heldLocks = new Set<string>();
  const dataPath = pgliteDataPath(options.dataDir);
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  const pg = new PGlite(dataPath, pgliteMemoryOptions(PGlite.defaultStartParams));
  await pg.waitReady;
  const stopCollecting = collectWhenGrown();
  restrictToOwner(dataPath);
  const db = drizzlePglite(pg) as unknown as Database;
  const runPrepared = preparedStatements(pg);
  return {
    db,
    driver: 'pglite',
    async listen(channel, onPayload, onListen) {
      const unsubscribe = await pg.listen(channel, onPayload);
      onListen?.();
      return () => unsubscribe();
    },
    async query<T>(text: string, params: unknown[] = [], options: { prepared?: boolean } = {}) {
      if (options.prepared) {
        const rows = await runPrepared<T>(text, params);
        if (rows) return rows;
      }
      return (await pg.query<T>(text, params)).rows;
    },
    // One process owns a PGlite directory, and its one session would re-enter an advisory lock: an
    // in-process set is the whole truth here.
    async withLock(name, fn) {
      if (heldLocks.has(name)) return { acquired: false };
      heldLocks.add(name);
      try {
        return { acquired: true, value: await fn() };
      } finally {
        heldLocks.delete(name);
      }
    },
    async close() {
      stopCollecting();
      await pg.close();
      restrictToOwner(dataPath);
    },
  };
}
