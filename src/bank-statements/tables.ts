// Bank statements (src/bank-statements/): the 1C statement files an operator uploaded, and every incoming
// payment they held — once, whatever number of statements repeat it — with what became of it.
import { sql } from 'drizzle-orm';
import { bigint, check, date, index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from '../db/columns';
import { users } from '../accounts/tables';
import { invoices } from '../statement/tables';

/** One uploaded statement file: who, when, what the file said about itself and what it held. */
export const bankStatementImports = pgTable('bank_statement_imports', {
  id: uuid('id').primaryKey().defaultRandom(),
  adminId: uuid('admin_id').references(() => users.id, { onDelete: 'set null' }),
  adminEmail: text('admin_email').notNull(),
  fileName: text('file_name').notNull().default(''),
  /** 'windows-1251' | 'ibm866' | 'utf-8', as detected. */
  encoding: text('encoding').notNull(),
  /** The statement's own period (ДатаНачала, ДатаКонца), as written in it. */
  periodFrom: text('period_from').notNull().default(''),
  periodTo: text('period_to').notNull().default(''),
  /** Counts: documents, incoming, new, duplicates, outgoing, foreign (neither to nor from the operator's account). */
  counts: jsonb('counts').notNull(),
  createdAt: createdAt(),
});

/**
 * An incoming payment to the operator's account, as its statement described it. `dedupeKey` (Номер, Дата,
 * Сумма, ПлательщикИНН, ПлательщикСчет) is unique: the same payment in a later, overlapping statement is the
 * same row. Status: matched (a pending счёт proposed, awaiting the operator's confirmation), unmatched (why
 * in `problem`), credited (the money is on an account: `ledgerReference`), ignored (`ignoredReason`).
 */
export const bankPayments = pgTable(
  'bank_payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    importId: uuid('import_id')
      .notNull()
      .references(() => bankStatementImports.id, { onDelete: 'cascade' }),
    dedupeKey: text('dedupe_key').notNull().unique('bank_payments_dedupe_key_unique'),
    documentKind: text('document_kind').notNull(),
    documentNumber: text('document_number').notNull(),
    /** Дата of the payment order, as a day. */
    documentDate: date('document_date', { mode: 'string' }).notNull(),
    /** ДатаПоступило: the day the money reached the operator's account. */
    receivedOn: date('received_on', { mode: 'string' }).notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    payerName: text('payer_name').notNull(),
    payerInn: text('payer_inn').notNull(),
    payerKpp: text('payer_kpp').notNull(),
    payerAccount: text('payer_account').notNull(),
    payerBank: text('payer_bank').notNull(),
    payerBik: text('payer_bik').notNull(),
    purpose: text('purpose').notNull(),
    /** Every key of the document as the file had it. */
    raw: jsonb('raw').notNull(),
    status: text('status').notNull(),
    /** The счёт proposed (matched) or credited against; null when none. */
    invoiceId: uuid('invoice_id').references(() => invoices.id, { onDelete: 'set null' }),
    /** Why no счёт was proposed (machine code, texts.ts names it); null when matched or decided. */
    problem: text('problem'),
    /** The account the money went to. */
    creditedUserId: uuid('credited_user_id').references(() => users.id, { onDelete: 'set null' }),
    ledgerReference: text('ledger_reference'),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    decidedBy: uuid('decided_by').references(() => users.id, { onDelete: 'set null' }),
    ignoredReason: text('ignored_reason'),
    createdAt: createdAt(),
  },
  (t) => [
    index('bank_payments_status_idx').on(t.status, t.createdAt),
    index('bank_payments_import_idx').on(t.importId),
    index('bank_payments_invoice_idx').on(t.invoiceId),
    check('bank_payments_status_known', sql`${t.status} in ('matched', 'unmatched', 'credited', 'ignored')`),
    check('bank_payments_amount_positive', sql`${t.amountNano} > 0`),
  ],
);
