// The operator's side of счета: every счёт with its state, «отметить оплаченным» (the счёт's amount credited
// once, audited) and «отменить» (audited), and the expiry job that cancels pending счета past their date.
//
// Expiry. A pending счёт past valid_until reads as cancelled everywhere at once (statement/invoices.ts
// effectiveStatus: no GET writes), and the job — every INVOICE_EXPIRY_SECONDS, one instance at a time under an
// advisory lock — writes the status, so the rows and the lists agree. A transfer for a cancelled счёт is not
// matched: it waits among the unmatched payments for the operator.
import { and, desc, eq, gt, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import { recordAudit, type AuditActor } from '../admin';
import type { Database } from '../db/client';
import { AppError } from '../http/errors';
import { nanoToDecimalString } from '../money';
import { type Invoice, invoiceFromRow, type InvoiceStatus } from '../statement';
import { invoices } from '../statement/tables';
import { type SettleConfig, settleTransfer } from './settle';
import { bankMessages } from './texts';

/** The rows whose status, as a reader takes it now, is `status`. */
export function statusIs(status: InvoiceStatus, now: Date): SQL {
  switch (status) {
    case 'pending':
      return and(eq(invoices.status, 'pending'), gt(invoices.validUntil, now))!;
    case 'cancelled':
      return or(eq(invoices.status, 'cancelled'), and(eq(invoices.status, 'pending'), lte(invoices.validUntil, now)))!;
    case 'paid':
      return eq(invoices.status, 'paid');
  }
}

export function createInvoiceAdmin(db: Database, config: SettleConfig) {
  async function find(number: number): Promise<Invoice | null> {
    const [row] = await db.select().from(invoices).where(eq(invoices.number, number)).limit(1);
    return row ? invoiceFromRow(row) : null;
  }

  return {
    find,

    /** Every счёт, newest first, optionally of one status; at most `limit`. */
    async list(filter: { status?: InvoiceStatus | undefined; limit: number }): Promise<Invoice[]> {
      const now = new Date();
      const rows = await db
        .select()
        .from(invoices)
        .where(filter.status ? statusIs(filter.status, now) : undefined)
        .orderBy(desc(invoices.number))
        .limit(filter.limit);
      return rows.map((row) => invoiceFromRow(row, now));
    },

    /**
     * The operator saw the money arrive (by the bank's own means): the счёт's amount credited to its account once,
     * the счёт paid on `paidOn`. A cancelled счёт may be marked paid too — the money came, it is credited. 409 when
     * it is paid already.
     */
    async markPaid(actor: AuditActor, number: number, input: { paidOn: string; note: string }): Promise<Invoice> {
      await db.transaction(async (tx) => {
        const [row] = await tx.select().from(invoices).where(eq(invoices.number, number)).for('update');
        if (!row) throw new AppError('not_found', bankMessages.invoiceNotFound);
        if (row.status === 'paid') throw new AppError('conflict', bankMessages.invoiceAlreadyPaid);
        const reference = `invoice:${row.number}`;
        const credited = await settleTransfer(
          tx,
          config,
          { userId: row.userId, amountNano: row.amountNano, reference, paidOn: input.paidOn, invoiceId: row.id, paidBy: 'manual', adminId: actor.userId },
          row.number,
        );
        if (!credited) throw new AppError('conflict', bankMessages.invoiceAlreadyPaid);
        await recordAudit(tx, actor, {
          action: 'invoice.mark_paid',
          targetType: 'invoice',
          targetId: String(row.number),
          before: { invoiceStatus: invoiceFromRow(row).status },
          after: { invoiceStatus: 'paid', amount: nanoToDecimalString(row.amountNano), paidOn: input.paidOn, reason: input.note, reference, accountId: row.userId },
        });
      });
      return (await find(number))!;
    },

    /** Cancels a pending счёт (a transfer for it then waits among the unmatched); 409 when paid; a cancelled one stays so. */
    async cancel(actor: AuditActor, number: number): Promise<Invoice> {
      await db.transaction(async (tx) => {
        const [row] = await tx.select().from(invoices).where(eq(invoices.number, number)).for('update');
        if (!row) throw new AppError('not_found', bankMessages.invoiceNotFound);
        if (row.status === 'paid') throw new AppError('conflict', bankMessages.invoicePaidCannotCancel);
        if (row.status === 'cancelled') return;
        await tx.update(invoices).set({ status: 'cancelled', cancelledAt: new Date() }).where(eq(invoices.id, row.id));
        await recordAudit(tx, actor, {
          action: 'invoice.cancel',
          targetType: 'invoice',
          targetId: String(row.number),
          before: { invoiceStatus: invoiceFromRow(row).status },
          after: { invoiceStatus: 'cancelled' },
        });
      });
      return (await find(number))!;
    },

    /** Writes «cancelled» on pending счета past their date; how many. Run by the expiry job under its lock. */
    async expire(now = new Date()): Promise<number> {
      const changed = await db
        .update(invoices)
        .set({ status: 'cancelled', cancelledAt: sql`${invoices.validUntil}` })
        .where(and(eq(invoices.status, 'pending'), lte(invoices.validUntil, now)))
        .returning({ id: invoices.id });
      return changed.length;
    },

    /** The счета numbered `numbers`, as readers take them now. */
    async byNumbers(numbers: number[]): Promise<Invoice[]> {
      if (numbers.length === 0) return [];
      const now = new Date();
      const rows = await db.select().from(invoices).where(inArray(invoices.number, numbers));
      return rows.map((row) => invoiceFromRow(row, now));
    },
  };
}

export type InvoiceAdmin = ReturnType<typeof createInvoiceAdmin>;
