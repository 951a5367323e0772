// Applies the drizzle-kit migrations in ./drizzle at start-up, once even when instances start together.
import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { DatabaseHandle } from './client';
import type { Schema } from './client';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK_KEY = 7_356_001;

export async function runMigrations(handle: DatabaseHandle, databaseUrl: string | undefined): Promise<void> {
  if (handle.driver === 'pglite') {
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // A session-level advisory lock on a connection of its own serialises instances starting together;
  // the migrations themselves run on the pool.
  const lock = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(handle.db as unknown as PostgresJsDatabase<Schema>, {
      migrationsFolder: MIGRATIONS_FOLDER,
    });
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await lock.end({ timeout: 5 });
  }
}
