// Statement of account and closing documents (src/statement/): the requisites the счёт and акт print, and the
// счета на оплату a customer has been issued.
import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from '../db/columns';
import { users } from '../accounts/tables';

/**
 * The operator's company as the monthly closing documents (счёт, акт) name it: one row (id 1), set by an
 * operator under /api/admin/requisites. Until it exists, the documents are refused with a clear message.
 */
export const operatorRequisites = pgTable(
  'operator_requisites',
  {
    id: integer('id').primaryKey().default(1),
    companyName: text('company_name').notNull(),
    inn: text('inn').notNull(),
    /** Empty for a sole proprietor (ИП), who has no КПП. */
    kpp: text('kpp').notNull().default(''),
    ogrn: text('ogrn').notNull(),
    address: text('address').notNull(),
    bankName: text('bank_name').notNull(),
    bik: text('bik').notNull(),
    /** Расчётный счёт. */
    account: text('account').notNull(),
    /** Корреспондентский счёт банка. */
    correspondentAccount: text('correspondent_account').notNull(),
    /** What the documents say about VAT, as the operator words it («Без НДС (УСН)»); empty: nothing. */
    vatNote: text('vat_note').notNull().default(''),
    /** НДС in percent the documents compute «в том числе НДС» at (amounts include it); null: the operator charges none. */
    vatRate: integer('vat_rate'),
    /** Which monthly closing documents are issued: act | act_and_upd | upd. */
    closingDocuments: text('closing_documents').notNull().default('act'),
    /** The УПД's status (1: a счёт-фактура too, for a VAT payer; 2: a transfer document only); null: 1 with vatRate, 2 without. */
    updStatus: integer('upd_status'),
    /** The head's name as the signature lines print it («Иванов И. И.»); empty: a blank to fill in by hand. */
    directorName: text('director_name').notNull().default(''),
    /** The chief accountant's name for the счёт's second signature line; empty: a blank. */
    accountantName: text('accountant_name').notNull().default(''),
    updatedAt: updatedAt(),
  },
  (t) => [check('operator_requisites_single_row', sql`${t.id} = 1`)],
);

/** A customer's own company for the closing documents; optional (without it they name the e-mail). */
export const customerRequisites = pgTable('customer_requisites', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  companyName: text('company_name').notNull().default(''),
  inn: text('inn').notNull().default(''),
  /** Empty when unknown or for a sole proprietor. */
  kpp: text('kpp').notNull().default(''),
  address: text('address').notNull().default(''),
  /** An organisation's (organizations/): ОГРН and, optionally, its bank details for the documents. */
  ogrn: text('ogrn').notNull().default(''),
  bankName: text('bank_name').notNull().default(''),
  bik: text('bik').notNull().default(''),
  account: text('account').notNull().default(''),
  correspondentAccount: text('correspondent_account').notNull().default(''),
  updatedAt: updatedAt(),
});

/**
 * A счёт на оплату: an amount a customer asked to pay by bank transfer, before paying. Numbered 1, 2, 3 … across
 * the operator (one operator per deployment), so a transfer whose purpose names «Счёт № N» can be matched to it
 * later. Both parties' requisites are kept as they were when it was issued: a счёт does not change afterwards.
 */
export const invoices = pgTable(
  'invoices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    number: integer('number').notNull().unique('invoices_number_unique'),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    currency: text('currency').notNull(),
    /** The operator's requisites at issue (statement/requisites.ts OperatorRequisites without updatedAt). */
    supplier: jsonb('supplier').notNull(),
    /** The customer's requisites and e-mail at issue. */
    customer: jsonb('customer').notNull(),
    /**
     * pending until paid; cancelled by hand or once past valid_until (the expiry job, bank-statements/). A
     * pending row past its valid_until reads as cancelled everywhere before the job gets to it.
     */
    status: text('status').notNull().default('pending'),
    /** Issue + INVOICE_VALID_DAYS: the last moment a transfer against it is expected. */
    validUntil: timestamp('valid_until', { withTimezone: true, mode: 'date' }).notNull(),
    /** When the money was credited (the moment of crediting, not of the transfer). */
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /** The day the money arrived at the operator's bank (ДатаПоступило, or the operator's paidOn). */
    paidOn: date('paid_on', { mode: 'string' }),
    /** How it was found paid: 'statement' (a bank statement's payment) or 'manual' (an operator's mark). */
    paidBy: text('paid_by'),
    /** The operator who confirmed the payment or marked it paid. */
    paidByAdmin: uuid('paid_by_admin').references(() => users.id, { onDelete: 'set null' }),
    /** The ledger row's reference the credit was written with (ledger_entries kind 'topup'). */
    ledgerReference: text('ledger_reference'),
    cancelledAt: timestamp('cancelled_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('invoices_user_idx').on(t.userId, t.createdAt),
    index('invoices_pending_idx').on(t.validUntil).where(sql`${t.status} = 'pending'`),
    check('invoices_status_known', sql`${t.status} in ('pending', 'paid', 'cancelled')`),
    check('invoices_paid_by_known', sql`${t.paidBy} is null or ${t.paidBy} in ('statement', 'manual')`),
    check('invoices_amount_positive', sql`${t.amountNano} > 0`),
    check('invoices_number_positive', sql`${t.number} > 0`),
  ],
);

/**
 * A closing document (акт or УПД) of one account's month, issued once and never changed: its facts (lines,
 * amounts, both parties' requisites, VAT) are frozen in `facts` when it is issued, and its PDF is drawn from
 * them alone. Numbered in one sequence per operator and calendar year of its date (unique (year, number)),
 * taken under an advisory lock. The only change a row ever sees is `status` → superseded, when a correction
 * (a new document with a new number whose `corrects` names it) takes its place.
 */
export const closingDocuments = pgTable(
  'closing_documents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** act | upd. */
    kind: text('kind').notNull(),
    year: integer('year').notNull(),
    number: integer('number').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    /** The month of services, YYYY-MM, Moscow time. */
    month: text('month').notNull(),
    /** The document's date (YYYY-MM-DD, Moscow): the month's last day; a correction's, the day it was issued. */
    date: text('date').notNull(),
    amountNano: bigint('amount_nano', { mode: 'bigint' }).notNull(),
    /** НДС included in the amount; 0 without НДС. */
    vatNano: bigint('vat_nano', { mode: 'bigint' }).notNull(),
    /** Everything the PDF prints (closing-documents.ts ClosingFacts). */
    facts: jsonb('facts').notNull(),
    /** issued | superseded. */
    status: text('status').notNull().default('issued'),
    corrects: uuid('corrects'),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('closing_documents_year_number_unique').on(t.year, t.number),
    /** One issued document of a kind per account and month: running the issue twice issues nothing twice. */
    uniqueIndex('closing_documents_issued_unique').on(t.userId, t.month, t.kind).where(sql`${t.status} = 'issued'`),
    index('closing_documents_user_idx').on(t.userId, t.month),
    index('closing_documents_month_idx').on(t.month),
    check('closing_documents_kind', sql`${t.kind} in ('act', 'upd')`),
    check('closing_documents_status', sql`${t.status} in ('issued', 'superseded')`),
    check('closing_documents_number_positive', sql`${t.number} > 0`),
  ],
);
