// In-process events between features: the feature that has news declares the event in its index.ts and
// emits it; a feature that cares subscribes when it is built. The emitter never knows its listeners, so two
// features that must hear of each other need no forward reference in the composition.
import type { Logger } from '../logger';

/** A named event and, in its type, what it carries. */
export interface EventKey<Payload> {
  readonly name: string;
  /** Never set: it only carries the payload's type. */
  readonly payload?: Payload;
}

export function defineEvent<Payload>(name: string): EventKey<Payload> {
  return { name };
}

export interface Events {
  on<Payload>(event: EventKey<Payload>, listener: (payload: Payload) => void | Promise<void>): void;
  /** Calls every listener at once, in the emitter's turn; a listener that throws or rejects is logged, not rethrown. */
  emit<Payload>(event: EventKey<Payload>, payload: Payload): void;
  /**
   * Awaits each listener in turn and lets a failure through: for news that listeners must act on inside the
   * emitter's transaction (the payload carries it), so that the cause and what it causes commit or fail together.
   */
  emitAndWait<Payload>(event: EventKey<Payload>, payload: Payload): Promise<void>;
}

export function createEvents(logger: Logger): Events {
  const listeners = new Map<string, ((payload: never) => void | Promise<void>)[]>();
  const failed = (event: EventKey<unknown>) => (error: unknown) => logger.error('event listener failed', { event: event.name, error });
  return {
    on(event, listener) {
      listeners.set(event.name, [...(listeners.get(event.name) ?? []), listener as (payload: never) => void | Promise<void>]);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event.name) ?? []) {
        try {
          const result = (listener as (value: unknown) => void | Promise<void>)(payload);
          if (result instanceof Promise) result.catch(failed(event));
        } catch (error) {
          failed(event)(error);
        }
      }
    },
    async emitAndWait(event, payload) {
      for (const listener of listeners.get(event.name) ?? []) await (listener as (value: unknown) => void | Promise<void>)(payload);
    },
  };
}
