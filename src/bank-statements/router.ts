// The operator's routes for bank transfer: /api/admin/invoices (the счета, mark paid, cancel) and the bank
// statements' confirm and payments (/api/admin/bank-statements/{importId}/confirm, /api/admin/bank-payments).
// The upload itself is a raw route (statement-upload.route.ts): its body is a file.
import { z } from 'zod';
import { adminProcedure, inject, router } from '../trpc/init';
import { bankSlot } from './api';
import {
  assignInput,
  confirmInput,
  ignoreInput,
  INVOICE_FILTER_STATUSES,
  invoiceNumberParam,
  listInvoicesInput,
  listPaymentsInput,
  markPaidInput,
  PAYMENT_FILTER_STATUSES,
} from './input';
import { PROBLEMS } from './texts';
import { adminInvoiceView, paymentView } from './views';

const own = inject((use) => ({ bank: use(bankSlot).bank }));
const TAGS = ['admin'];

export const adminInvoiceOutput = z.object({
  number: z.number().int(),
  userId: z.string().describe('Учётная запись покупателя (человек или организация)'),
  amount: z.number(),
  currency: z.string(),
  status: z.enum(INVOICE_FILTER_STATUSES).describe('pending — ждёт оплаты; paid — оплачен; cancelled — отменён или истёк'),
  date: z.string().describe('Дата счёта (ГГГГ-ММ-ДД, по московскому времени)'),
  validUntil: z.string().describe('Последний день действия счёта'),
  paidOn: z.string().nullable().describe('День поступления денег'),
  paidBy: z.enum(['statement', 'manual']).nullable().describe('statement — по выписке; manual — отмечен оператором'),
  customer: z.object({ companyName: z.string(), inn: z.string(), kpp: z.string(), email: z.string() }),
  paymentPurpose: z.string(),
  createdAt: z.string(),
});

export const paymentOutput = z.object({
  id: z.string(),
  importId: z.string().describe('Загрузка выписки, в которой платёж появился впервые'),
  status: z
    .enum(PAYMENT_FILTER_STATUSES)
    .describe('matched — предложен счёт, ждёт подтверждения; unmatched — счёт не найден; credited — зачислен; ignored — отклонён'),
  documentKind: z.string().describe('Вид документа: Платежное поручение, Банковский ордер…'),
  documentNumber: z.string(),
  documentDate: z.string(),
  receivedOn: z.string().describe('ДатаПоступило'),
  amount: z.number(),
  currency: z.string(),
  payerName: z.string(),
  payerInn: z.string(),
  payerKpp: z.string().describe('Пусто у ИП'),
  payerAccount: z.string(),
  payerBank: z.string(),
  purpose: z.string().describe('Назначение платежа'),
  invoiceNumber: z.number().int().nullable().describe('Предложенный или оплаченный счёт'),
  problem: z
    .enum(Object.keys(PROBLEMS) as [keyof typeof PROBLEMS, ...(keyof typeof PROBLEMS)[]])
    .nullable()
    .describe('Почему счёт не предложен (код)'),
  problemText: z.string().nullable().describe('То же по-русски'),
  creditedUserId: z.string().nullable(),
  ignoredReason: z.string().nullable(),
  createdAt: z.string(),
});

export const adminInvoicesRouter = router({
  list: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.invoices', query: '?status=pending|paid|cancelled' },
      openapi: {
        method: 'GET',
        path: '/api/admin/invoices',
        tags: TAGS,
        summary: 'Все счета на оплату, новые первыми, с состоянием',
        description:
          'Счёт, не оплаченный до validUntil включительно, показывается отменённым (cancelled) сразу, а задача отмены записывает это раз в INVOICE_EXPIRY_SECONDS.',
      },
    })
    .input(listInvoicesInput)
    .output(z.object({ invoices: z.array(adminInvoiceOutput) }))
    .query(async ({ ctx, input }) => ({ invoices: (await ctx.bank.invoiceAdmin.list(input)).map(adminInvoiceView) })),

  markPaid: adminProcedure
    .use(own)
    .meta({
      info: 'admin.invoices',
      errors: { 404: 'Счёта с таким номером нет', 409: 'Счёт уже оплачен' },
      openapi: {
        method: 'POST',
        path: '/api/admin/invoices/{number}/mark-paid',
        tags: TAGS,
        summary: 'Отметить счёт оплаченным: сумма счёта зачисляется на баланс покупателя один раз',
        description:
          'Для денег, поступивших не через загруженную выписку. paidOn — день поступления, note — примечание. Отменённый счёт тоже можно ' +
          'отметить оплаченным (деньги пришли — они зачисляются). Покупателю (у организации — владельцам и бухгалтерам) уходит письмо. Пишется в журнал действий.',
      },
    })
    .input(markPaidInput)
    .output(adminInvoiceOutput)
    .mutation(async ({ ctx, input }) => {
      const invoice = await ctx.bank.invoiceAdmin.markPaid(ctx.principal, input.number, { paidOn: input.paidOn, note: input.note });
      ctx.bank.wakeOutbox();
      return adminInvoiceView(invoice);
    }),

  cancel: adminProcedure
    .use(own)
    .meta({
      info: 'admin.invoices',
      errors: { 404: 'Счёта с таким номером нет', 409: 'Оплаченный счёт нельзя отменить' },
      openapi: {
        method: 'POST',
        path: '/api/admin/invoices/{number}/cancel',
        tags: TAGS,
        summary: 'Отменить счёт',
        description:
          'Перевод по отменённому счёту не сопоставляется автоматически, а попадает в несопоставленные платежи. Повтор ничего не меняет. Пишется в журнал действий.',
      },
    })
    .input(invoiceNumberParam)
    .output(adminInvoiceOutput)
    .mutation(async ({ ctx, input }) => adminInvoiceView(await ctx.bank.invoiceAdmin.cancel(ctx.principal, input.number))),
});

