// WORKERS: how many server processes share the port (src/supervisor.ts starts them). A part of config.ts
// kept apart for its size: config.ts validates the variable with this schema and resolves it here, and the
// environment a worker starts with is built here from the one config.ts read.
import { availableParallelism } from 'node:os';
import { z } from 'zod';

/** More would only add processes on a machine that has no more cores for them. */
export const MAX_WORKERS = 64;

export const workersFromEnv = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (v) => v === 'auto' || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= MAX_WORKERS),
    `must be a whole number from 1 to ${MAX_WORKERS}, or auto (one per core)`,
  );

export interface WorkersSetting {
  /** Server processes to run; 1 runs the server in the process that was started, as without WORKERS. */
  count: number;
  /** What was asked for: a number, or `auto`. */
  asked: string;
  /** Why fewer run than asked (English, for the start-up log); null when all of them run. */
  note: string | null;
}

/**
 * WORKERS as it applies: `auto` is one per core the process may use. Several processes need PostgreSQL:
 * the embedded database (PGlite) is PostgreSQL compiled into the one process that opens its files, so no
 * second process can share it. There an explicit number above 1 runs one and says why; `auto` runs one
 * without a word (the start-up line shows `workers: 1`).
 */
export function resolveWorkers(value: string | undefined, onPostgres: boolean, cores = availableParallelism()): WorkersSetting {
  const asked = value ?? '1';
  const wanted = asked === 'auto' ? Math.min(Math.max(cores, 1), MAX_WORKERS) : Number(asked);
  if (wanted > 1 && !onPostgres) {
    const note =
      asked === 'auto'
        ? null
        : `WORKERS=${asked} needs PostgreSQL: without DATABASE_URL the embedded database (PGlite) lives inside the one process that opens its files, so a second process cannot share it. Starting 1 server process; set DATABASE_URL to run ${asked}`;
    return { count: 1, asked, note };
  }
  return { count: wanted, asked, note: null };
}

/**
 * The environment of worker `number`: this process's own (already relaunched with the runtime limits
 * config.ts asks for, so a worker starts with them), its number, and the port: the one the first worker
 * listens on once it does, so that PORT=0 gives every worker the same free port. The public address is
 * the supervisor's, so no worker derives another one from that port.
 */
export function workerEnvironment(
  worker: { number: number; port: number; publicBaseUrl: string },
  env: Record<string, string | undefined> = process.env,
): Record<string, string> {
  const next: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) next[key] = value;
  next.CONDUIT_WORKER = String(worker.number);
  next.PORT = String(worker.port);
  next.PUBLIC_BASE_URL = worker.publicBaseUrl;
  return next;
}
