// When a person answers the agent's clients, from the agent's working hours (fields.ts): whether someone is
// at work now and, if not, when the next working day starts — so the client is told a time a person can
// keep, a hand-over made at night is not counted as unanswered before the morning, the owner is not woken
// by it (the morning summary lists it instead), and no automatic message reaches a client at night.
import type { WorkingHours } from './fields';

export type Availability =
  /** No working hours set: no time can be promised. */
  | { kind: 'unknown' }
  /** At work now, until `until` (HH:MM) in the agent's zone. */
  | { kind: 'open'; until: string }
  /** Not at work; the next working day starts at `opensAt`, told as `day` ('today' | 'tomorrow' | 1..7) and `time`. */
  | { kind: 'closed'; opensAt: Date; day: 'today' | 'tomorrow' | number; time: string };

const WEEKDAY_NUMBER: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

/** The weekday (1 = Monday) and minute of the day of an instant in a time zone. */
function localClock(now: Date, timeZone: string): { weekday: number; minutes: number } {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { weekday: WEEKDAY_NUMBER[part('weekday')] ?? 1, minutes: Number(part('hour')) * 60 + Number(part('minute')) };
}

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** The zone the agent's hours are kept in: their own, else the service's default (YCLIENTS_TIME_ZONE). */
export function zoneOf(hours: Pick<WorkingHours, 'timeZone'> | null | undefined, defaultTimeZone: string): string {
  return hours?.timeZone || defaultTimeZone;
}

/** Whether a person is at work at `now`, and when the next working day starts if not. */
export function availabilityAt(hours: WorkingHours | null, now: Date, defaultTimeZone: string): Availability {
  if (!hours || hours.days.length === 0) return { kind: 'unknown' };
  const { weekday, minutes } = localClock(now, zoneOf(hours, defaultTimeZone));
  const from = minutesOf(hours.from);
  const to = minutesOf(hours.to);
  const works = (day: number) => hours.days.includes(((day - 1) % 7) + 1);
  if (works(weekday) && minutes >= from && minutes < to) return { kind: 'open', until: hours.to };
  for (let ahead = 0; ahead <= 7; ahead++) {
    if (!works(weekday + ahead)) continue;
    if (ahead === 0 && minutes >= from) continue;
    // Whole minutes from now; a daylight-saving shift in between moves it by its hour, which a salon forgives.
    const opensAt = new Date(now.getTime() + (ahead * 1440 - minutes + from) * 60_000 - now.getUTCSeconds() * 1000 - now.getUTCMilliseconds());
    const day = ahead === 0 ? 'today' : ahead === 1 ? 'tomorrow' : ((weekday + ahead - 1) % 7) + 1;
    return { kind: 'closed', opensAt, day, time: hours.from };
  }
  return { kind: 'unknown' };
}

/**
 * From when a client handed over at `since` is waiting for a person: then, or — handed over outside working
 * hours — when the next working day starts.
 */
export function waitingFrom(hours: WorkingHours | null, since: Date, defaultTimeZone: string): Date {
  const at = availabilityAt(hours, since, defaultTimeZone);
  return at.kind === 'closed' ? at.opensAt : since;
}

/**
 * How many milliseconds of working time lie between `since` and `until`: the whole span without working hours
 * set, else only the minutes a person was at work — a hand-over made at 18:50 with the salon closing at 19:00
 * has waited ten minutes at 10:00 the next morning, not fifteen hours.
 */
export function workingMsBetween(hours: WorkingHours | null, since: Date, until: Date, defaultTimeZone: string): number {
  if (until.getTime() <= since.getTime()) return 0;
  if (!hours || hours.days.length === 0) return until.getTime() - since.getTime();
  let total = 0;
  let at = since;
  // Each step ends a working spell or skips a closed one; a fortnight of steps covers any wait the sweep sees.
  for (let step = 0; step < 32 && at.getTime() < until.getTime(); step++) {
    const now = availabilityAt(hours, at, defaultTimeZone);
    if (now.kind === 'unknown') return total + (until.getTime() - at.getTime());
    if (now.kind === 'closed') {
      at = now.opensAt.getTime() > at.getTime() ? now.opensAt : new Date(at.getTime() + 60_000);
      continue;
    }
    const { minutes } = localClock(at, zoneOf(hours, defaultTimeZone));
    const closesAt = at.getTime() + (minutesOf(now.until) - minutes) * 60_000 - (at.getTime() % 60_000);
    const end = Math.min(closesAt, until.getTime());
    total += Math.max(0, end - at.getTime());
    at = new Date(Math.max(end, at.getTime() + 1));
  }
  return total;
}
