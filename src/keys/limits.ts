// Spend limits of API keys: the periods they reset in (UTC) and how a limit reads in a message.
import { formatMoneyText } from '../money';

export const LIMIT_RESETS = ['none', 'day', 'week', 'month'] as const;
export type LimitReset = (typeof LIMIT_RESETS)[number];

/** What the gateway needs to enforce a key's limit; null for a key without one. */
export interface KeyLimitRef {
  keyId: string;
  limitReset: LimitReset;
}

/**
 * What the gateway needs to enforce an organisation member's monthly limit (organization_members.spend_limit_nano)
 * on a key the member created in the organisation; null for every other key. `keyId` is the key it came
 * with: a change of the member's limit reaches the gateway as a change of each of their keys.
 */
export interface MemberLimitRef {
  keyId: string;
  organizationId: string;
  memberId: string;
}

/**
 * Start of the period `at` falls in: midnight UTC for a day, Monday 00:00 UTC for a week, the 1st at
 * 00:00 UTC for a month. A limit that never resets has one period that began at the epoch.
 */
export function periodStart(reset: LimitReset, at: Date | number = Date.now()): Date {
  const d = new Date(at);
  switch (reset) {
    case 'none':
      return new Date(0);
    case 'day':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
    case 'week': {
      const sinceMonday = (d.getUTCDay() + 6) % 7;
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - sinceMonday));
    }
    case 'month':
      return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
  }
}

const RESET_WORDS: Record<LimitReset, string> = {
  none: 'всего',
  day: 'в сутки',
  week: 'в неделю',
  month: 'в месяц',
};

/** «1,50 ₽ в сутки» (a period starts at a UTC midnight, 03:00 in Moscow; the owner's screens say so). */
export function describeLimit(limitNano: bigint, reset: LimitReset, currency: string): string {
  return `${formatMoneyText(limitNano, currency)} ${RESET_WORDS[reset]}`;
}
