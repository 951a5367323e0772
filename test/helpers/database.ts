// A fresh database per test file: on PostgreSQL (DATABASE_URL set, as in CI) a copy of a migrated template
// database, otherwise a copy of a migrated PGlite template directory. Migrating a new PostgreSQL database
// cost ~0.8 s per app start (47 migrations); `create database … template …` costs ~0.1 s, and the app's own
// start-up migration then finds every migration applied. A new PGlite directory costs seconds; a copy, ~0.3 s.
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openDatabase, pgliteDataPath } from '../../src/db/client';
import { MIGRATIONS_FOLDER, runMigrations } from '../../src/db/migrate';

export interface TestDatabase {
  /** Set on PostgreSQL; unset means PGlite in dataDir. */
  databaseUrl: string | undefined;
  dataDir: string;
  drop(): Promise<void>;
}

const ADMIN_URL = process.env.DATABASE_URL || undefined;
let counter = 0;

function migrationsFingerprint(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_FOLDER)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    hash.update(file).update(readFileSync(join(MIGRATIONS_FOLDER, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

let templateReady: Promise<string> | undefined;

async function pgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), `conduit-pglite-template-${migrationsFingerprint()}`);
  if (existsSync(join(dir, 'ready'))) return dir;
  // Built aside and renamed into place, so parallel test processes never see half a template.
  const building = `${dir}.building-${process.pid}-${randomBytes(4).toString('hex')}`;
  mkdirSync(building, { recursive: true });
  const handle = await openDatabase({ databaseUrl: undefined, dataDir: building });
  await runMigrations(handle, undefined);
  await handle.close();
  mkdirSync(join(building, 'ready'));
  try {
    renameSync(building, dir);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return dir;
}

/**
 * The PostgreSQL template: named by the migrations and the month (UTC), since a migration makes the current
 * and next month's usage_records partitions. Built once under an advisory lock (parallel test processes, or
 * several checkouts on one server, wait for the first), under a temporary name and renamed, then closed to
 * connections: PostgreSQL copies a template only while nobody is connected to it.
 */
async function postgresTemplate(adminUrl: string): Promise<string> {
  const now = new Date();
  const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  const name = `conduit_template_${migrationsFingerprint()}_${month}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const exists = async (db: string) => (await admin`select 1 from pg_database where datname = ${db}`).length > 0;
    if (await exists(name)) return name;
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK_KEY})`;
    try {
      if (await exists(name)) return name;
      await dropStaleTemplates(admin, name);
      const building = `${name}_b${process.pid}`;
      await admin.unsafe(`create database "${building}"`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const handle = await openDatabase({ databaseUrl: url.toString(), dataDir: tmpdir(), maxConnections: 1 });
      try {
        await runMigrations(handle, url.toString());
      } finally {
        await handle.close();
      }
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      await admin.unsafe(`comment on database "${name}" is '${Date.now()}'`);
      await admin.unsafe(`alter database "${name}" with is_template true allow_connections false`);
      return name;
    } finally {
      await admin`select pg_advisory_unlock(${TEMPLATE_LOCK_KEY})`;
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
}

/** Any constant: only the test helpers take it, on the admin database. */
const TEMPLATE_LOCK_KEY = 7_356_002;
/** A template of other migrations is dropped once this old: long past any run that could still copy it. */
const STALE_TEMPLATE_MS = 6 * 3600_000;

async function dropStaleTemplates(admin: postgres.Sql, keep: string): Promise<void> {
  const rows = await admin<{ datname: string; built: string | null }[]>`
    select datname, shobj_description(oid, 'pg_database') as built from pg_database
    where datname like 'conduit\_template\_%' and datname <> ${keep}`;
  for (const row of rows) {
    // Builders hold the lock we hold: one still being built is a crashed builder's.
    if (/_b\d+$/.test(row.datname)) {
      await admin.unsafe(`drop database if exists "${row.datname}" with (force)`);
      continue;
    }
    const built = Number(row.built);
    if (!Number.isFinite(built) || Date.now() - built < STALE_TEMPLATE_MS) continue;
    await admin.unsafe(`alter database "${row.datname}" with is_template false`);
    await admin.unsafe(`drop database if exists "${row.datname}"`);
  }
}

let postgresTemplateReady: Promise<string> | undefined;

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = join(tmpdir(), `conduit-test-${process.pid}-${++counter}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });

  if (ADMIN_URL) {
    const name = `conduit_test_${process.pid}_${counter}_${randomBytes(3).toString('hex')}`;
    postgresTemplateReady ??= postgresTemplate(ADMIN_URL);
    const template = await postgresTemplateReady;
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database "${name}" template "${template}"`);
    } finally {
      await admin.end({ timeout: 5 });
    }
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      databaseUrl: url.toString(),
      dataDir,
      async drop() {
        const a = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
        try {
          await a.unsafe(`drop database if exists "${name}" with (force)`);
        } finally {
          await a.end({ timeout: 5 });
        }
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }

  templateReady ??= pgliteTemplate();
  const template = await templateReady;
  cpSync(pgliteDataPath(template), pgliteDataPath(dataDir), { recursive: true });
  return {
    databaseUrl: undefined,
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
