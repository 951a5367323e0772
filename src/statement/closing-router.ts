// The operator's procedures over the issued closing documents (/api/admin/documents…): a month's list, issuing a
// month by hand and correcting a document. The files (ZIP, registry CSV) are raw routes (closing-routes.route.ts).
import { z } from 'zod';
import { AppError } from '../http/errors';
import { nanoToUnits } from '../money';
import { adminProcedure, inject, router } from '../trpc/init';
import type { ClosingDocument } from './closing-documents';
import { fileNameOf, pdfUrlOf } from './closing-routes';
import { monthInput } from './input';
import { moscowMonth } from './moscow';
import { closingTexts } from './texts';
import { statementSlot } from './api';

const own = inject((use) => use(statementSlot));

export const closingDocumentView = z.object({
  id: z.string(),
  kind: z.enum(['act', 'upd']).describe('act — акт, upd — УПД'),
  number: z.number().int().describe('Номер: 1, 2, 3 … по порядку у оператора в пределах года даты документа'),
  date: z.string().describe('Дата документа, ГГГГ-ММ-ДД (по московскому времени)'),
  month: z.string().describe('Месяц услуг, ГГГГ-ММ'),
  amount: z.number().describe('Сумма услуг (с НДС, если он есть)'),
  vat: z.number().describe('НДС в сумме; 0 — без НДС'),
  status: z.enum(['issued', 'superseded']).describe('issued — действует, superseded — заменён исправлением'),
  corrects: z.string().nullable().describe('id документа, который этот исправляет'),
  pdfUrl: z.string().describe('GET — PDF документа (заказчику)'),
});

export const viewOf = (d: ClosingDocument) => ({
  id: d.id,
  kind: d.kind,
  number: d.number,
  date: d.date,
  month: d.month,
  amount: nanoToUnits(d.amountNano),
  vat: nanoToUnits(d.vatNano),
  status: d.status,
  corrects: d.corrects,
  pdfUrl: pdfUrlOf(d),
});

const adminView = closingDocumentView.extend({
  userId: z.string().describe('Учётная запись заказчика (человек или организация)'),
  customer: z.string().describe('Заказчик, как его называет документ'),
  inn: z.string(),
  kpp: z.string(),
  fileName: z.string().describe('Имя файла в ZIP-архиве месяца'),
});

const adminViewOf = (d: ClosingDocument) => ({
  ...viewOf(d),
  userId: d.userId,
  customer: d.facts.customer.companyName || d.facts.customer.email,
  inn: d.facts.customer.inn,
  kpp: d.facts.customer.kpp,
  fileName: fileNameOf(d),
});

const TAGS = ['admin'];

export const adminDocumentsRouter = router({
  list: adminProcedure
    .use(own)
    .meta({
      info: 'admin.documents',
      openapi: {
        method: 'GET',
        path: '/api/admin/documents',
        tags: TAGS,
        summary: 'Закрывающие документы месяца (акты, УПД)',
        description:
          'Все документы месяца по номерам, с заменёнными исправлениями. Файлы месяца: GET /api/admin/documents/{month}.zip (все PDF) ' +
          'и GET /api/admin/documents/{month}/registry.csv (реестр).',
      },
    })
    .input(z.object({ month: monthInput }))
    .output(z.object({ month: z.string(), documents: z.array(adminView) }))
    .query(async ({ ctx, input }) => ({ month: input.month, documents: (await ctx.statement.closing.listMonth(input.month)).map(adminViewOf) })),

  issue: adminProcedure
    .use(own)
    .meta({
      info: 'admin.documents',
      openapi: {
        method: 'POST',
        path: '/api/admin/documents/issue',
        tags: TAGS,
        summary: 'Выпустить закрывающие документы за закончившийся месяц',
        description:
          'То же, что делает ежемесячное задание после окончания месяца (по московскому времени): каждому заказчику с расходами ' +
          'за месяц — акт и/или УПД по настройке closingDocuments реквизитов оператора, со следующими номерами. Уже выпущенные не ' +
          'выпускаются второй раз: issued — только новые. 400 — месяц ещё не закончился, 409 — реквизиты оператора не заданы. ' +
          'Пишется в журнал действий.',
      },
    })
    .input(z.object({ month: monthInput }))
    .output(z.object({ month: z.string(), issued: z.array(adminView) }))
    .mutation(async ({ ctx, input }) => {
      if (input.month >= moscowMonth(new Date())) throw new AppError('invalid_request_error', closingTexts.monthNotEnded, { param: 'month' });
      await ctx.billing.flush();
      const issued = await ctx.statement.closing.issueMonth(input.month, new Date(), ctx.principal);
      return { month: input.month, issued: issued.map(adminViewOf) };
    }),

  correct: adminProcedure
    .use(own)
    .meta({
      info: 'admin.documents',
      openapi: {
        method: 'POST',
        path: '/api/admin/documents/{id}/correct',
        tags: TAGS,
        summary: 'Исправить документ: выпустить исправленный взамен',
        description:
          'Пересчитывает данные документа (расходы месяца, реквизиты обеих сторон, НДС — какими они стали) и выпускает новый ' +
          'документ того же вида со следующим номером и сегодняшней датой; он называет исправляемый (corrects), а старый ' +
          'становится superseded и по-прежнему скачивается без изменений. 404 — нет такого документа, 409 — он уже заменён. ' +
          'Пишется в журнал действий.',
      },
    })
    .input(z.object({ id: z.string().max(100) }))
    .output(z.object({ document: adminView, superseded: adminView }))
    .mutation(async ({ ctx, input }) => {
      await ctx.billing.flush();
      const { old, document } = await ctx.statement.closing.correct(input.id, new Date(), ctx.principal);
      return { document: adminViewOf(document), superseded: adminViewOf(old) };
    }),
});
