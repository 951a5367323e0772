// Balance top-ups as the dashboard sends and reads them: zod only (no server imports), so the dashboard
// checks its form with the rules the API applies. The limits come from GET /api/billing/config.
import { z } from 'zod';
import { billingMessages } from './texts';
import { formatMoneyText, unitsToNano } from '../money';

export const TOPUP_STATUSES = ['pending', 'succeeded', 'canceled'] as const;
export type TopupStatus = (typeof TOPUP_STATUSES)[number];

/** One kopeck (cent) in nano-units: payments are taken in whole kopecks. */
const NANO_PER_MINOR = 10_000_000n;

/** Nano-units of an amount in currency units, or null when it is not a positive number with at most two decimals. */
export function topupAmountNano(amount: number): bigint | null {
  const nano = unitsToNano(amount);
  return nano !== null && nano > 0n && nano % NANO_PER_MINOR === 0n ? nano : null;
}

export const createTopupInput = z.object({
  // A JSON number: "500" as a string is refused like any other non-number (the REST bridge coerces nothing).
  amount: z.number({ error: billingMessages.topupAmountInvalid }).refine((v) => topupAmountNano(v) !== null, billingMessages.topupAmountInvalid),
  /** Keep the card for auto top-up (YooKassa's save_payment_method): the buyer sees it on the payment page. */
  saveCard: z.boolean({ error: billingMessages.saveCardInvalid }).optional(),
});

export type CreateTopupInput = z.infer<typeof createTopupInput>;

export interface TopupLimits {
  minNano: bigint;
  maxNano: bigint;
  currency: string;
}

/** The Russian message for an amount outside the limits (or not an amount at all); null when it may be paid. */
export function topupAmountProblem(amount: number, limits: TopupLimits): string | null {
  const nano = topupAmountNano(amount);
  if (nano === null) return billingMessages.topupAmountInvalid;
  if (nano < limits.minNano || nano > limits.maxNano) {
    return billingMessages.topupAmountRange(formatMoneyText(limits.minNano, limits.currency), formatMoneyText(limits.maxNano, limits.currency));
  }
  return null;
}

export const topupView = z.object({
  id: z.string(),
  /** Currency units. */
  amount: z.number(),
  currency: z.string(),
  status: z.enum(TOPUP_STATUSES),
  /** YooKassa's payment page; null when no payment was created. */
  confirmationUrl: z.string().nullable(),
  /** Why it was canceled (YooKassa's English code such as expired_on_confirmation); null otherwise. */
  cancellationReason: z.string().nullable(),
  createdAt: z.string(),
  creditedAt: z.string().nullable(),
});

export type TopupView = z.infer<typeof topupView>;

export const billingConfigView = z.object({
  /** False when the service takes no top-ups: the dashboard hides the button. */
  enabled: z.boolean(),
  currency: z.string(),
  minAmount: z.number(),
  maxAmount: z.number(),
  /** What a new account starts with (REGISTRATION_BONUS), shown on the registration page. */
  registrationBonus: z.number(),
});

export type BillingConfigView = z.infer<typeof billingConfigView>;
