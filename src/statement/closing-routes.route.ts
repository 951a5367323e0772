// The issued closing documents' files (closing-routes.ts): raw routes, since the answers are PDF, ZIP and CSV.
import { defineRawRoute } from '../http/raw-route';
import { dashboardErrors } from '../openapi/errors';
import type { ClosingRoutes } from './closing-routes';

type Deps = { statement: { closingRoutes: ClosingRoutes } };

const fileAnswer = (type: string, description: string, name: string, example: string) => ({
  description,
  headers: { 'content-disposition': { description: 'Имя файла', schema: { type: 'string' }, example: `attachment; filename="${name}"` } },
  content: { [type]: { schema: { type: 'string', format: 'binary' }, example } },
});

const monthParameter = {
  name: 'month',
  in: 'path',
  required: true,
  description: 'Месяц ГГГГ-ММ (по московскому времени, год от 0001)',
  schema: { type: 'string' },
  example: '2026-10',
};

export const closingPdfRoute = defineRawRoute<Deps>({
  method: 'GET',
  // The router takes one parameter name per place in a path: the segment is `:month` for the month's old act
  // address (exports.route.ts) as well, so it is named so here; the document calls it what it holds.
  path: '/api/account/documents/:month',
  auth: 'jwt',
  info: { key: 'documents', shownAs: ['/api/account/documents/:id.pdf'] },
  openapi: {
    path: '/api/account/documents/{file}',
    operation: {
      tags: ['account'],
      operationId: 'account-closingDocumentPdf',
      summary: 'Выпущенный закрывающий документ (акт или УПД) в PDF',
      description:
        'Документ из списка GET /api/account/documents по его id (pdfUrl). Файл строится только из данных, сохранённых при ' +
        'выпуске: строки, суммы, НДС и реквизиты обеих сторон на тот момент, — поэтому выпущенный документ не меняется, даже ' +
        'если потом изменились реквизиты или цены. Заменённый исправлением документ по-прежнему скачивается. Чужой или ' +
        'несуществующий id — 404. Авторизация: токен входа (JWT).',
      parameters: [
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'id документа и .pdf',
          schema: { type: 'string' },
          example: '0b6c8f3e-2a41-4c55-9d7e-1f0a2b3c4d5e.pdf',
        },
      ],
      responses: {
        '200': fileAnswer('application/pdf', 'PDF-файл (Content-Disposition: attachment)', 'akt-12-2026.pdf', '%PDF-1.3 … (PDF-файл A4)'),
        ...dashboardErrors({
          401: undefined,
          403: undefined,
          404: 'Такого документа у этой учётной записи нет',
          429: undefined,
          500: undefined,
          503: 'Очередь документов полна (больше PDF_QUEUE_MAX_WAITING ждущих запросов): повторите через Retry-After секунд',
        }),
      },
    },
  },
  handle: ({ request, params }, { statement }) => statement.closingRoutes.pdf(request, params.month!),
});

export const adminDocumentsZipRoute = defineRawRoute<Deps>({
  method: 'GET',
  // `:month` as for the registry's path below (one parameter name per place): it holds «2026-10.zip».
  path: '/api/admin/documents/:month',
  auth: 'admin',
  openapi: {
    path: '/api/admin/documents/{file}',
    operation: {
      tags: ['admin'],
      operationId: 'admin-closingDocumentsZip',
      summary: 'Все закрывающие документы месяца одним ZIP-архивом, только администратору',
      description:
        'Каждый документ месяца (акты и УПД, и заменённые исправлениями тоже) отдельным PDF-файлом akt-<номер>-<год>.pdf или ' +
        'upd-<номер>-<год>.pdf, без сжатия (PDF сжаты внутри). Месяц без документов — пустой архив.',
      parameters: [
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'Месяц ГГГГ-ММ и .zip',
          schema: { type: 'string' },
          example: '2026-10.zip',
        },
      ],
      responses: {
        '200': fileAnswer('application/zip', 'ZIP-архив (Content-Disposition: attachment)', 'conduit-documents-2026-10.zip', 'PK… (ZIP-архив)'),
        ...dashboardErrors({
          400: 'Месяц не в формате ГГГГ-ММ',
          401: undefined,
          403: undefined,
          404: 'Адрес не оканчивается на .zip',
          429: undefined,
          500: undefined,
          503: 'Очередь документов полна: повторите через Retry-After секунд',
        }),
      },
    },
  },
  handle: ({ request, params }, { statement }) => statement.closingRoutes.zip(request, params.month!),
});

export const adminDocumentsRegistryRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/api/admin/documents/:month/:file',
  auth: 'admin',
  openapi: {
    operation: {
      tags: ['admin'],
      operationId: 'admin-closingDocumentsRegistry',
      summary: 'Реестр закрывающих документов месяца в CSV, только администратору',
      description:
        'Один документ на строку, по номерам: Номер; Дата; Вид (Акт, УПД); Заказчик; ИНН; КПП; Сумма; НДС; Статус (действует, ' +
        'заменён исправленным); Исправляет (документ, который этот заменяет). UTF-8 с BOM, разделитель «;», десятичная запятая — ' +
        'как его открывает Excel с русской локалью.',
      parameters: [
        monthParameter,
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'Файл реестра: registry.csv',
          schema: { type: 'string', enum: ['registry.csv'] },
          example: 'registry.csv',
        },
      ],
      responses: {
        '200': {
          description: 'CSV-файл (Content-Disposition: attachment)',
          headers: {
            'content-disposition': { description: 'Имя файла', schema: { type: 'string' }, example: 'attachment; filename="conduit-documents-2026-10.csv"' },
          },
          content: {
            'text/csv': {
              schema: { type: 'string' },
              example:
                '\uFEFFНомер;Дата;Вид;Заказчик;ИНН;КПП;Сумма;НДС;Статус;Исправляет\r\n1;31.10.2026;Акт;ООО «Ромашка»;7712345678;771201001;1234,50;0,00;действует;\r\n',
            },
          },
        },
        ...dashboardErrors({
          400: 'Месяц не в формате ГГГГ-ММ',
          401: undefined,
          403: undefined,
          404: 'Такого файла нет (есть registry.csv)',
          429: undefined,
          500: undefined,
          503: undefined,
        }),
      },
    },
  },
  handle: ({ request, params }, { statement }) => statement.closingRoutes.registry(request, params.month!, params.file!),
});
