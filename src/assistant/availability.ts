// When a person answers the agent's clients, from the agent's working hours (agents/fields.ts): whether
// someone is at work now and, if not, when the next working day starts — so the client is told a time a
// person can keep, and a hand-over made at night is not counted as unanswered before the morning.
import type { WorkingHours } from '../agents';

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

/** Whether a person is at work at `now`, and when the next working day starts if not. */
export function availabilityAt(hours: WorkingHours | null, now: Date, defaultTimeZone: string): Availability {
  if (!hours || hours.days.length === 0) return { kind: 'unknown' };
  const { weekday, minutes } = localClock(now, hours.timeZone ?? defaultTimeZone);
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
