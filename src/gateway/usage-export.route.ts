// Usage as a CSV file, streamed (gateway/usage-export.ts): a raw route beside the procedures, since its answer
// is not JSON; the account's own and, for an admin, any user's. Both take the filters /api/usage has
// (taken from that generated operation, so the two cannot drift apart).
import { defineRawRoute, type OpenApiPaths } from '../http/raw-route';
import { dashboardErrors } from '../openapi/errors';
import { USAGE_FORBIDDEN, USAGE_SCOPE_TEXT } from './account-router';
import { ADMIN_USAGE_CSV_COLUMNS, csvFormatParameter, USAGE_CSV_COLUMNS, type UsageExport } from './usage-export';

const EXAMPLE_CSV =
  `${USAGE_CSV_COLUMNS.join(',')}\r\n` +
  '1042,2026-01-31T12:00:00.123Z,req_6f1c2b7e9a,chat,openai/gpt-4o-mini,0f8fad5b-d9cb-469f-a165-70867728950e,Сайт,,false,ok,upstream,' +
  '12,30,42,0,0,0,0.000001500,0.000003750,0.000000000,0.000005250,RUB,412,\r\n';

const ADMIN_EXAMPLE_CSV =
  `${ADMIN_USAGE_CSV_COLUMNS.join(',')}\r\n` +
  '1042,2026-01-31T12:00:00.123Z,req_6f1c2b7e9a,chat,openai/gpt-4o-mini,0f8fad5b-d9cb-469f-a165-70867728950e,Сайт,,false,ok,upstream,' +
  '12,30,42,0,0,0,0.000001500,0.000003750,0.000000000,0.000005250,RUB,412,,backup-openai,2,0.000002100\r\n';

const FILTER_INVALID = 'Фильтр не прошёл проверку (from, to, keyId, model или format)';

/** A CSV file as the answer, `example` its text. */
const csvAnswer = (example: string) => ({
  description: 'CSV-файл (Content-Disposition: attachment)',
  headers: {
    'content-disposition': {
      description: 'Имя файла с периодом выгрузки',
      schema: { type: 'string' },
      example: 'attachment; filename="conduit-usage-2026-01-01-2026-02-01.csv"',
    },
  },
  content: {
    'text/csv': {
      schema: { type: 'string', description: 'CSV по RFC 4180 в UTF-8 со строкой заголовков' },
      example,
    },
  },
});

/** /api/usage's from, to, keyId and model parameters as the generator wrote them. */
const usageFilters = (paths: OpenApiPaths) => (paths['/api/usage']?.get?.parameters ?? []).filter((p) => ['from', 'to', 'keyId', 'model'].includes(p.name as string));

export const adminUsageExportRoute = defineRawRoute<{ usageExport: Pick<UsageExport, 'handleAdmin'> }>({
  method: 'GET',
  path: '/api/admin/users/:id/usage/export',
  auth: 'admin',
  info: { key: 'admin.usageExport', query: '?from=&to=&keyId=&model=&format= (CSV, with provider columns)' },
  openapi: {
    operation: (paths) => {
      const filters = usageFilters(paths);
      return {
        operationId: 'admin-usageExport',
        summary: 'Выгрузка использования пользователя в CSV для администратора (с провайдером и попытками)',
        description:
          'То же, что /api/usage/export, для любого пользователя (id в пути), только администратору. После столбцов клиентской ' +
          `выгрузки ещё три: provider_id (провайдер, который ответил, или последний опрошенный), attempts (сколько провайдеров ` +
          `спросили) и provider_cost (сколько этот провайдер берёт с нас по цене, заданной в маршруте; пусто — цена не задана). ` +
          `Столбцы: ${ADMIN_USAGE_CSV_COLUMNS.join(', ')}. keyId — ключ этого пользователя.`,
        tags: ['admin'],
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'id пользователя',
            schema: { type: 'string', format: 'uuid' },
            example: '3f2b8c1e-5d4a-4c6b-9e7f-1a2b3c4d5e6f',
          },
          ...filters,
          csvFormatParameter,
        ],
        responses: {
          '200': csvAnswer(ADMIN_EXAMPLE_CSV),
          ...dashboardErrors({
            400: FILTER_INVALID,
            401: undefined,
            403: undefined,
            404: 'Пользователь не найден',
            429: undefined,
            500: undefined,
            503: undefined,
          }),
        },
      };
    },
  },
  handle: ({ request, params }, { usageExport }) => usageExport.handleAdmin(request, params.id!),
});

export const usageExportRoute = defineRawRoute<{ usageExport: Pick<UsageExport, 'handle'> }>({
  method: 'GET',
  path: '/api/usage/export',
  auth: 'jwtOrApiKey',
  info: { key: 'usageExport', query: '?from=&to=&keyId=&model=&format= (CSV)' },
  openapi: {
    operation: (paths) => {
      const filters = usageFilters(paths);
      return {
        operationId: 'account-usageExport',
        summary: 'Выгрузка использования в CSV за период (JWT или API-ключ)',
        description:
          'Все записи использования, которые выбирают фильтры /api/usage (без постраничности), одним CSV-файлом: новые первыми, ' +
          'файл пишется по мере чтения. RFC 4180: запятая, строки через CRLF, первая строка — имена столбцов (английские ' +
          `машинные: ${USAGE_CSV_COLUMNS.join(', ')}). Деньги — в валюте баланса (столбец currency), точка и ровно 9 знаков ` +
          'после неё; время — ISO 8601 в UTC; пустое поле — нет значения. Файл начинается с метки порядка байтов UTF-8 (BOM), ' +
          'чтобы Excel показал кириллицу. Текстовая ячейка, начинающаяся с =, +, -, @, табуляции или CR (имя ключа, модель…), ' +
          'записана с апострофом впереди, чтобы таблица не выполнила её как формулу; числа не меняются. ' +
          'Фильтры keyId и model выбирают записи так же, как в /api/usage. format=excel-ru — файл для Excel с русской локалью ' +
          '(см. параметр format). ' +
          USAGE_SCOPE_TEXT,
        tags: ['account'],
        parameters: [...filters, csvFormatParameter],
        responses: {
          '200': csvAnswer(EXAMPLE_CSV),
          ...dashboardErrors({ 400: FILTER_INVALID, 401: undefined, 403: USAGE_FORBIDDEN, 429: undefined, 500: undefined, 503: undefined }),
        },
      };
    },
  },
  handle: ({ request }, { usageExport }) => usageExport.handle(request),
});
