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
  on<Payload>(event: EventKey<Payload>, listener: (payload: Payload) => void): void;
  /** Calls every listener at once, in the emitter's turn; a listener that throws is logged, not rethrown. */
  emit<Payload>(event: EventKey<Payload>, payload: Payload): void;
}

export function createEvents(logger: Logger): Events {
  const listeners = new Map<string, ((payload: never) => void)[]>();
  return {
    on(event, listener) {
      listeners.set(event.name, [...(listeners.get(event.name) ?? []), listener as (payload: never) => void]);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event.name) ?? []) {
        try {
          (listener as (value: unknown) => void)(payload);
        } catch (error) {
          logger.error('event listener failed', { event: event.name, error });
        }
      }
    },
  };
}
