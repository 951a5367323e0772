// The statement as CSV and the monthly closing documents as PDF (statement/exports.ts): raw routes beside
// the procedures, since their answers are files, not JSON; both for the account's login token (JWT).
import { csvFormatParameter } from '../gateway';
import { defineRawRoute } from '../http/raw-route';
import { dashboardErrors } from '../openapi/errors';
import { STATEMENT_MAX_DAYS } from './input';
import type { ClosingRoutes } from './closing-routes';
import { STATEMENT_CSV_COLUMNS, type StatementRoutes } from './exports';

const EXAMPLE_CSV =
  `${STATEMENT_CSV_COLUMNS.join(',')}\r\n` +
  '2026-11-01,,opening_balance,Остаток на начало периода,,,0.000000000,RUB\r\n' +
  '2026-11-01,2026-11-01T09:12:00.000Z,registration_bonus,Стартовый бонус,,3.000000000,3.000000000,RUB\r\n' +
  '2026-11-01,2026-11-01T09:20:31.500Z,topup,Пополнение баланса,,500.000000000,503.000000000,RUB\r\n' +
  '2026-11-01,2026-11-01T21:58:02.120Z,usage,Запросы к моделям через API,42 запроса,-1.250000000,501.750000000,RUB\r\n' +
  '2026-11-30,,closing_balance,Остаток на конец периода,,,501.750000000,RUB\r\n';

const day = (name: 'from' | 'to', description: string, example: string) => ({
  name,
  in: 'query',
  required: true,
  description,
  schema: { type: 'string', format: 'date' },
  example,
});

const pdfAnswer = (description: string, example: string) => ({
  description,
  headers: {
    'content-disposition': { description: 'Имя файла с месяцем', schema: { type: 'string' }, example: `attachment; filename="${example}"` },
  },
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' }, example: '%PDF-1.3 … (PDF-файл A4 со встроенным шрифтом DejaVu Sans)' } },
});

type Deps = { statement: { routes: StatementRoutes; closingRoutes: ClosingRoutes } };

export const statementExportRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/api/account/statement/export',
  auth: 'jwt',
  info: { key: 'statement', query: ' (CSV)' },
  openapi: {
    operation: {
      tags: ['account'],
      operationId: 'account-statementExport',
      summary: 'Выписка по счёту за период в CSV',
      description:
        'Те же строки, что GET /api/account/statement, одним CSV-файлом: первая строка — имена столбцов ' +
        `(${STATEMENT_CSV_COLUMNS.join(', ')}), затем остаток на начало периода (kind opening_balance), операции по порядку и ` +
        'остаток на конец (closing_balance). Деньги — в валюте баланса с точкой и 9 знаками, время — ISO 8601 в UTC, файл ' +
        'начинается с BOM UTF-8. format=excel-ru — файл для Excel с русской локалью (см. параметр format). Авторизация: токен входа (JWT).',
      parameters: [
        day('from', 'Первый день периода (ГГГГ-ММ-ДД в часовом поясе timeZone)', '2026-11-01'),
        day('to', `Последний день периода, включительно; период не длиннее ${STATEMENT_MAX_DAYS} дней`, '2026-11-30'),
        {
          name: 'timeZone',
          in: 'query',
          required: false,
          description: 'Часовой пояс дней (IANA), по умолчанию UTC',
          schema: { type: 'string', default: 'UTC' },
          example: 'Europe/Moscow',
        },
        csvFormatParameter,
      ],
      responses: {
        '200': {
          description: 'CSV-файл (Content-Disposition: attachment)',
          headers: {
            'content-disposition': {
              description: 'Имя файла с периодом',
              schema: { type: 'string' },
              example: 'attachment; filename="conduit-statement-2026-11-01-2026-11-30.csv"',
            },
          },
          content: { 'text/csv': { schema: { type: 'string', description: 'CSV в UTF-8 со строкой заголовков' }, example: EXAMPLE_CSV } },
        },
        ...dashboardErrors({
          400: 'Период, часовой пояс или формат не прошли проверку',
          401: undefined,
          403: undefined,
          429: undefined,
          500: undefined,
          503: undefined,
        }),
      },
    },
  },
  handle: ({ request }, { statement }) => statement.routes.csv(request),
});

