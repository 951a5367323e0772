// What the end of a top-up means for saved cards and auto top-up, run by topups.ts inside the transaction
// that credits or cancels it (so each happens exactly once, with the change it follows):
// - a top-up paid with «Сохранить карту» whose payment YooKassa says saved the method: the card is kept
//   (its method id sealed; a newer card replaces an older one);
// - an auto payment that succeeded: the failure count is reset and the latch re-armed (a balance still
//   below the threshold tops up again with the next charge, within the monthly limit);
// - an auto payment that was canceled: counted; the user is mailed; the third in a row switches auto
//   top-up off; a method YooKassa no longer keeps (`saved: false`, permission_revoked) is forgotten and
//   auto top-up switched off at once.
import { eq, sql } from 'drizzle-orm';
import { users } from '../accounts/tables';
import { ALERT_MAIL_KIND, mailBodies } from '../alerts';
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Executor } from '../db/client';
import { enqueueOutbox } from '../jobs/outbox';
import type { Logger } from '../logger';
import { formatMoneyText } from '../money';
import { AUTO_TOPUP_MAX_FAILURES } from './auto-topup-input';
import { autoTopups, savedCards } from './tables';
import { autoPaymentReasonText, autoTopupFailedMail } from './texts';
import type { TopupHooks, TopupRow } from './topups';

/** Sealed under this name: a box error names the setting, never the value. */
export const METHOD_SECRET_NAME = 'paymentMethodId';

export function createAutoTopupOutcomes(deps: { box: SecretBox; logger: Logger; config: Pick<Config, 'publicBaseUrl' | 'balanceCurrency' | 'smtp'> }): TopupHooks {
  const { box, logger, config } = deps;

  /** Forgets the account's card if it is the one this payment used (a newer card saved meanwhile stays). */
  async function forgetCard(tx: Executor, userId: string, methodId: string | null): Promise<boolean> {
    const [card] = await tx.select().from(savedCards).where(eq(savedCards.userId, userId)).for('update');
    if (!card) return false;
    if (methodId !== null && box.open(card.methodIdSealed, METHOD_SECRET_NAME) !== methodId) return false;
    await tx.delete(savedCards).where(eq(savedCards.userId, userId));
    return true;
  }

  async function mailFailure(tx: Executor, row: TopupRow, p: { card: string; reason: string; outcome: 'retry' | 'off' | 'card_removed'; failures: number }) {
    if (!config.smtp) return;
    // The member who saved the card reads its mail; an organisation's own address is nobody's.
    const [to] = await tx
      .select({ email: users.email, kind: users.kind })
      .from(users)
      .where(eq(users.id, row.actorId ?? row.userId));
    if (!to || to.kind === 'organization') return;
    const url = `${config.publicBaseUrl}/app/topups`;
    const amount = formatMoneyText(row.amountNano, config.balanceCurrency);
    const lines = autoTopupFailedMail.lines({
      amount,
      card: p.card,
      reason: autoPaymentReasonText(p.reason),
      outcome: p.outcome,
      failures: p.failures,
      max: AUTO_TOPUP_MAX_FAILURES,
      url,
    });
    await enqueueOutbox(tx, [{ kind: ALERT_MAIL_KIND, recipient: to.email, payload: { subject: autoTopupFailedMail.subject(amount), ...mailBodies(lines, [url]) } }]);
  }

  return {
    async credited(tx, row, payment) {
      const method = payment.payment_method;
      if (row.saveCard && method?.saved) {
        const card = {
          methodIdSealed: box.seal(method.id),
          title: method.title ?? method.type,
          cardType: method.card?.card_type ?? null,
          last4: method.card?.last4 ?? null,
          expiryMonth: method.card?.expiry_month ?? null,
          expiryYear: method.card?.expiry_year ?? null,
          savedBy: row.actorId ?? row.userId,
          createdAt: new Date(),
        };
        await tx
          .insert(savedCards)
          .values({ userId: row.userId, ...card })
          .onConflictDoUpdate({ target: savedCards.userId, set: card });
        logger.info('card saved for auto top-up', { topupId: row.id, userId: row.userId });
      }
      if (!row.auto) return;
      if (method && !method.saved) {
        // Paid, but YooKassa will not charge the method again.
        await forgetCard(tx, row.userId, method.id);
        await tx.update(autoTopups).set({ enabled: false, consecutiveFailures: 0, updatedAt: new Date() }).where(eq(autoTopups.userId, row.userId));
        logger.warn('auto top-up paid but the card is no longer saved; card forgotten, auto top-up off', { topupId: row.id, userId: row.userId });
        return;
      }
      await tx.update(autoTopups).set({ consecutiveFailures: 0, armed: true, updatedAt: new Date() }).where(eq(autoTopups.userId, row.userId));
    },

    async canceled(tx, row, reason, payment) {
      if (!row.auto) return;
      const [card] = await tx.select({ title: savedCards.title }).from(savedCards).where(eq(savedCards.userId, row.userId));
      const cardName = card?.title ?? payment?.payment_method?.title ?? '';
      const revoked = reason === 'permission_revoked' || payment?.payment_method?.saved === false;
      if (revoked) {
        await forgetCard(tx, row.userId, payment?.payment_method?.id ?? null);
        const [state] = await tx
          .update(autoTopups)
          .set({ enabled: false, consecutiveFailures: sql`${autoTopups.consecutiveFailures} + 1`, updatedAt: new Date() })
          .where(eq(autoTopups.userId, row.userId))
          .returning({ failures: autoTopups.consecutiveFailures });
        logger.warn('auto top-up card no longer usable; card forgotten, auto top-up off', { topupId: row.id, userId: row.userId, reason });
        await mailFailure(tx, row, { card: cardName, reason, outcome: 'card_removed', failures: state?.failures ?? 1 });
        return;
      }
      const [state] = await tx
        .update(autoTopups)
        .set({
          consecutiveFailures: sql`${autoTopups.consecutiveFailures} + 1`,
          enabled: sql`${autoTopups.enabled} and ${autoTopups.consecutiveFailures} + 1 < ${AUTO_TOPUP_MAX_FAILURES}`,
          updatedAt: new Date(),
        })
        .where(eq(autoTopups.userId, row.userId))
        .returning({ failures: autoTopups.consecutiveFailures });
      const failures = state?.failures ?? 1;
      const off = failures >= AUTO_TOPUP_MAX_FAILURES;
      logger.warn('auto top-up payment failed', { topupId: row.id, userId: row.userId, reason, failures, switchedOff: off });
      await mailFailure(tx, row, { card: cardName, reason, outcome: off ? 'off' : 'retry', failures });
    },
  };
}
