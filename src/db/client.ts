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
  close(): Promise<void>;
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
      close: () => client.end({ timeout: 5 }),
    };
  }

  mkdirSync(options.dataDir, { recursive: true });
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
    close: () => pg.close(),
  };
}
