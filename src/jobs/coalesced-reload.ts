// A cache reload that runs once at a time without missing a change. A change notification that arrives
// while a load is reading the tables may have committed after that read: joining the running load would
// keep the old copy until the next periodic refresh (minutes). So a call during a load queues exactly one
// more load after it, and every call made during the same load shares that one.

export function coalescedReload(load: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  function start(): Promise<void> {
    running = load().finally(() => {
      running = null;
    });
    return running;
  }

  return function reload(): Promise<void> {
    if (!running) return start();
    queued ??= running.then(() => {
      queued = null;
      return start();
    });
    return queued;
  };
}
