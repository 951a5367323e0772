// WORKERS > 1 (on PostgreSQL): the process that was started runs no server of its own and opens no database.
// It starts that many workers — this same entry point, each a whole Conduit instance on the shared
// PostgreSQL — that listen on one port with SO_REUSEPORT, so the kernel spreads new connections over them
// and every core serves. The instances already share what must be shared (caches invalidated by NOTIFY,
// jobs under advisory locks, rate windows in the database; docs/workers.md lists what stays per process).
//
// Start-up: worker 1 first, alone, so that it runs the migrations and, with PORT=0, picks the port the others
// then take; then the rest at once. A worker that fails to start stops the whole start (its own error is on
// stderr), as one process failing to start does. Later, a worker that dies is started again after a pause
// (1 s, doubled for each crash in a row up to 30 s; a worker that served a minute counts from 1 s again),
// while the others go on serving. SIGTERM/SIGINT go to every worker, each stops gracefully on its own
// (SHUTDOWN_GRACE_MS), and this process exits once they all have: 0 when each exited 0, else 1.
import type { Subprocess } from 'bun';
import { fileURLToPath } from 'node:url';
import type { Config } from './config';
import type { Logger } from './logger';
import { workerEnvironment } from './workers-config';

const ENTRY = fileURLToPath(new URL('./index.ts', import.meta.url));
const RESTART_DELAY_MS = 1000;
const RESTART_DELAY_MAX_MS = 30_000;
/** A worker that served this long before it died was not crashing in a loop: its next pause is the first. */
const STABLE_AFTER_MS = 60_000;
/** Past the workers' own grace period and their flush, whoever is still running is killed. */
const STOP_MARGIN_MS = 30_000;

/** What a worker tells its supervisor (Bun's IPC channel). */
export interface WorkerMessage {
  type: 'listening';
  port: number;
}

interface Worker {
  number: number;
  proc: Subprocess<'ignore', 'inherit', 'inherit'>;
  startedAt: number;
  /** Crashes in a row before this start (each one sooner than STABLE_AFTER_MS after its start). */
  crashes: number;
  /** The port once the worker listens; rejects when it exits before. */
  listening: Promise<number>;
}

export function isWorkerMessage(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null && (message as WorkerMessage).type === 'listening' && typeof (message as WorkerMessage).port === 'number';
}

export async function superviseWorkers(config: Config, logger: Logger): Promise<void> {
  const count = config.workers.count;
  const workers = new Map<number, Worker>();
  const restarts = new Set<ReturnType<typeof setTimeout>>();
  let port = config.port;
  let started = false;
  let stopping = false;
  let failed = false;
  let allGone: () => void = () => {};
  const gone = new Promise<void>((resolve) => (allGone = resolve));

  function spawn(number: number, crashes: number): Worker {
    let listened: (port: number) => void = () => {};
    let exitedEarly: (error: Error) => void = () => {};
    const listening = new Promise<number>((resolve, reject) => {
      listened = resolve;
      exitedEarly = reject;
    });
    listening.catch(() => {}); // awaited during start-up only
    const proc = Bun.spawn([process.execPath, ...process.execArgv, ENTRY], {
      env: workerEnvironment({ number, port, publicBaseUrl: config.publicBaseUrl }),
      stdin: 'ignore',
      stdout: 'inherit',
      stderr: 'inherit',
      ipc(message) {
        if (isWorkerMessage(message)) listened(message.port);
      },
    });
    const worker: Worker = { number, proc, startedAt: Date.now(), crashes, listening };
    workers.set(number, worker);
    void proc.exited.then(() => {
      exitedEarly(new Error(`worker ${number} exited before listening`));
      onExit(worker);
    });
    return worker;
  }

  function onExit(worker: Worker) {
    if (workers.get(worker.number) === worker) workers.delete(worker.number);
    const { exitCode, signalCode } = worker.proc;
    if (stopping) {
      if (exitCode !== 0) failed = true;
      if (workers.size === 0) allGone();
      return;
    }
    if (!started) return; // start-up's own failure path stops the rest
    const crashes = Date.now() - worker.startedAt >= STABLE_AFTER_MS ? 0 : worker.crashes + 1;
    const delayMs = Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** Math.max(0, crashes - 1));
    logger.error('worker exited; starting it again', { worker: worker.number, workerPid: worker.proc.pid, exitCode, signal: signalCode, inMs: delayMs });
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (stopping) return;
      const next = spawn(worker.number, crashes);
      next.listening.then(
        () => logger.info('worker started again', { worker: next.number, workerPid: next.proc.pid }),
        () => {},
      );
    }, delayMs);
    restarts.add(timer);
  }

  async function stop(signal: NodeJS.Signals): Promise<never> {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    logger.info('shutting down', { signal, workers: [...workers.values()].map((w) => w.proc.pid) });
    if (workers.size === 0) allGone();
    for (const worker of workers.values()) worker.proc.kill(signal);
    const killAt = setTimeout(() => {
      logger.error('workers still running past the grace period: killing them', { workers: [...workers.values()].map((w) => w.proc.pid) });
      failed = true;
      for (const worker of workers.values()) worker.proc.kill('SIGKILL');
    }, config.shutdownGraceMs + STOP_MARGIN_MS);
    await gone;
    clearTimeout(killAt);
    logger.info('stopped', { failed });
    process.exit(failed ? 1 : 0);
  }

  let stopRequested: Promise<never> | undefined;
  const onSignal = (signal: NodeJS.Signals) => void (stopRequested ??= stop(signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  try {
    port = await spawn(1, 0).listening;
    const rest = Array.from({ length: count - 1 }, (_, i) => spawn(i + 2, 0));
    await Promise.all(rest.map((w) => w.listening));
  } catch (error) {
    if (stopping) return;
    logger.error('a worker failed to start; stopping the others', { error });
    failed = true;
    await (stopRequested ??= stop('SIGTERM'));
  }
  if (stopping) return;
  started = true;
  // Only now, as a single process does: a process manager reading this line finds every worker serving.
  logger.info('listening', {
    url: `http://${config.host}:${port}`,
    workers: count,
    workerPids: [...workers.values()].map((w) => w.proc.pid),
    database: 'postgres',
    docs: `${config.publicBaseUrl}/docs`,
  });
}
