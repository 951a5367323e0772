// The statement of account, the month list of closing documents and the customer's requisites
// (/api/account/*), and the operator's requisites (/api/admin/requisites). The CSV and PDF files are raw
// routes (routes.ts).
import { z } from 'zod';
import { databaseKnowsTimeZone } from '../db/time-zones';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { nanoToUnits } from '../money';
import { companyRequisitesView } from '../http/requisites-input';
import { timeZone } from '../http/time-zone-input';
import { ORGANIZATION_ACCESS } from '../keys';
import { adminProcedure, publicProcedure, router, userProcedure, inject } from '../trpc/init';
import { DOCUMENT_MONTHS } from './documents';
import {
  CLOSING_DOCUMENT_SETS,
  createInvoiceInput,
  customerRequisitesInput,
  INVOICE_MAX_AMOUNT,
  INVOICE_MIN_AMOUNT,
  operatorRequisitesInput,
  periodIsValid,
  periodIssue,
  statementDay,
  STATEMENT_MAX_DAYS,
} from './input';
import { paymentPurpose } from './invoice-terms';
import { INVOICE_STATUSES, INVOICES_PER_DAY, type Invoice, lastValidDay } from './invoices';
import { moscowDay } from './moscow';
import { monthTitle } from './texts';
import { statementSlot } from './api';
import { closingDocumentView, viewOf } from './closing-router';

/** What these procedures use of the features. */
const own = inject((use) => use(statementSlot));

const JWT_ONLY = 'Авторизация: токен входа (JWT) в Authorization: Bearer.';

const statementLine = z.object({
  at: z.string().describe('Когда (ISO 8601, UTC); у строки расходов за день — время последнего списания дня'),
  day: z.string().describe('День в часовом поясе выписки, ГГГГ-ММ-ДД'),
  kind: z
    .string()
    .meta({ enum: ['registration_bonus', 'topup', 'admin_credit', 'promo', 'referral', 'usage', 'assistant_usage'] })
    .describe(
      'Вид операции: стартовый бонус, пополнение, начисление или списание оператором, промокод, вознаграждение за приглашённого, расходы API, расходы ассистентов',
    ),
  title: z.string().describe('Название операции по-русски'),
  detail: z.string().nullable().describe('Причина начисления оператором или число запросов за день'),
  amount: z.number().describe('Сумма: плюс — поступление, минус — списание'),
  balanceAfter: z.number().describe('Баланс после операции'),
  requests: z.number().int().nullable().describe('Строки расходов: число запросов за день'),
});

const requisitesOutput = companyRequisitesView.extend({
  vatNote: z.string(),
  vatRate: z.number().int().nullable().describe('НДС в процентах, включённый в суммы; null — без НДС'),
  closingDocuments: z.enum(CLOSING_DOCUMENT_SETS).describe('Закрывающие документы месяца: act — акт, act_and_upd — акт и УПД, upd — УПД'),
  updStatus: z
    .union([z.literal(1), z.literal(2)])
    .nullable()
    .describe('Статус УПД: 1 или 2; null — 1 при ставке НДС, 2 без НДС'),
  directorName: z.string(),
  accountantName: z.string(),
  updatedAt: z.string(),
});

const customerRequisitesOutput = z.object({ companyName: z.string(), inn: z.string(), kpp: z.string(), address: z.string() });

const invoiceView = z.object({
  id: z.string(),
  number: z.number().int().describe('Номер счёта: 1, 2, 3 … по порядку у оператора; его называет назначение платежа'),
  amount: z.number().describe('Сумма к оплате'),
  currency: z.string(),
  createdAt: z.string().describe('Когда выставлен (ISO 8601, UTC)'),
  date: z.string().describe('Дата счёта по московскому времени, ГГГГ-ММ-ДД'),
  status: z.enum(INVOICE_STATUSES).describe('pending — ждёт оплаты; paid — оплачен, деньги на балансе; cancelled — отменён оператором или истёк срок (validUntil)'),
  validUntil: z.string().describe('Последний день, когда счёт действителен (по московскому времени, ГГГГ-ММ-ДД)'),
  paidOn: z.string().nullable().describe('Оплаченный счёт: день поступления денег, ГГГГ-ММ-ДД; иначе null'),
  paymentPurpose: z.string().describe('Назначение платежа, которое нужно указать в платёжном поручении'),
  pdfUrl: z.string().describe('GET — счёт в PDF'),
});

