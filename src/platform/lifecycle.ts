// Shutdown hooks of background work (batchers, workers), run in reverse order of registration.
import type { Logger } from '../logger';

export function createLifecycle(logger: Logger) {
  const hooks: { name: string; run: () => Promise<void> | void }[] = [];
  return {
    onShutdown(name: string, run: () => Promise<void> | void) {
      hooks.push({ name, run });
    },
    async shutdown() {
      for (const hook of hooks.reverse()) {
        try {
          await hook.run();
        } catch (error) {
          logger.error('shutdown hook failed', { hook: hook.name, error });
        }
      }
      hooks.length = 0;
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
