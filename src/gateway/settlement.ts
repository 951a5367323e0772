// A /v1 request's usage row and its money: the token counts an upstream reports made whole numbers, an answer
// settled against its reservation, and a failure giving the reservation back with the reason.
import type { Logger } from '../logger';
import type { Billing, Reservation, UsageFacts, UsageStatus } from './billing';

/** Far beyond any real answer, within what bigint columns and exact bigint money hold. */
const MAX_REPORTED_TOKENS = 1e12;

/** A reported token count as a whole number: anything not a finite non-negative number counts as 0. */
export function tokenCount(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n <= 0) return 0;
  return Math.min(Math.trunc(n), MAX_REPORTED_TOKENS);
}

/** Gives a reservation back in full and records why (the request never got a billable answer). */
export type FailureRecorder = (status: UsageStatus, error: string, upstreamStatus?: number | null) => void;

/** What a usage row of this request says whatever its outcome: who, which key, which route and model. */
export type RequestFacts = Omit<
  UsageFacts,
  'promptTokens' | 'completionTokens' | 'totalTokens' | 'status' | 'usageSource' | 'upstreamStatus' | 'error' | 'durationMs'
>;

/**
 * Settles an answer, and says so in the log when it cost more than was set aside for it: the completion
 * cap went upstream with the request, so only an upstream that ignored it gets here. It is billed in full
 * all the same (what the reservation does not cover comes from the balance).
 */
export function settleAnswer(billing: Pick<Billing, 'settle'>, logger: Logger, reservation: Reservation, facts: UsageFacts): { costNano: bigint } {
  const settled = billing.settle(reservation, facts);
  if (settled.costNano > reservation.amountNano) {
    logger.warn('an answer cost more than its reservation: the upstream went past the completion cap', {
      requestId: facts.requestId,
      model: facts.model,
      completionTokens: facts.completionTokens,
      reservedNano: reservation.amountNano,
      costNano: settled.costNano,
    });
  }
  return settled;
}

/** The FailureRecorder of one request: its reservation back in full, a usage row of no tokens saying why. */
export function failureRecorder(billing: Pick<Billing, 'release'>, reservation: Reservation, base: RequestFacts, started: number): FailureRecorder {
  return (status, error, upstreamStatus = null) =>
    billing.release(reservation, {
      ...base,
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      status,
      usageSource: 'none',
      upstreamStatus,
      error,
      durationMs: Math.round(performance.now() - started),
    });
}
