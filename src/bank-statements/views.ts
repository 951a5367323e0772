// How счета and bank payments look to the operator's console and API: money as numbers, days as YYYY-MM-DD,
// the reason a payment matched nothing in Russian beside its code.
import { nanoToUnits } from '../money';
import { type Invoice, lastValidDay, moscowDay, paymentPurpose } from '../statement';
import type { ImportSummary, Payment } from './payments';
import { PROBLEMS, type Problem } from './texts';

export function adminInvoiceView(invoice: Invoice) {
  return {
    number: invoice.number,
    userId: invoice.userId,
    amount: nanoToUnits(invoice.amountNano),
    currency: invoice.currency,
    status: invoice.status,
    date: moscowDay(invoice.createdAt),
    validUntil: lastValidDay(invoice),
    paidOn: invoice.paidOn,
    paidBy: invoice.paidBy,
    customer: { companyName: invoice.customer.companyName, inn: invoice.customer.inn, kpp: invoice.customer.kpp, email: invoice.customer.email },
    paymentPurpose: paymentPurpose(invoice),
    createdAt: invoice.createdAt.toISOString(),
  };
}

export function paymentView(p: Payment, currency: string) {
  const problem = (p.problem as Problem | null) ?? null;
  return {
    id: p.id,
    importId: p.importId,
    status: p.status as 'matched' | 'unmatched' | 'credited' | 'ignored',
    documentKind: p.documentKind,
    documentNumber: p.documentNumber,
    documentDate: p.documentDate,
    receivedOn: p.receivedOn,
    amount: nanoToUnits(p.amountNano),
    currency,
    payerName: p.payerName,
    payerInn: p.payerInn,
    payerKpp: p.payerKpp,
    payerAccount: p.payerAccount,
    payerBank: p.payerBank,
    purpose: p.purpose,
    invoiceNumber: p.invoiceNumber,
    problem,
    problemText: problem ? (PROBLEMS[problem] ?? problem) : null,
    creditedUserId: p.creditedUserId,
    ignoredReason: p.ignoredReason,
    createdAt: p.createdAt.toISOString(),
  };
}

export function importView(summary: ImportSummary, currency: string) {
  return {
    importId: summary.importId,
    encoding: summary.encoding,
    periodFrom: summary.periodFrom,
    periodTo: summary.periodTo,
    counts: summary.counts,
    payments: summary.payments.map((p) => ({ ...paymentView(p, currency), duplicate: p.duplicate })),
  };
}
