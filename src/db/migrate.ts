// Applies the drizzle-kit migrations in ./drizzle at start-up, once even when instances start together.
import { fileURLToPath } from 'node:url';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import type { DatabaseHandle } from './client';

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../drizzle', import.meta.url));

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK_KEY = 7_356_001;

export async function runMigrations(handle: DatabaseHandle, databaseUrl: string | undefined): Promise<void> {
  // The drivers' own modules load with the driver in use (see openDatabase).
  if (handle.driver === 'pglite') {
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // A session-level advisory lock on a connection of its own serialises instances starting together;
  // the migrations themselves run on the pool.
  const [{ default: postgres }, { migrate: migratePostgres }] = await Promise.all([import('postgres'), import('drizzle-orm/postgres-js/migrator')]);
  const lock = postgres(databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    await lock`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(handle.db as unknown as PostgresJsDatabase, {
      migrationsFolder: MIGRATIONS_FOLDER,
    });
    await lock`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
  } finally {
    await lock.end({ timeout: 5 });
  }
}