export const invoiceOf = (invoice: Invoice) => ({
  id: invoice.id,
  number: invoice.number,
  amount: nanoToUnits(invoice.amountNano),
  currency: invoice.currency,
  createdAt: invoice.createdAt.toISOString(),
  date: moscowDay(invoice.createdAt),
  status: invoice.status,
  validUntil: lastValidDay(invoice),
  paidOn: invoice.paidOn,
  paymentPurpose: paymentPurpose(invoice),
  pdfUrl: `/api/account/invoices/${invoice.number}.pdf`,
});

export const statementRouter = router({
  get: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: { key: 'statement', query: '?from=YYYY-MM-DD&to=YYYY-MM-DD&timeZone=' },
      openapi: {
        method: 'GET',
        path: '/api/account/statement',
        tags: ['account'],
        summary: 'Выписка по счёту за период: все движения баланса с остатками',
        description:
          'Все изменения баланса за дни from..to (включительно, в часовом поясе timeZone, не длиннее ' +
          `${STATEMENT_MAX_DAYS} дней): стартовый бонус, пополнения, начисления и списания оператором (с причиной), ` +
          'расходы — одной строкой за день на вид (API или ассистенты) с числом запросов. balanceAfter — баланс после строки ' +
          '(точный на конец каждого дня), opening и closing — остатки на начало и конец периода. Тот же период файлом: ' +
          `GET /api/account/statement/export. ${JWT_ONLY}`,
      },
    })
    .input(z.object({ from: statementDay, to: statementDay, timeZone }).refine(periodIsValid, periodIssue))
    .output(
      z.object({
        from: z.string(),
        to: z.string(),
        timeZone: z.string(),
        currency: z.string(),
        opening: z.number().describe('Баланс на начало периода'),
        closing: z.number().describe('Баланс на конец периода'),
        credits: z.number().describe('Сумма поступлений за период'),
        debits: z.number().describe('Сумма списаний за период (отрицательная)'),
        lines: z.array(statementLine),
      }),
    )
    .query(async ({ ctx, input }) => {
      if (!(await databaseKnowsTimeZone(ctx.database, input.timeZone))) {
        throw new AppError('invalid_request_error', errorMessages.timeZoneUnknown, { param: 'timeZone' });
      }
      await ctx.billing.flush();
      const s = await ctx.statement.statements.statement(ctx.principal.userId, input);
      return {
        from: s.from,
        to: s.to,
        timeZone: s.timeZone,
        currency: ctx.config.balanceCurrency,
        opening: nanoToUnits(s.openingNano),
        closing: nanoToUnits(s.closingNano),
        credits: nanoToUnits(s.creditsNano),
        debits: nanoToUnits(s.debitsNano),
        lines: s.lines.map((l) => ({
          at: l.at,
          day: l.day,
          kind: l.kind,
          title: l.title,
          detail: l.detail,
          amount: nanoToUnits(l.amountNano),
          balanceAfter: nanoToUnits(l.balanceAfterNano),
          requests: l.requests,
        })),
      };
    }),

  documents: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'documents',
      openapi: {
        method: 'GET',
        path: '/api/account/documents',
        tags: ['account'],
        summary: 'Закрывающие документы (акты, УПД) по месяцам и расходы текущего месяца',
        description:
          `Месяцы (по московскому времени) с платежами, расходами или документами за последние ${DOCUMENT_MONTHS}, новые первыми. ` +
          'documents — выпущенные документы месяца: вид (act — акт, upd — УПД), номер, дата, сумма, НДС, статус (superseded — ' +
          'заменён исправленным документом, который называет его в corrects) и pdfUrl. Документы выпускаются после окончания ' +
          'месяца и больше не меняются. current — текущий месяц: сумма расходов на сейчас, документа по нему ещё нет. paid — ' +
          'платежи месяца (для сверки), spent — расходы месяца. actUrl — PDF действующего акта месяца (null — не выпущен). Счёт ' +
          `на оплату: POST /api/account/invoices. requisitesReady: false — оператор ещё не указал реквизиты. ${JWT_ONLY}`,
      },
    })
    .input(z.void())
    .output(
      z.object({
        requisitesReady: z.boolean(),
        currency: z.string(),
        current: z
          .object({
            month: z.string().describe('ГГГГ-ММ'),
            title: z.string(),
            paid: z.number(),
            spent: z.number().describe('Расходы месяца на сейчас (документа ещё нет)'),
          })
          .describe('Текущий месяц'),
        months: z.array(
          z.object({
            month: z.string().describe('ГГГГ-ММ'),
            title: z.string().describe('Месяц по-русски, например «ноябрь 2026»'),
            current: z.boolean().describe('Месяц ещё идёт: документов по нему нет'),
            paid: z.number().describe('Платежи месяца'),
            spent: z.number().describe('Расходы месяца'),
            actUrl: z.string().nullable().describe('PDF действующего акта (или УПД) месяца; null — не выпущен'),
            documents: z.array(closingDocumentView),
          }),
        ),
      }),
    )
    .query(async ({ ctx }) => {
      await ctx.billing.flush();
      const { documents, requisites, closing } = ctx.statement;
      const userId = ctx.principal.userId;
      const [months, supplier, issued] = await Promise.all([documents.months(userId), requisites.operator(), closing.listFor(userId)]);
      const byMonth = new Map(months.map((m) => [m.month, m]));
      for (const d of issued) if (!byMonth.has(d.month)) byMonth.set(d.month, { month: d.month, current: false, paidNano: 0n, spentNano: 0n });
      const all = [...byMonth.values()].sort((a, b) => (a.month < b.month ? 1 : -1));
      const current = all.find((m) => m.current)!;
      return {
        requisitesReady: supplier !== null,
        currency: ctx.config.balanceCurrency,
        current: { month: current.month, title: monthTitle(current.month), paid: nanoToUnits(current.paidNano), spent: nanoToUnits(current.spentNano) },
        months: all.map((m) => {
          const own = issued.filter((d) => d.month === m.month);
          const act = own.find((d) => d.status === 'issued' && d.kind === 'act') ?? own.find((d) => d.status === 'issued');
          return {
            month: m.month,
            title: monthTitle(m.month),
            current: m.current,
            paid: nanoToUnits(m.paidNano),
            spent: nanoToUnits(m.spentNano),
            actUrl: act ? viewOf(act).pdfUrl : null,
            documents: own.map(viewOf),
          };
        }),
      };
    }),

  requisites: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.balance,
      info: 'customerRequisites',
      openapi: {
        method: 'GET',
        path: '/api/account/requisites',
        tags: ['account'],
        summary: 'Реквизиты покупателя для закрывающих документов',
        description: `Название организации, ИНН, КПП и адрес, которые счёт и акт называют покупателем; без названия документы называют e-mail учётной записи. ${JWT_ONLY}`,
      },
    })
    .input(z.void())
    .output(customerRequisitesOutput)
    .query(({ ctx }) => ctx.statement.requisites.customer(ctx.principal.userId)),

  updateRequisites: userProcedure
    .use(own)
    .meta({
      info: { key: 'customerRequisites', apart: true },
      openapi: {
        method: 'PUT',
        path: '/api/account/requisites',
        tags: ['account'],
        summary: 'Указать реквизиты покупателя (необязательно)',
        description: `Пустая строка стирает поле. ИНН — 10 или 12 цифр, КПП — 9 цифр (у ИП с ИНН из 12 цифр КПП нет), адрес — до 500 символов. Уже выставленные счета не меняются. ${JWT_ONLY}`,
      },
    })
    .input(customerRequisitesInput)
    .output(customerRequisitesOutput)
    .mutation(({ ctx, input }) => ctx.statement.requisites.putCustomer(ctx.principal.userId, input)),
});

