// The operator's work with a bank statement: import (read the file, keep each incoming payment once, propose a
// счёт for it — nothing credited), confirm (credit the chosen matches), and the payments no счёт was found for:
// assign by hand (to a счёт, or straight to an account) or ignore. Every step is audited.
//
// Credited once. A payment is one row per dedupe key (Номер, Дата, Сумма, ПлательщикИНН, ПлательщикСчет): a
// repeated or overlapping statement finds it there and reports it as a duplicate. Crediting flips the row from
// matched/unmatched to credited conditionally and writes the ledger row with the reference `bank:<payment id>`
// (unique), both in one transaction: a repeated confirm or assign credits nothing.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { recordAudit, type AuditActor } from '../admin';
import { users } from '../accounts/tables';
import type { Database, Executor } from '../db/client';
import { AppError } from '../http/errors';
import { nanoToDecimalString } from '../money';
import { invoiceFromRow } from '../statement';
import { invoices, operatorRequisites } from '../statement/tables';
import { propose } from './match';
import { readStatement, StatementError, type StatementPayment } from './parser';
import { type SettleConfig, settleTransfer } from './settle';
import { bankPayments, bankStatementImports } from './tables';
import { bankMessages, type Problem } from './texts';

export const PAYMENT_STATUSES = ['matched', 'unmatched', 'credited', 'ignored'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export type PaymentRow = typeof bankPayments.$inferSelect;
export interface Payment extends PaymentRow {
  /** The number of the счёт proposed or paid, if any. */
  invoiceNumber: number | null;
}

export interface ImportSummary {
  importId: string;
  encoding: string;
  periodFrom: string;
  periodTo: string;
  counts: { documents: number; incoming: number; new: number; duplicates: number; outgoing: number; foreign: number };
  /** Every incoming payment of the file; `duplicate` when an earlier import already holds it (shown as it is now). */
  payments: (Payment & { duplicate: boolean })[];
}

export type ConfirmOutcome = 'credited' | 'already_credited' | 'not_matched' | 'not_found';

/** Where two payments of one statement are the same: the bank's own identity of a transfer. */
export const dedupeKey = (p: Pick<StatementPayment, 'number' | 'date' | 'amountNano' | 'payerInn' | 'payerAccount'>) =>
  [p.number, p.date, p.amountNano.toString(), p.payerInn, p.payerAccount].join('|');

const paymentColumns = { payment: bankPayments, invoiceNumber: invoices.number };

async function paymentsWhere(executor: Executor, where: ReturnType<typeof eq> | undefined, limit = 500): Promise<Payment[]> {
  const rows = await executor
    .select(paymentColumns)
    .from(bankPayments)
    .leftJoin(invoices, eq(invoices.id, bankPayments.invoiceId))
    .where(where)
    .orderBy(desc(bankPayments.createdAt), desc(bankPayments.receivedOn))
    .limit(limit);
  return rows.map((r) => ({ ...r.payment, invoiceNumber: r.invoiceNumber }));
}

export function createBankPayments(db: Database, config: SettleConfig) {
  async function one(id: string): Promise<Payment> {
    const [payment] = await paymentsWhere(db, eq(bankPayments.id, id), 1);
    return payment!;
  }

  /** Locks the payment's row; 404 when there is none (or the id is no uuid). */
  async function lockPayment(tx: Executor, id: string): Promise<PaymentRow> {
    const [row] = await tx.select().from(bankPayments).where(eq(bankPayments.id, id)).for('update');
    if (!row) throw new AppError('not_found', bankMessages.paymentNotFound);
    return row;
  }

  /** Credits a locked payment to `userId` (and the счёт, when given) and marks it credited; false if it was before. */
  async function credit(tx: Executor, actor: AuditActor, row: PaymentRow, userId: string, invoice: { id: string; number: number } | null) {
    const reference = `bank:${row.id}`;
    const credited = await settleTransfer(
      tx,
      config,
      { userId, amountNano: row.amountNano, reference, paidOn: row.receivedOn, invoiceId: invoice?.id ?? null, paidBy: 'statement', adminId: actor.userId },
      invoice?.number ?? null,
    );
    if (!credited) return false;
    await tx
      .update(bankPayments)
      .set({
        status: 'credited',
        invoiceId: invoice?.id ?? null,
        problem: null,
        creditedUserId: userId,
        ledgerReference: reference,
        decidedAt: new Date(),
        decidedBy: actor.userId,
      })
      .where(eq(bankPayments.id, row.id));
    return true;
  }

  const auditOf = (row: PaymentRow, extra: Record<string, string | null>) => ({
    amount: nanoToDecimalString(row.amountNano),
    payer: `${row.payerName} (ИНН ${row.payerInn || '—'})`,
    document: `№ ${row.documentNumber} от ${row.documentDate}`,
    ...extra,
  });

  return {
    one,

    async list(filter: { status?: PaymentStatus | undefined; limit: number }): Promise<Payment[]> {
      return paymentsWhere(db, filter.status ? eq(bankPayments.status, filter.status) : undefined, filter.limit);
    },

    /** Reads the statement, keeps its new incoming payments with their proposals; credits nothing. */
    async importStatement(actor: AuditActor, file: { bytes: Uint8Array; name: string }): Promise<ImportSummary> {
      const [operator] = await db.select({ account: operatorRequisites.account }).from(operatorRequisites).limit(1);
      let statement: ReturnType<typeof readStatement>;
      try {
        // Read even without the operator's account: a broken file is told so first.
        statement = readStatement(file.bytes, operator?.account ?? '');
      } catch (error) {
        if (error instanceof StatementError) throw new AppError('invalid_request_error', error.message, { param: 'file' });
        throw error;
      }
      if (!operator) throw new AppError('conflict', bankMessages.accountMissing);
      return db.transaction(async (tx) => {
        // One import at a time: proposals read what earlier imports proposed.
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('conduit.bank-statements.import'))`);
        const counts = {
          documents: statement.documents,
          incoming: statement.incoming.length,
          new: 0,
          duplicates: 0,
          outgoing: statement.outgoing,
          foreign: statement.foreign,
        };
        const [imported] = await tx
          .insert(bankStatementImports)
          .values({
            adminId: actor.userId,
            adminEmail: actor.email,
            fileName: file.name.slice(0, 300),
            encoding: statement.encoding,
            periodFrom: (statement.header.ДатаНачала ?? '').slice(0, 20),
            periodTo: (statement.header.ДатаКонца ?? '').slice(0, 20),
            counts,
          })
          .returning({ id: bankStatementImports.id });
        const importId = imported!.id;
        const taken = new Set<string>();
        const seen: { id: string; duplicate: boolean }[] = [];
        for (const p of statement.incoming) {
          const key = dedupeKey(p);
          const [earlier] = await tx.select({ id: bankPayments.id }).from(bankPayments).where(eq(bankPayments.dedupeKey, key)).limit(1);
          if (earlier) {
            counts.duplicates++;
            if (!seen.some((s) => s.id === earlier.id)) seen.push({ id: earlier.id, duplicate: true });
            continue;
          }
          const proposal = await propose(tx, p, taken);
          if (proposal.status === 'matched') taken.add(proposal.invoice.id);
          const [row] = await tx
            .insert(bankPayments)
            .values({
              importId,
              dedupeKey: key,
              documentKind: p.kind,
              documentNumber: p.number,
              documentDate: p.date,
              receivedOn: p.receivedOn!,
              amountNano: p.amountNano,
              payerName: p.payerName,
              payerInn: p.payerInn,
              payerKpp: p.payerKpp,
              payerAccount: p.payerAccount,
              payerBank: p.payerBank,
              payerBik: p.payerBik,
              purpose: p.purpose,
              raw: p.fields,
              status: proposal.status,
              invoiceId: proposal.invoice?.id ?? null,
              problem: proposal.status === 'unmatched' ? proposal.problem : null,
            })
            .returning({ id: bankPayments.id });
          counts.new++;
          seen.push({ id: row!.id, duplicate: false });
        }
        await tx.update(bankStatementImports).set({ counts }).where(eq(bankStatementImports.id, importId));
        await recordAudit(tx, actor, {
          action: 'bank_statement.import',
          targetType: 'bank_statement',
          targetId: importId,
          before: null,
          after: { file: file.name.slice(0, 300), encoding: statement.encoding, ...Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, String(v)])) },
        });
        const ids = seen.map((s) => s.id);
        const rows = ids.length ? await paymentsWhere(tx, inArray(bankPayments.id, ids) as ReturnType<typeof eq>) : [];
        const byId = new Map(rows.map((r) => [r.id, r]));
        return {
          importId,
          encoding: statement.encoding,
          periodFrom: statement.header.ДатаНачала ?? '',
          periodTo: statement.header.ДатаКонца ?? '',
          counts,
          payments: seen.map((s) => ({ ...byId.get(s.id)!, duplicate: s.duplicate })),
        };
      });
    },

    /**
     * Credits the confirmed matches of an import: each still matched payment whose счёт is still pending with the
     * same amount and buyer's ИНН. One transaction per payment; a repeat answers already_credited.
     */
    async confirm(actor: AuditActor, importId: string, ids: string[]): Promise<{ id: string; outcome: ConfirmOutcome; problem: Problem | null }[]> {
      const [imported] = await db.select({ id: bankStatementImports.id }).from(bankStatementImports).where(eq(bankStatementImports.id, importId)).limit(1);
      if (!imported) throw new AppError('not_found', bankMessages.importNotFound);
      const results: { id: string; outcome: ConfirmOutcome; problem: Problem | null }[] = [];
      for (const id of [...new Set(ids)]) {
        const result = await db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(bankPayments)
            .where(and(eq(bankPayments.id, id), eq(bankPayments.importId, importId)))
            .for('update');
          if (!row) return { id, outcome: 'not_found' as const, problem: null };
          if (row.status === 'credited') return { id, outcome: 'already_credited' as const, problem: null };
          if (row.status !== 'matched' || !row.invoiceId) return { id, outcome: 'not_matched' as const, problem: (row.problem as Problem | null) ?? null };
          const [invoiceRow] = await tx.select().from(invoices).where(eq(invoices.id, row.invoiceId)).for('update');
          const invoice = invoiceRow ? invoiceFromRow(invoiceRow) : null;
          // The счёт may have changed since the import: paid by hand, cancelled, expired.
          const problem: Problem | null = !invoice
            ? 'invoice_not_found'
            : invoice.status === 'paid'
              ? 'invoice_paid'
              : invoice.status === 'cancelled'
                ? 'invoice_cancelled'
                : invoice.amountNano !== row.amountNano
                  ? 'amount_mismatch'
                  : null;
          if (problem || !invoice) {
            await tx.update(bankPayments).set({ status: 'unmatched', problem }).where(eq(bankPayments.id, row.id));
            return { id, outcome: 'not_matched' as const, problem };
          }
          await credit(tx, actor, row, invoice.userId, invoice);
          await recordAudit(tx, actor, {
            action: 'bank_payment.credit',
            targetType: 'bank_payment',
            targetId: row.id,
            before: { paymentStatus: 'matched' },
            after: auditOf(row, { paymentStatus: 'credited', invoice: String(invoice.number), accountId: invoice.userId, reference: `bank:${row.id}` }),
          });
          return { id, outcome: 'credited' as const, problem: null };
        });
        results.push(result);
      }
      return results;
    },

    /**
     * Credits an unmatched (or a matched, not yet confirmed) payment by the operator's choice: to the счёт numbered
     * `invoiceNumber` (its account; the счёт paid), or straight to the account `userId`. The payment's own amount is
     * credited — what came is what the account gets.
     */
    async assign(actor: AuditActor, id: string, target: { invoiceNumber?: number | undefined; userId?: string | undefined }): Promise<Payment> {
      await db.transaction(async (tx) => {
        const row = await lockPayment(tx, id);
        if (row.status === 'credited' || row.status === 'ignored') throw new AppError('conflict', bankMessages.paymentDecided);
        let userId: string;
        let invoice: { id: string; number: number } | null = null;
        if (target.invoiceNumber !== undefined) {
          const [invoiceRow] = await tx.select().from(invoices).where(eq(invoices.number, target.invoiceNumber)).for('update');
          if (!invoiceRow) throw new AppError('not_found', bankMessages.invoiceNotFound, { param: 'invoiceNumber' });
          if (invoiceRow.status === 'paid') throw new AppError('conflict', bankMessages.invoiceAlreadyPaid, { param: 'invoiceNumber' });
          userId = invoiceRow.userId;
          invoice = { id: invoiceRow.id, number: invoiceRow.number };
        } else {
          const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, target.userId!)).limit(1);
          if (!user) throw new AppError('not_found', bankMessages.userNotFound, { param: 'userId' });
          userId = user.id;
        }
        const credited = await credit(tx, actor, row, userId, invoice);
        if (!credited) throw new AppError('conflict', bankMessages.paymentDecided);
        await recordAudit(tx, actor, {
          action: 'bank_payment.assign',
          targetType: 'bank_payment',
          targetId: row.id,
          before: { paymentStatus: row.status },
          after: auditOf(row, { paymentStatus: 'credited', invoice: invoice ? String(invoice.number) : null, accountId: userId, reference: `bank:${row.id}` }),
        });
      });
      return one(id);
    },

    /** Sets a payment aside (not ours, a refund the bank made…) with the operator's reason; a credited one cannot be. */
    async ignore(actor: AuditActor, id: string, reason: string): Promise<Payment> {
      await db.transaction(async (tx) => {
        const row = await lockPayment(tx, id);
        if (row.status === 'credited') throw new AppError('conflict', bankMessages.paymentDecided);
        if (row.status === 'ignored') return;
        await tx
          .update(bankPayments)
          .set({ status: 'ignored', ignoredReason: reason, decidedAt: new Date(), decidedBy: actor.userId })
          .where(eq(bankPayments.id, row.id));
        await recordAudit(tx, actor, {
          action: 'bank_payment.ignore',
          targetType: 'bank_payment',
          targetId: row.id,
          before: { paymentStatus: row.status },
          after: auditOf(row, { paymentStatus: 'ignored', reason }),
        });
      });
      return one(id);
    },
  };
}

export type BankPayments = ReturnType<typeof createBankPayments>;
