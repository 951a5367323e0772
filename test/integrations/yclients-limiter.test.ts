// The process-wide YCLIENTS limiter on its own: windows shortened so a "minute" passes in a test.
import { describe, expect, test } from 'bun:test';
import { createYclientsLimiter } from '../../src/integrations/booking/limiter';

/** Acquires `n` slots at once and records, in order, when each was granted (ms after the start) and its label. */
function grantsOf(limiter: ReturnType<typeof createYclientsLimiter>, started: number) {
  const log: { label: string; at: number }[] = [];
  const take = (label: string) => limiter.acquire().then(() => log.push({ label, at: performance.now() - started }));
  return { log, take };
}

describe('YCLIENTS limiter', () => {
  test('at most perSecond grants in any second window', async () => {
    const limiter = createYclientsLimiter({ perSecond: 3, perMinute: 100, secondMs: 200, minuteMs: 10_000 });
    const started = performance.now();
    const { log, take } = grantsOf(limiter, started);
    await Promise.all(Array.from({ length: 7 }, (_, i) => take(`r${i}`)));
    const times = log.map((g) => g.at);
    for (let i = 3; i < times.length; i++) expect(times[i]! - times[i - 3]!).toBeGreaterThanOrEqual(200);
    expect(times.at(-1)!).toBeGreaterThanOrEqual(400);
  });

  test('at most perMinute grants in any minute window', async () => {
    const limiter = createYclientsLimiter({ perSecond: 100, perMinute: 4, secondMs: 50, minuteMs: 400 });
    const started = performance.now();
    const { log, take } = grantsOf(limiter, started);
    await Promise.all(Array.from({ length: 6 }, (_, i) => take(`r${i}`)));
    expect(log.slice(0, 4).every((g) => g.at < 100)).toBe(true);
    expect(log[4]!.at).toBeGreaterThanOrEqual(400);
  });

  test('live calls go before queued background ones; background work leaves part of the minute to live calls', async () => {
    const limiter = createYclientsLimiter({ perSecond: 1, perMinute: 100, secondMs: 150, minuteMs: 10_000 });
    const started = performance.now();
    const { log, take } = grantsOf(limiter, started);
    const background = limiter.background(() => Promise.all([take('b1'), take('b2'), take('b3')]));
    await Bun.sleep(20);
    const live = take('live');
    await Promise.all([background, live]);
    expect(log.map((g) => g.label)).toEqual(['b1', 'live', 'b2', 'b3']);

    const reserved = createYclientsLimiter({ perSecond: 100, perMinute: 10, secondMs: 50, minuteMs: 500 });
    const t0 = performance.now();
    const bg = grantsOf(reserved, t0);
    const work = reserved.background(() => Promise.all(Array.from({ length: 10 }, (_, i) => bg.take(`b${i}`))));
    await Bun.sleep(100);
    // One of the ten is kept for live calls: the tenth background call waits for the window to move.
    expect(bg.log).toHaveLength(9);
    await reserved.acquire();
    expect(performance.now() - t0).toBeLessThan(300);
    await work;
    expect(bg.log.at(-1)!.at).toBeGreaterThanOrEqual(450);
  });

  test('pause(): nobody is let through until it is over', async () => {
    const limiter = createYclientsLimiter({ perSecond: 10, perMinute: 100 });
    limiter.pause(300);
    const started = performance.now();
    await limiter.acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });
});

describe('configuration', () => {
  test('YCLIENTS_RATE_PER_SECOND / _PER_MINUTE default to YCLIENTS’ own 5 and 200; YCLIENTS_TIME_ZONE must be an IANA zone', async () => {
    const { loadConfig, ConfigError } = await import('../../src/config');
    const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), ENCRYPTION_KEY: '0'.repeat(64) };
    expect(loadConfig(base).config).toMatchObject({ yclientsRatePerSecond: 5, yclientsRatePerMinute: 200, yclientsTimeZone: 'Europe/Moscow' });
    expect(loadConfig({ ...base, YCLIENTS_RATE_PER_SECOND: '2', YCLIENTS_RATE_PER_MINUTE: '90', YCLIENTS_TIME_ZONE: 'Asia/Yekaterinburg' }).config).toMatchObject({
      yclientsRatePerSecond: 2,
      yclientsRatePerMinute: 90,
      yclientsTimeZone: 'Asia/Yekaterinburg',
    });
    for (const bad of [{ YCLIENTS_TIME_ZONE: 'Moscow/Kremlin' }, { YCLIENTS_RATE_PER_SECOND: '0' }, { YCLIENTS_RATE_PER_MINUTE: 'many' }]) {
      expect(() => loadConfig({ ...base, ...bad })).toThrow(ConfigError);
    }
  });
});