export const invoicesRouter = router({
  list: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'invoices.list',
      openapi: {
        method: 'GET',
        path: '/api/account/invoices',
        tags: ['account'],
        summary: 'Счета на оплату, выставленные учётной записи',
        description:
          'Последние 50 счетов, новые первыми, с состоянием (ждёт оплаты, оплачен, отменён) и адресом PDF. minAmount и maxAmount — пределы суммы нового счёта; requisitesReady: ' +
          `false — оператор ещё не указал реквизиты, счёт выставить нельзя. ${JWT_ONLY}`,
      },
    })
    .input(z.void())
    .output(
      z.object({
        requisitesReady: z.boolean(),
        currency: z.string(),
        minAmount: z.number(),
        maxAmount: z.number(),
        invoices: z.array(invoiceView),
      }),
    )
    .query(async ({ ctx }) => {
      const [invoices, supplier] = await Promise.all([ctx.statement.invoices.list(ctx.principal.userId), ctx.statement.requisites.operator()]);
      return {
        requisitesReady: supplier !== null,
        currency: ctx.config.balanceCurrency,
        minAmount: INVOICE_MIN_AMOUNT,
        maxAmount: INVOICE_MAX_AMOUNT,
        invoices: invoices.map(invoiceOf),
      };
    }),

  create: userProcedure
    .use(own)
    .meta({
      organizationRoles: ORGANIZATION_ACCESS.money,
      info: 'invoices.create',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/account/invoices',
        tags: ['account'],
        summary: 'Выставить счёт на оплату банковским переводом',
        successDescription: 'Счёт выставлен: его номер и адрес PDF',
        description:
          `Сумма от ${INVOICE_MIN_AMOUNT} до ${INVOICE_MAX_AMOUNT}, не больше двух знаков после запятой. Счёт получает следующий ` +
          'номер оператора и хранит реквизиты обеих сторон на момент выставления; PDF — по pdfUrl. Перевод по счёту будет ' +
          'сопоставлен по номеру в назначении платежа (paymentPurpose), ИНН плательщика и сумме. Счёт действителен ' +
          `INVOICE_VALID_DAYS дней (validUntil), потом отменяется. Не больше ${INVOICES_PER_DAY} счетов за сутки (429 с Retry-After). ` +
          `409 — оператор ещё не указал реквизиты или у покупателя нет названия и ИНН (PUT /api/account/requisites). ${JWT_ONLY}`,
      },
    })
    .input(createInvoiceInput)
    .output(invoiceView)
    .mutation(async ({ ctx, input }) => invoiceOf(await ctx.statement.issueInvoice(ctx.principal.userId, input.amount))),
});

