// One gate for every YCLIENTS request this process makes. YCLIENTS allows an address 5 requests a second and
// 200 a minute (its API Blueprint, "Лимиты") and answers 429 beyond that; the background sync alone can make
// dozens of calls per agent, so without a gate it would use up the allowance and the calls a person is
// waiting for (free times in the dialogue, a booking) would be the ones refused.
//
// Requests wait in two queues: live ones (someone is waiting) always go first, background ones (the sync,
// marked with background()) take what is left and leave part of each minute's allowance to live calls. A 429
// pauses the whole gate, since the limit is the address's, not the request's.
import { AsyncLocalStorage } from 'node:async_hooks';

export type YclientsPriority = 'live' | 'background';

export interface YclientsLimiterOptions {
  /** Requests in any second; YCLIENTS allows 5. */
  perSecond: number;
  /** Requests in any minute; YCLIENTS allows 200. */
  perMinute: number;
  /** Window lengths, shortened by tests. Default 1 s and 60 s. */
  secondMs?: number;
  minuteMs?: number;
  /** Requests of each minute's allowance background work leaves to live calls. Default 10 %, at least 1. */
  liveReserve?: number;
}

export interface YclientsLimiter {
  /** Resolves when one request may be sent; live requests are let through before background ones. */
  acquire(): Promise<void>;
  /** YCLIENTS refused (429): nobody is let through for `ms`. */
  pause(ms: number): void;
  /** Runs `work` with every YCLIENTS request it makes queued as background. */
  background<T>(work: () => Promise<T>): Promise<T>;
  /** The priority a request made here and now would have. */
  priority(): YclientsPriority;
}

export function createYclientsLimiter(options: YclientsLimiterOptions): YclientsLimiter {
  const perSecond = Math.max(1, Math.floor(options.perSecond));
  const perMinute = Math.max(1, Math.floor(options.perMinute));
  const secondMs = options.secondMs ?? 1000;
  const minuteMs = options.minuteMs ?? 60_000;
  // YCLIENTS counts arrivals, not our grants: a request sent right after the window turned may still arrive
  // inside the server's previous window when the one before it was slower on the wire. A small margin.
  const secondWindow = secondMs + Math.ceil(secondMs / 20);
  const minuteWindow = minuteMs + Math.ceil(minuteMs / 60);
  const reserve = Math.min(perMinute - 1, options.liveReserve ?? Math.max(1, Math.round(perMinute / 10)));
  const backgroundPerMinute = Math.max(1, perMinute - reserve);

  const context = new AsyncLocalStorage<YclientsPriority>();
  const queues: Record<YclientsPriority, Array<() => void>> = { live: [], background: [] };
  /** When each request of the last minute window was let through, oldest first. */
  const grants: number[] = [];
  let pausedUntil = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  /** 0 when a request of this priority may go at `now`, else how long until it may. */
  function waitFor(priority: YclientsPriority, now: number): number {
    if (now < pausedUntil) return pausedUntil - now;
    let inSecond = 0;
    for (let i = grants.length - 1; i >= 0 && now - grants[i]! < secondWindow; i--) inSecond += 1;
    if (inSecond >= perSecond) return grants[grants.length - perSecond]! + secondWindow - now;
    const cap = priority === 'live' ? perMinute : backgroundPerMinute;
    if (grants.length >= cap) return grants[grants.length - cap]! + minuteWindow - now;
    return 0;
  }

  function pump(): void {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    const now = performance.now();
    while (grants.length > 0 && now - grants[0]! >= minuteWindow) grants.shift();
    for (;;) {
      const priority: YclientsPriority | null = queues.live.length > 0 ? 'live' : queues.background.length > 0 ? 'background' : null;
      if (!priority) return;
      const wait = waitFor(priority, now);
      if (wait > 0) {
        timer = setTimeout(pump, Math.max(1, Math.ceil(wait)));
        return;
      }
      grants.push(now);
      queues[priority].shift()!();
    }
  }

  return {
    acquire() {
      const priority = context.getStore() ?? 'live';
      return new Promise<void>((resolve) => {
        queues[priority].push(resolve);
        pump();
      });
    },
    pause(ms) {
      pausedUntil = Math.max(pausedUntil, performance.now() + Math.max(0, ms));
      pump();
    },
    background(work) {
      return context.run('background', work);
    },
    priority() {
      return context.getStore() ?? 'live';
    },
  };
}
