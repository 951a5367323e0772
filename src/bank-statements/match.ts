// Which счёт an incoming payment pays, proposed for the operator to confirm: a pending счёт whose number the
// purpose names AND whose buyer's ИНН is the payer's AND whose amount is the payment's. Anything less is no
// match, with the reason the operator sees (texts.ts PROBLEMS).
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../db/client';
import { invoiceFromRow, type Invoice } from '../statement';
import { customerRequisites, invoices } from '../statement/tables';
import type { StatementPayment } from './parser';
import { invoiceNumbersIn } from './purpose';
import { bankPayments } from './tables';
import type { Problem } from './texts';

export type Proposal = { status: 'matched'; invoice: Invoice } | { status: 'unmatched'; problem: Problem; invoice: Invoice | null };

/** Whether any customer's requisites, or any счёт's buyer, has this ИНН. */
async function payerKnown(tx: Executor, inn: string): Promise<boolean> {
  if (!inn) return false;
  const [byRequisites] = await tx.select({ id: customerRequisites.userId }).from(customerRequisites).where(eq(customerRequisites.inn, inn)).limit(1);
  if (byRequisites) return true;
  const [byInvoice] = await tx.select({ id: invoices.id }).from(invoices).where(sql`${invoices.customer}->>'inn' = ${inn}`).limit(1);
  return !!byInvoice;
}

/** Счета already proposed for another payment still awaiting confirmation. */
async function heldByOthers(tx: Executor, invoiceIds: string[]): Promise<Set<string>> {
  if (invoiceIds.length === 0) return new Set();
  const rows = await tx
    .select({ invoiceId: bankPayments.invoiceId })
    .from(bankPayments)
    .where(and(inArray(bankPayments.invoiceId, invoiceIds), eq(bankPayments.status, 'matched')));
  return new Set(rows.map((r) => r.invoiceId!));
}

/**
 * The proposal for `payment`. `taken` holds the счета proposed earlier in the same import (two payments of one
 * statement for one счёт: the first is proposed, the second is not).
 */
export async function propose(tx: Executor, payment: Pick<StatementPayment, 'purpose' | 'payerInn' | 'amountNano'>, taken: Set<string>): Promise<Proposal> {
  const numbers = invoiceNumbersIn(payment.purpose);
  const named = numbers.length
    ? (await tx.select().from(invoices).where(inArray(invoices.number, numbers))).map((row) => invoiceFromRow(row)).filter((i) => i.customer.inn === payment.payerInn)
    : [];
  if (named.length === 0) {
    if (!(await payerKnown(tx, payment.payerInn))) return { status: 'unmatched', problem: 'payer_unknown', invoice: null };
    return { status: 'unmatched', problem: numbers.length ? 'invoice_not_found' : 'no_invoice_number', invoice: null };
  }
  const held = await heldByOthers(
    tx,
    named.map((i) => i.id),
  );
  const free = (i: Invoice) => !taken.has(i.id) && !held.has(i.id);
  const match = named.find((i) => i.status === 'pending' && i.amountNano === payment.amountNano && free(i));
  if (match) return { status: 'matched', invoice: match };
  // The closest miss, in the order an operator would want to hear it.
  const pendingSame = named.find((i) => i.status === 'pending' && i.amountNano === payment.amountNano);
  if (pendingSame) return { status: 'unmatched', problem: 'invoice_taken', invoice: pendingSame };
  const pending = named.find((i) => i.status === 'pending');
  if (pending) return { status: 'unmatched', problem: 'amount_mismatch', invoice: pending };
  const paid = named.find((i) => i.status === 'paid');
  if (paid) return { status: 'unmatched', problem: 'invoice_paid', invoice: paid };
  return { status: 'unmatched', problem: 'invoice_cancelled', invoice: named[0]! };
}
