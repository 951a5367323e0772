// Auto top-up as the dashboard sends and reads it: zod only (no server imports), so the dashboard checks its
// form with the rules the API applies. Amounts are currency units with at most two decimals (kopecks), as
// for a top-up; the top-up limits (GET /api/billing/config) bound the amount too.
import { z } from 'zod';
import { TOPUP_STATUSES, topupAmountNano } from './topups-input';
import { billingMessages } from './texts';
import { unitsToNano } from '../money';

/** Nano-units of a threshold: zero or more, whole kopecks; null otherwise. */
export function thresholdNano(value: number): bigint | null {
  if (value === 0) return 0n;
  return topupAmountNano(value);
}

const kopecks = (message: string) => z.number({ error: message }).refine((v) => topupAmountNano(v) !== null, message);

export const autoTopupSettingsInput = z
  .object({
    enabled: z.boolean({ error: billingMessages.autoTopupEnabledInvalid }),
    /** X: how much each auto top-up pays. */
    amount: kopecks(billingMessages.autoTopupAmountInvalid),
    /** Y: the balance below which it pays. */
    threshold: z.number({ error: billingMessages.autoTopupThresholdInvalid }).refine((v) => thresholdNano(v) !== null, billingMessages.autoTopupThresholdInvalid),
    /** The most auto top-ups may pay in one calendar month (Moscow time), pending ones included. */
    monthlyLimit: kopecks(billingMessages.autoTopupMonthlyLimitInvalid),
  })
  .superRefine((v, ctx) => {
    const amount = unitsToNano(v.amount);
    const limit = unitsToNano(v.monthlyLimit);
    if (amount !== null && limit !== null && limit < amount) {
      ctx.addIssue({ code: 'custom', path: ['monthlyLimit'], message: billingMessages.autoTopupLimitBelowAmount });
    }
  });

export type AutoTopupSettingsInput = z.infer<typeof autoTopupSettingsInput>;

export const savedCardView = z.object({
  /** As YooKassa names it, e.g. «Bank card *4477». */
  title: z.string(),
  cardType: z.string().nullable(),
  last4: z.string().nullable(),
  expiryMonth: z.string().nullable(),
  expiryYear: z.string().nullable(),
  savedAt: z.string(),
});

export type SavedCardView = z.infer<typeof savedCardView>;

export const autoTopupAttemptView = z.object({
  /** The top-up's id. */
  id: z.string(),
  amount: z.number(),
  status: z.enum(TOPUP_STATUSES),
  /** YooKassa's reason for a cancellation (insufficient_funds, card_expired, …); null otherwise. */
  cancellationReason: z.string().nullable(),
  createdAt: z.string(),
});

export const autoTopupView = z.object({
  /** False when the service takes no top-ups (no YooKassa): nothing here can be switched on. */
  available: z.boolean(),
  enabled: z.boolean(),
  /** Null until the settings were first saved. */
  amount: z.number().nullable(),
  threshold: z.number().nullable(),
  monthlyLimit: z.number().nullable(),
  currency: z.string(),
  card: savedCardView.nullable(),
  /** Auto payments canceled in a row; at AUTO_TOPUP_MAX_FAILURES it switches off. */
  consecutiveFailures: z.number(),
  /** What auto top-ups took (or are taking) this calendar month. */
  monthSpent: z.number(),
  /** The latest auto top-ups, newest first. */
  attempts: z.array(autoTopupAttemptView),
});

export type AutoTopupView = z.infer<typeof autoTopupView>;

/** Canceled auto payments in a row that switch auto top-up off. */
export const AUTO_TOPUP_MAX_FAILURES = 3;
