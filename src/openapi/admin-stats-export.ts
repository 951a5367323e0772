// GET /api/admin/stats/daily/export in the OpenAPI document: a raw route (its answer is CSV, not JSON),
// described by hand, with the period parameters of /api/admin/stats/daily (taken from that operation).
import { STATS_CSV_COLUMNS } from '../admin/stats-export';
import { dashboardErrors } from './errors';

export const ADMIN_STATS_EXPORT_PATH = '/api/admin/stats/daily/export';

const EXAMPLE_CSV =
  `${STATS_CSV_COLUMNS.join(',')}\r\n` +
  '2026-01-30,500.000000000,0.000000000,12.345678900,8.100000000,4.245678900,1520,RUB\r\n' +
  '2026-01-31,0.000000000,150.000000000,3.000000125,0.000000000,0.000000000,97,RUB\r\n';

/** The path item; `period` is /api/admin/stats/daily's from and to parameters as the generator wrote them. */
export function adminStatsExportPaths(period: unknown[]) {
  return {
    [ADMIN_STATS_EXPORT_PATH]: {
      get: {
        operationId: 'admin-dailyStatsExport',
        summary: 'Выручка и расход по дням в CSV (те же числа, что /api/admin/stats/daily), только администратору',
        description:
          'Один день UTC на строку, от старых к новым, каждый день периода (по умолчанию 30 дней), нули там, где ничего не было. ' +
          `Столбцы: ${STATS_CSV_COLUMNS.join(', ')}. Деньги — в валюте баланса (столбец currency), точка и ровно 9 знаков после неё. ` +
          'RFC 4180: запятая, строки через CRLF; файл начинается с метки порядка байтов UTF-8 (BOM).',
        tags: ['admin'],
        security: [{ Jwt: [] }],
        parameters: period,
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
      },
    },
  };
}