export const supportRouter = router({
  contact: publicProcedure
    .use(own)
    .meta({
      info: 'support',
      openapi: {
        method: 'GET',
        path: '/api/support',
        tags: ['auth'],
        summary: 'Контакт поддержки',
        description: 'SUPPORT_CONTACT оператора (e-mail, адрес страницы или телефон) или null, если он не задан. Без авторизации: его показывает страница входа.',
      },
    })
    .input(z.void())
    .output(z.object({ contact: z.string().nullable() }))
    .query(({ ctx }) => ({ contact: ctx.config.supportContact ?? null })),
});

export const adminRequisitesRouter = router({
  get: adminProcedure
    .use(own)
    .meta({
      info: 'admin.requisites',
      openapi: {
        method: 'GET',
        path: '/api/admin/requisites',
        tags: ['admin'],
        summary: 'Реквизиты оператора для счетов и актов',
        description: 'requisites: null — ещё не заданы (пользователям документы недоступны).',
      },
    })
    .input(z.void())
    .output(z.object({ requisites: requisitesOutput.nullable() }))
    .query(async ({ ctx }) => ({ requisites: await ctx.statement.requisites.operator() })),

  update: adminProcedure
    .use(own)
    .meta({
      info: 'admin.requisites',
      openapi: {
        method: 'PUT',
        path: '/api/admin/requisites',
        tags: ['admin'],
        summary: 'Задать реквизиты оператора',
        description:
          'Название, ИНН (10 или 12 цифр), КПП (9 цифр; пусто у ИП), ОГРН (13 или 15 цифр), адрес, банк, БИК (9 цифр), расчётный и ' +
          'корреспондентский счета (20 цифр), vatNote — строка об НДС под итогом («Без НДС (УСН)»), vatRate — ставка НДС в процентах (0, 5, 7, 10, 20, 22; null — без НДС), closingDocuments — какие ' +
          'закрывающие документы выпускаются за месяц (act — акт, act_and_upd — акт и УПД, upd — УПД), updStatus — статус УПД (1, 2; null — 1 при ставке НДС, 2 без НДС), directorName и accountantName — ' +
          'фамилии и инициалы руководителя и главного бухгалтера у строк подписей (пусто — место для записи от руки). Изменение ' +
          'пишется в журнал действий.',
      },
    })
    .input(operatorRequisitesInput)
    .output(requisitesOutput)
    .mutation(({ ctx, input }) => ctx.statement.requisites.putOperator(ctx.principal, input)),
});
