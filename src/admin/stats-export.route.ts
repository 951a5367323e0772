// GET /api/admin/stats/daily/export (admin/stats-export.ts): a raw route, since its answer is CSV, not JSON,
// with the period parameters of /api/admin/stats/daily (taken from that generated operation).
import { csvFormatParameter } from '../gateway';
import { defineRawRoute } from '../http/raw-route';
import { dashboardErrors } from '../openapi/errors';
import { STATS_CSV_COLUMNS, type StatsExport } from './stats-export';

const EXAMPLE_CSV =
  `${STATS_CSV_COLUMNS.join(',')}\r\n` +
  '2026-01-30,500.000000000,0.000000000,12.345678900,8.100000000,4.245678900,1520,RUB\r\n' +
  '2026-01-31,0.000000000,150.000000000,3.000000125,0.000000000,0.000000000,97,RUB\r\n';

export const adminStatsExportRoute = defineRawRoute<{ statsExport: Pick<StatsExport, 'handle'> }>({
  method: 'GET',
  path: '/api/admin/stats/daily/export',
  auth: 'admin',
  openapi: {
    operation: (paths) => ({
      operationId: 'admin-dailyStatsExport',
      summary: 'Выручка и расход по дням в CSV (те же числа, что /api/admin/stats/daily), только администратору',
      description:
        'Один день UTC на строку, от старых к новым, каждый день периода (по умолчанию 30 дней), нули там, где ничего не было. ' +
        `Столбцы: ${STATS_CSV_COLUMNS.join(', ')}. Деньги — в валюте баланса (столбец currency), точка и ровно 9 знаков после неё. ` +
        'RFC 4180: запятая, строки через CRLF; файл начинается с метки порядка байтов UTF-8 (BOM). format=excel-ru — файл для Excel ' +
        'с русской локалью (см. параметр format).',
      tags: ['admin'],
      parameters: [...(paths['/api/admin/stats/daily']?.get?.parameters ?? []), csvFormatParameter],
      responses: {
        '200': {
          description: 'CSV-файл (Content-Disposition: attachment)',
          headers: {
            'content-disposition': {
              description: 'Имя файла с периодом',
              schema: { type: 'string' },
              example: 'attachment; filename="conduit-daily-2026-01-01-2026-01-31.csv"',
            },
          },
          content: {
            'text/csv': {
              schema: { type: 'string', description: 'CSV по RFC 4180 в UTF-8 со строкой заголовков' },
              example: EXAMPLE_CSV,
            },
          },
        },
        ...dashboardErrors({ 400: 'Период задан неверно (from, to)', 401: undefined, 403: undefined, 429: undefined, 500: undefined, 503: undefined }),
      },
    }),
  },
  handle: ({ request }, { statsExport }) => statsExport.handle(request),
});