export const bankPaymentsRouter = router({
  confirm: adminProcedure
    .use(own)
    .meta({
      info: 'admin.bankStatements',
      errors: { 404: 'Загрузки выписки с таким идентификатором нет' },
      openapi: {
        method: 'POST',
        path: '/api/admin/bank-statements/{importId}/confirm',
        tags: TAGS,
        summary: 'Зачислить подтверждённые совпадения загруженной выписки',
        description:
          'payments — платежи этой загрузки со статусом matched. Каждый зачисляется на баланс владельца счёта один раз, счёт становится ' +
          'оплаченным; если счёт с момента загрузки оплачен, отменён или изменился, платёж переходит в несопоставленные (outcome not_matched). ' +
          'Повтор отвечает already_credited и ничего не зачисляет. Пишется в журнал действий.',
      },
    })
    .input(confirmInput)
    .output(
      z.object({
        payments: z.array(
          z.object({
            id: z.string(),
            outcome: z.enum(['credited', 'already_credited', 'not_matched', 'not_found']),
            problem: z.string().nullable(),
          }),
        ),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const payments = await ctx.bank.payments.confirm(ctx.principal, input.importId, input.payments);
      ctx.bank.wakeOutbox();
      return { payments };
    }),

  list: adminProcedure
    .use(own)
    .meta({
      info: { key: 'admin.bankPayments', query: '?status=unmatched' },
      openapi: {
        method: 'GET',
        path: '/api/admin/bank-payments',
        tags: TAGS,
        summary: 'Входящие платежи из загруженных выписок',
        description: 'status=unmatched — платежи, для которых счёт не найден (problem — почему): их зачисляют вручную (assign) или отклоняют (ignore).',
      },
    })
    .input(listPaymentsInput)
    .output(z.object({ payments: z.array(paymentOutput) }))
    .query(async ({ ctx, input }) => ({ payments: (await ctx.bank.payments.list(input)).map((p) => paymentView(p, ctx.config.balanceCurrency)) })),

  assign: adminProcedure
    .use(own)
    .meta({
      info: 'admin.bankPayments',
      errors: { 404: 'Нет такого платежа, счёта или учётной записи', 409: 'Платёж уже зачислен или отклонён, или счёт уже оплачен' },
      openapi: {
        method: 'POST',
        path: '/api/admin/bank-payments/{id}/assign',
        tags: TAGS,
        summary: 'Зачислить платёж вручную: по счёту или прямо на баланс учётной записи',
        description:
          'Ровно одно из двух: invoiceNumber — счёт, который оплачен (деньги — на баланс его покупателя, счёт становится оплаченным), или userId — ' +
          'учётная запись без счёта. Зачисляется сумма платежа, один раз. Пишется в журнал действий.',
      },
    })
    .input(assignInput)
    .output(paymentOutput)
    .mutation(async ({ ctx, input }) => {
      const payment = await ctx.bank.payments.assign(ctx.principal, input.id, { invoiceNumber: input.invoiceNumber, userId: input.userId });
      ctx.bank.wakeOutbox();
      return paymentView(payment, ctx.config.balanceCurrency);
    }),

  ignore: adminProcedure
    .use(own)
    .meta({
      info: 'admin.bankPayments',
      errors: { 404: 'Платежа нет', 409: 'Платёж уже зачислен' },
      openapi: {
        method: 'POST',
        path: '/api/admin/bank-payments/{id}/ignore',
        tags: TAGS,
        summary: 'Отклонить платёж: он не будет зачислен',
        description: 'reason — почему (возврат, чужой платёж…). Повтор ничего не меняет. Пишется в журнал действий.',
      },
    })
    .input(ignoreInput)
    .output(paymentOutput)
    .mutation(async ({ ctx, input }) => paymentView(await ctx.bank.payments.ignore(ctx.principal, input.id, input.reason), ctx.config.balanceCurrency)),
});
