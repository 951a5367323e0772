// A fresh database per test file: a new PostgreSQL database when DATABASE_URL is set (as in CI),
// otherwise a copy of a migrated PGlite template (a new PGlite directory costs seconds; a copy, ~0.3 s).
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

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = join(tmpdir(), `conduit-test-${process.pid}-${++counter}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dataDir, { recursive: true });

  if (ADMIN_URL) {
    const name = `conduit_test_${process.pid}_${counter}_${randomBytes(3).toString('hex')}`;
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`create database "${name}"`);
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
