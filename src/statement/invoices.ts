// Счета на оплату: an amount a customer means to pay by bank transfer, issued before paying (the service is
// prepaid). Each gets the next number across the operator — taken under a transaction-scoped advisory lock, so
// two requests at once on any instances never share or skip one — and keeps both parties' requisites as they
// were when it was issued. Ownership: a customer reads only the счета issued to them.
import { and, count, desc, eq, gt, min, sql } from 'drizzle-orm';
import type { Database } from '../db/client';
import { AppError } from '../http/errors';
import type { CustomerBankDetails, CustomerRequisites, OperatorRequisites } from './requisites';
import { invoices } from './tables';
import { moscowDay } from './moscow';
import { statementMessages } from './texts';

/** The most счета one customer may be issued in 24 hours: enough for any honest use, and numbers stay dense. */
export const INVOICES_PER_DAY = 20;
const DAY_MS = 86_400_000;

export type InvoiceSupplier = Omit<OperatorRequisites, 'updatedAt'>;
/** The buyer as the счёт prints it; an organisation's ОГРН and bank details when it gave them. */
export type InvoiceCustomer = CustomerRequisites & { email: string } & Partial<CustomerBankDetails>;

export const INVOICE_STATUSES = ['pending', 'paid', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface Invoice {
  id: string;
  number: number;
  userId: string;
  amountNano: bigint;
  currency: string;
  supplier: InvoiceSupplier;
  customer: InvoiceCustomer;
  /** As a reader must take it now: a pending счёт past `validUntil` is cancelled even before the job writes so. */
  status: InvoiceStatus;
  validUntil: Date;
  paidAt: Date | null;
  /** The day the money arrived (YYYY-MM-DD), as the bank statement or the operator said. */
  paidOn: string | null;
  paidBy: 'statement' | 'manual' | null;
  paidByAdmin: string | null;
  ledgerReference: string | null;
  cancelledAt: Date | null;
  createdAt: Date;
}

export type InvoiceRow = typeof invoices.$inferSelect;

/**
 * The end of the счёт's last day: the issue day in Moscow plus `validDays`, through midnight — a счёт issued on
 * 29 November for 10 days is good through 9 December, as «действителен до 09.12.2026 включительно» says.
 */
export function validUntilOf(issuedAt: Date, validDays: number): Date {
  const issueDay = Date.parse(`${moscowDay(issuedAt)}T00:00:00+03:00`);
  return new Date(issueDay + (validDays + 1) * DAY_MS);
}

/** The last day (Moscow, YYYY-MM-DD) a счёт is good through. */
export const lastValidDay = (invoice: Pick<Invoice, 'validUntil'>) => moscowDay(new Date(invoice.validUntil.getTime() - 1));

/** The status a row stands for at `now`: pending past its date is cancelled (from validUntil on). */
export function effectiveStatus(row: Pick<InvoiceRow, 'status' | 'validUntil'>, now = new Date()): InvoiceStatus {
  if (row.status === 'pending' && row.validUntil.getTime() <= now.getTime()) return 'cancelled';
  return row.status as InvoiceStatus;
}

export const invoiceFromRow = (row: InvoiceRow, now = new Date()): Invoice => {
  const status = effectiveStatus(row, now);
  return {
    id: row.id,
    number: row.number,
    userId: row.userId,
    amountNano: row.amountNano,
    currency: row.currency,
    // A счёт issued before the signers' names were kept has none: blanks, as the operator had then.
    supplier: { directorName: '', accountantName: '', vatRate: null, ...(row.supplier as Partial<InvoiceSupplier>) } as InvoiceSupplier,
    customer: row.customer as InvoiceCustomer,
    status,
    validUntil: row.validUntil,
    paidAt: row.paidAt,
    paidOn: row.paidOn,
    paidBy: row.paidBy as Invoice['paidBy'],
    paidByAdmin: row.paidByAdmin,
    ledgerReference: row.ledgerReference,
    // Expired but not yet written by the job: cancelled as of its date.
    cancelledAt: row.cancelledAt ?? (status === 'cancelled' ? row.validUntil : null),
    createdAt: row.createdAt,
  };
};
const fromRow = (row: InvoiceRow) => invoiceFromRow(row);

export function createInvoices(db: Database) {
  return {
    /** Issues the next счёт to `userId`, valid `validDays`; 429 past INVOICES_PER_DAY in the last 24 hours. */
    async create(
      userId: string,
      input: { amountNano: bigint; currency: string; supplier: OperatorRequisites; customer: InvoiceCustomer; validDays: number },
      now = new Date(),
    ): Promise<Invoice> {
      const { updatedAt: _updatedAt, ...supplier } = input.supplier;
      return db.transaction(async (tx) => {
        // One number at a time across every instance: the lock is held until this transaction ends.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('conduit.invoices.number'))`);
        const since = new Date(now.getTime() - DAY_MS);
        const [recent] = await tx
          .select({ issued: count(), oldest: min(invoices.createdAt) })
          .from(invoices)
          .where(and(eq(invoices.userId, userId), gt(invoices.createdAt, since)));
        if (recent && recent.issued >= INVOICES_PER_DAY) {
          const oldest = recent.oldest ? new Date(recent.oldest).getTime() : now.getTime();
          const wait = Math.max(1, Math.ceil((oldest + DAY_MS - now.getTime()) / 1000));
          throw new AppError('rate_limit_exceeded', statementMessages.invoicesTooMany(INVOICES_PER_DAY), { headers: { 'retry-after': String(wait) } });
        }
        const [row] = await tx
          .insert(invoices)
          .values({
            number: sql`(select coalesce(max(${invoices.number}), 0) + 1 from ${invoices})`,
            userId,
            amountNano: input.amountNano,
            currency: input.currency,
            supplier,
            customer: input.customer,
            validUntil: validUntilOf(now, input.validDays),
          })
          .returning();
        return fromRow(row!);
      });
    },

    /** The customer's счета, newest first. */
    async list(userId: string, limit = 50): Promise<Invoice[]> {
      const rows = await db.select().from(invoices).where(eq(invoices.userId, userId)).orderBy(desc(invoices.number)).limit(limit);
      return rows.map(fromRow);
    },

    /** The счёт numbered `number` if it was issued to `userId`; null otherwise (another customer's is not told apart). */
    async get(userId: string, number: number): Promise<Invoice | null> {
      const [row] = await db
        .select()
        .from(invoices)
        .where(and(eq(invoices.userId, userId), eq(invoices.number, number)))
        .limit(1);
      return row ? fromRow(row) : null;
    },
  };
}

export type Invoices = ReturnType<typeof createInvoices>;