export const closingDocumentRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/api/account/documents/:month/:file',
  auth: 'jwt',
  info: { key: 'documents', shownAs: ['/api/account/documents/:month/act.pdf'] },
  openapi: {
    operation: {
      tags: ['account'],
      operationId: 'account-closingDocument',
      summary: 'Выпущенный акт за месяц в PDF (прежний адрес)',
      description:
        'Прежний адрес акта месяца. Акты выпускаются после окончания месяца (по московскому времени) и больше не меняются: ' +
        'ответ — PDF действующего акта месяца (или УПД, если оператор выпускает только УПД), тот же, что по его собственному ' +
        'адресу GET /api/account/documents/{id}.pdf (заголовок Content-Location). Пока документ за месяц не выпущен (месяц идёт или расходов не было) — 404 с объяснением. Список документов: ' +
        'GET /api/account/documents. Авторизация: токен входа (JWT).',
      parameters: [
        {
          name: 'month',
          in: 'path',
          required: true,
          description: 'Месяц ГГГГ-ММ (год от 0001), не позже текущего',
          schema: { type: 'string' },
          example: '2026-11',
        },
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'act.pdf (акт)',
          schema: { type: 'string', enum: ['act.pdf'] },
          example: 'act.pdf',
        },
      ],
      responses: {
        '200': {
          ...pdfAnswer('PDF действующего акта месяца (Content-Disposition: attachment)', 'akt-12-2026.pdf'),
          headers: {
            ...pdfAnswer('', 'akt-12-2026.pdf').headers,
            'content-location': {
              description: 'Собственный адрес документа: GET /api/account/documents/{id}.pdf',
              schema: { type: 'string' },
              example: '/api/account/documents/0b6c8f3e-2a41-4c55-9d7e-1f0a2b3c4d5e.pdf',
            },
          },
        },
        ...dashboardErrors({
          400: 'Месяц не в формате ГГГГ-ММ, год 0000 или месяц ещё не начался',
          401: undefined,
          403: undefined,
          404: 'Акт за этот месяц ещё не выпущен, или такого файла нет (за месяц есть act.pdf)',
          429: undefined,
          500: undefined,
          503: 'Очередь документов полна (больше PDF_QUEUE_MAX_WAITING ждущих запросов): повторите через Retry-After секунд',
        }),
      },
    },
  },
  handle: ({ request, params }, { statement }) => statement.closingRoutes.monthAct(request, params.month!, params.file!),
});

export const invoiceDocumentRoute = defineRawRoute<Deps>({
  method: 'GET',
  path: '/api/account/invoices/:file',
  auth: 'jwt',
  info: { key: 'invoices.pdf', shownAs: ['/api/account/invoices/:number.pdf'] },
  openapi: {
    operation: {
      tags: ['account'],
      operationId: 'account-invoiceDocument',
      summary: 'Счёт на оплату в PDF',
      description:
        'Счёт, выставленный POST /api/account/invoices, по его номеру: банковский блок получателя (банк, БИК, корр. счёт, ' +
        'ИНН/КПП, расчётный счёт), «Счёт на оплату № N от <дата>», поставщик и покупатель с реквизитами, таблица № / ' +
        'наименование / кол-во / ед. / цена / сумма, итог, строка об НДС, «Всего к оплате», сумма прописью, строки подписей ' +
        '(руководитель, главный бухгалтер) и место для печати. Реквизиты — какими были при выставлении; дата — по московскому ' +
        'времени. Чужой или несуществующий номер — 404. Авторизация: токен входа (JWT).',
      parameters: [
        {
          name: 'file',
          in: 'path',
          required: true,
          description: 'Номер счёта и .pdf',
          schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}\\.pdf$' },
          example: '17.pdf',
        },
      ],
      responses: {
        '200': pdfAnswer('PDF-файл (Content-Disposition: attachment)', 'conduit-schet-17.pdf'),
        ...dashboardErrors({
          401: undefined,
          403: undefined,
          404: 'Счёта с таким номером у этой учётной записи нет',
          429: undefined,
          500: undefined,
          503: 'Очередь документов полна (больше PDF_QUEUE_MAX_WAITING ждущих запросов): повторите через Retry-After секунд',
        }),
      },
    },
  },
  handle: ({ request, params }, { statement }) => statement.routes.invoice(request, params.file!),
});
