// The operator's inputs for счета and bank statements: zod only, so the console's forms check with the same rules.
import { z } from 'zod';
import { isCalendarDay } from '../http/date-input';
import { bankMessages } from './texts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const MAX_NUMBER = 2_147_483_647;

export const invoiceNumberParam = z.object({
  number: z.coerce.number().int().min(1).max(MAX_NUMBER).meta({ description: 'Номер счёта', example: 42 }),
});

export const INVOICE_FILTER_STATUSES = ['pending', 'paid', 'cancelled'] as const;
export const listInvoicesInput = z.object({
  status: z.enum(INVOICE_FILTER_STATUSES).optional().describe('Только счета в этом состоянии'),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Сколько счетов, новые первыми (до 500)'),
});

/** «Отметить оплаченным»: the day the money arrived (not later than today in Moscow) and the operator's note. */
export const markPaidInput = invoiceNumberParam.extend({
  paidOn: z
    .string()
    .regex(DAY, 'ожидается дата в формате ГГГГ-ММ-ДД')
    .refine(isCalendarDay, 'ожидается дата в формате ГГГГ-ММ-ДД')
    .refine((day) => day <= new Date(Date.now() + 3 * 3_600_000).toISOString().slice(0, 10), bankMessages.paidOnInFuture)
    .meta({ description: 'День поступления денег (ГГГГ-ММ-ДД, по московскому времени)', example: '2026-11-30' }),
  note: z.string().trim().max(500, bankMessages.noteTooLong).default('').describe('Примечание оператора: номер платёжного поручения, откуда известно'),
});

export const PAYMENT_FILTER_STATUSES = ['matched', 'unmatched', 'credited', 'ignored'] as const;
export const listPaymentsInput = z.object({
  status: z.enum(PAYMENT_FILTER_STATUSES).optional().describe('Только платежи в этом состоянии'),
  limit: z.coerce.number().int().min(1).max(500).default(200).describe('Сколько платежей, новые первыми (до 500)'),
});

export const confirmInput = z.object({
  importId: z.uuid().describe('Идентификатор загрузки выписки'),
  payments: z.array(z.uuid()).min(1, bankMessages.paymentsRequired).max(500, bankMessages.paymentsRequired).describe('Платежи загрузки, которые зачислить'),
});

export const paymentIdParam = z.object({ id: z.uuid().describe('Идентификатор платежа') });

/** To a счёт (its account; the счёт paid) or straight to an account: exactly one of the two. */
export const assignInput = paymentIdParam
  .extend({
    invoiceNumber: z.number().int().min(1).max(MAX_NUMBER).optional().describe('Номер счёта, который оплачен этим платежом'),
    userId: z.uuid().optional().describe('Учётная запись (человек или организация), на баланс которой зачислить'),
  })
  .refine((v) => (v.invoiceNumber === undefined) !== (v.userId === undefined), { message: bankMessages.assignTarget, path: ['invoiceNumber'] });

export const ignoreInput = paymentIdParam.extend({
  reason: z.string().trim().min(1, bankMessages.reasonRequired).max(500, bankMessages.reasonRequired).describe('Почему платёж не зачисляется'),
});
