// A job that runs every `intervalMs` in this process, never overlapping itself; stop() waits for a run
// in progress. Jobs that must run once across instances wrap their body in DatabaseHandle.withLock.
import type { Logger } from '../logger';

export interface PeriodicJobOptions {
  name: string;
  intervalMs: number;
  run: () => Promise<unknown>;
  logger: Logger;
}

export function createPeriodicJob({ name, intervalMs, run, logger }: PeriodicJobOptions) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = run()
        .then(() => undefined)
        .catch((error) => logger.error('periodic job failed', { job: name, error }))
        .finally(() => {
          running = undefined;
          schedule();
        });
    }, intervalMs);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}

export type PeriodicJob = ReturnType<typeof createPeriodicJob>;
