// The statement's and the requisites' inputs: zod only, so the dashboard's forms check with the same rules.
import { z } from 'zod';
import { isCalendarDay } from '../http/date-input';
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

export const DOCUMENT_KINDS = ['invoice', 'act'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

const digits = (count: number | readonly number[], message: string) =>
  z
    .string({ error: message })
    .trim()
    .refine((s) => /^\d+$/.test(s) && (typeof count === 'number' ? s.length === count : count.includes(s.length)), message);

const line = (max: number, message: string) => z.string({ error: message }).trim().min(1, message).max(max, message);

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
});
export type OperatorRequisitesInput = z.output<typeof operatorRequisitesInput>;

/** The customer's own company, both optional: empty strings clear them. */
export const customerRequisitesInput = z.object({
  companyName: z.string().trim().max(300, statementMessages.customerNameTooLong).default(''),
  inn: z.union([z.literal(''), digits([10, 12], statementMessages.innInvalid)]).default(''),
});
export type CustomerRequisitesInput = z.output<typeof customerRequisitesInput>;
