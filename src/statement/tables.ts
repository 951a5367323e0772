// Statement of account and closing documents (src/statement/): the requisites the monthly счёт and акт print.
import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { updatedAt } from '../db/columns';
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
  updatedAt: updatedAt(),
});
