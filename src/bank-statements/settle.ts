// Money that came by bank transfer, put on an account: the one path every way of crediting it takes (a
// statement's confirmed match, an unmatched payment assigned by hand, a счёт marked paid by the operator).
// In one transaction: the счёт pending (or cancelled) → paid, the ledger row and balance (billing's
// creditTopupOnce: the reference is unique, so a repeat credits nothing), and the payment notice queued in the
// outbox for the account's people. Each caller also flips its own row conditionally in the same transaction,
// so two operators clicking at once credit once.
import { and, eq, inArray } from 'drizzle-orm';
import { users } from '../accounts/tables';
import { ALERT_MAIL_KIND, mailBodies } from '../alerts';
import { creditTopupOnce } from '../billing';
import type { Config } from '../config';
import type { Executor } from '../db/client';
import { enqueueOutbox, type NewOutboxRow } from '../jobs/outbox';
import { formatMoneyText } from '../money';
import { organizationMembers, organizations } from '../organizations/tables';
import { formatDocumentDay } from '../statement';
import { invoices } from '../statement/tables';
import { paymentMail } from './texts';

export type SettleConfig = Pick<Config, 'smtp' | 'publicBaseUrl' | 'balanceCurrency' | 'referral'>;

export interface Settlement {
  userId: string;
  amountNano: bigint;
  /** The ledger reference: `bank:<payment id>` for a statement's payment, `invoice:<number>` for a manual mark. */
  reference: string;
  /** The day the money arrived, YYYY-MM-DD. */
  paidOn: string;
  /** The счёт it pays, if any: marked paid in the same transaction. */
  invoiceId: string | null;
  paidBy: 'statement' | 'manual';
  adminId: string;
}

/** Who is told about money on `userId`: the person, or an organisation's owners and accountants. */
async function recipientsOf(tx: Executor, userId: string): Promise<{ emails: string[]; account: string }> {
  const [user] = await tx.select({ email: users.email, kind: users.kind }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user) return { emails: [], account: paymentMail.personalAccount };
  if (user.kind !== 'organization') return { emails: [user.email], account: paymentMail.personalAccount };
  const [org] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, userId)).limit(1);
  const members = await tx
    .select({ email: users.email })
    .from(organizationMembers)
    .innerJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, userId), inArray(organizationMembers.role, ['owner', 'accountant'])));
  return { emails: members.map((m) => m.email), account: paymentMail.organizationAccount(org?.name ?? '') };
}

/**
 * Credits a transfer once; true when this call credited it, false when the reference was credited before
 * (nothing written then). The счёт, when named, must be pending or cancelled: the caller checked it under the
 * same transaction (a conditional update below makes sure).
 */
export async function settleTransfer(tx: Executor, config: SettleConfig, s: Settlement, invoiceNumber: number | null): Promise<boolean> {
  const ledgerId = await creditTopupOnce(tx, { userId: s.userId, amountNano: s.amountNano, reference: s.reference }, config);
  if (ledgerId === null) return false;
  if (s.invoiceId) {
    await tx
      .update(invoices)
      .set({ status: 'paid', paidAt: new Date(), paidOn: s.paidOn, paidBy: s.paidBy, paidByAdmin: s.adminId, ledgerReference: s.reference, cancelledAt: null })
      .where(and(eq(invoices.id, s.invoiceId), inArray(invoices.status, ['pending', 'cancelled'])));
  }
  if (config.smtp) {
    const { emails, account } = await recipientsOf(tx, s.userId);
    const amount = formatMoneyText(s.amountNano, config.balanceCurrency, 'amount');
    const lines = paymentMail.lines({
      amount,
      account,
      invoice: invoiceNumber === null ? null : String(invoiceNumber),
      paidOn: formatDocumentDay(s.paidOn),
      balanceUrl: `${config.publicBaseUrl}/app/statement`,
    });
    const mail = { subject: paymentMail.subject(amount), ...mailBodies(lines, [`${config.publicBaseUrl}/app/statement`]) };
    const rows: NewOutboxRow[] = emails.map((email) => ({ kind: ALERT_MAIL_KIND, recipient: email, payload: mail }));
    if (rows.length > 0) await enqueueOutbox(tx, rows);
  }
  return true;
}
