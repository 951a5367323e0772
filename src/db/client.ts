// One Database type over two drivers: postgres.js when DATABASE_URL is set, embedded PGlite otherwise.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
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
  /** Runs raw SQL and returns its rows, whatever the driver. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * Runs `fn` while this process holds the named lock across every instance sharing the database
   * (a PostgreSQL session advisory lock on a connection set aside for it), or skips it when another
   * holder has it. The connection is not otherwise used, so `fn` may take its time without blocking
   * requests or holding a transaction open.
   */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<{ acquired: true; value: T } | { acquired: false }>;
  close(): Promise<void>;
}

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

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const client = postgres(options.databaseUrl, {
      max: options.maxConnections ?? 10,
      onnotice: () => {},
      // Exact money: bigint columns come back as JS bigint, not lossy numbers or strings.
      types: { bigint: postgres.BigInt },
      connection: { application_name: 'conduit' },
    });
    const db = drizzlePostgres(client, { schema }) as unknown as Database;
    return {
      db,
      driver: 'postgres',
      async listen(channel, onPayload, onListen) {
        const sub = await client.listen(channel, onPayload, onListen);
        return () => sub.unlisten();
      },
      async query<T>(text: string, params: unknown[] = []) {
        return (await client.unsafe(text, params as never[])) as unknown as T[];
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
      close: () => client.end({ timeout: 5 }),
    };
  }

  mkdirSync(options.dataDir, { recursive: true });
  const heldLocks = new Set<string>();
  const pg = new PGlite(pgliteDataPath(options.dataDir));
  await pg.waitReady;
  const db = drizzlePglite(pg, { schema }) as unknown as Database;
  return {
    db,
    driver: 'pglite',
    async listen(channel, onPayload, onListen) {
      const unsubscribe = await pg.listen(channel, onPayload);
      onListen?.();
      return () => unsubscribe();
    },
    async query<T>(text: string, params: unknown[] = []) {
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
    close: () => pg.close(),
  };
}
