// The statement's and the requisites' inputs: zod only, so the dashboard's forms check with the same rules.
import { z } from 'zod';
import { isCalendarDay } from '../http/date-input';
import { digitsInput, lineInput } from '../http/requisites-input';
import { unitsToNano } from '../money';
import { statementMessages } from './texts';

/** The longest period one statement covers: a year and a day, so any calendar year fits. */
export const STATEMENT_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY_TEXT = /^\d{4}-\d{2}-\d{2}$/;
const MONTH_TEXT = /^(\d{4})-(0[1-9]|1[0-2])$/;

export const statementDay = z
  .string()
  .meta({ format: 'date', description: 'День в формате ГГГГ-ММ-ДД (в часовом поясе timeZone)', example: '2026-11-01' })
  .regex(DAY_TEXT, statementMessages.dayInvalid)
  .refine(isCalendarDay, statementMessages.dayInvalid);

/** Both ends included, as days of the caller's time zone; at most STATEMENT_MAX_DAYS days, up to 9999-12-30. */
export const periodIsValid = (period: { from: string; to: string }) =>
  period.from <= period.to && Date.parse(period.to) - Date.parse(period.from) < STATEMENT_MAX_DAYS * DAY_MS && period.to < '9999-12-31';
export const periodIssue = { message: statementMessages.periodInvalid(STATEMENT_MAX_DAYS), path: ['to'] };

/**
 * A calendar month, YYYY-MM, from 0001-01: PostgreSQL has no year 0000 (its date '0000-01-01' is an error,
 * which was a 500), and the days a month's documents cover are looked up as dates.
 */
export const monthInput = z
  .string()
  .meta({ description: 'Месяц в формате ГГГГ-ММ (год от 0001)', example: '2026-11' })
  .regex(MONTH_TEXT, statementMessages.monthInvalid)
  .refine((month) => Number(month.slice(0, 4)) >= 1, statementMessages.monthYearInvalid);

/**
 * A month's closing document: the акт. (A счёт is not a month's document: the service is prepaid, so a счёт is
 * issued for an amount before paying — createInvoiceInput.)
 */
export const DOCUMENT_KINDS = ['act'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** НДС rates a Russian supplier may charge (0 — экспорт, 5 and 7 — УСН with НДС, 10 and 22 — общая система; 20 until 2025). */
export const VAT_RATES = [0, 5, 7, 10, 20, 22] as const;

const digits = digitsInput;
const line = lineInput;

/** The operator's company as the documents print it. КПП may be empty (a sole proprietor has none). */
export const operatorRequisitesInput = z.object({
  companyName: line(300, statementMessages.requiredText('название организации', 300)),
  inn: digits([10, 12], statementMessages.innInvalid),
  kpp: z.union([z.literal(''), digits(9, statementMessages.kppInvalid)]).default(''),
  ogrn: digits([13, 15], statementMessages.ogrnInvalid),
  address: line(500, statementMessages.requiredText('адрес', 500)),
  bankName: line(300, statementMessages.requiredText('название банка', 300)),
  bik: digits(9, statementMessages.bikInvalid),
  account: digits(20, statementMessages.accountInvalid),
  correspondentAccount: digits(20, statementMessages.accountInvalid),
  vatNote: z.string().trim().max(200, statementMessages.vatNoteTooLong).default(''),
  /** НДС included in every amount, percent (the rates of Russian tax law); null: no НДС (УСН, АУСН…). */
  vatRate: z
    .union([
      z.null(),
      z.number({ error: statementMessages.vatRateInvalid }).refine((r) => (VAT_RATES as readonly number[]).includes(r), statementMessages.vatRateInvalid),
    ])
    .default(null),
  /** Printed beside the signature lines; empty: a blank for the name, written by hand. */
  directorName: z.string().trim().max(200, statementMessages.signerNameTooLong).default(''),
  accountantName: z.string().trim().max(200, statementMessages.signerNameTooLong).default(''),
});
export type OperatorRequisitesInput = z.output<typeof operatorRequisitesInput>;

/**
 * The customer's own company, every field optional: empty strings clear them. A КПП belongs to an organisation
 * (10-digit ИНН); a sole proprietor (12-digit ИНН) has none.
 */
export const customerRequisitesInput = z
  .object({
    companyName: z.string().trim().max(300, statementMessages.customerNameTooLong).default(''),
    inn: z.union([z.literal(''), digits([10, 12], statementMessages.innInvalid)]).default(''),
    kpp: z.union([z.literal(''), digits(9, statementMessages.customerKppInvalid)]).default(''),
    address: z.string().trim().max(500, statementMessages.customerAddressTooLong).default(''),
  })
  .refine((r) => !(r.kpp && r.inn.length === 12), { message: statementMessages.kppOfSoleProprietor, path: ['kpp'] });
export type CustomerRequisitesInput = z.output<typeof customerRequisitesInput>;

/** The least and the most one счёт на оплату asks for, in currency units. */
export const INVOICE_MIN_AMOUNT = 100;
export const INVOICE_MAX_AMOUNT = 10_000_000;

const KOPECK_NANO = 10_000_000n;

/** A positive amount in whole kopecks (at most two decimals) within the limits. */
export function invoiceAmountIsValid(amount: number): boolean {
  const nano = unitsToNano(amount);
  return nano !== null && nano % KOPECK_NANO === 0n && amount >= INVOICE_MIN_AMOUNT && amount <= INVOICE_MAX_AMOUNT;
}

/** «Выставить счёт»: the amount to pay by bank transfer, a JSON number such as 1234.56. */
export const createInvoiceInput = z.object({
  amount: z
    .number({ error: statementMessages.invoiceAmountInvalid(INVOICE_MIN_AMOUNT, INVOICE_MAX_AMOUNT) })
    .meta({ description: `Сумма к оплате, от ${INVOICE_MIN_AMOUNT} до ${INVOICE_MAX_AMOUNT}, не больше двух знаков после запятой`, example: 1234.56 })
    .refine(invoiceAmountIsValid, statementMessages.invoiceAmountInvalid(INVOICE_MIN_AMOUNT, INVOICE_MAX_AMOUNT)),
});
export type CreateInvoiceInput = z.output<typeof createInvoiceInput>;
