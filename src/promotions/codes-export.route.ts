// GET /api/admin/promotions/{id}/codes/export (codes-export.ts): a raw route, since its answer is CSV, not JSON.
import { csvFormatParameter } from '../gateway';
import { defineRawRoute } from '../http/raw-route';
import { dashboardErrors } from '../openapi/errors';
import { CODES_CSV_COLUMNS, type CodesExport } from './codes-export';

const EXAMPLE_CSV =
  `${CODES_CSV_COLUMNS.join(',')}\r\n` +
  'K7QM-WX4R-9TZC-HB3N,0,1,Весна,100.000000000,2026-12-31T20:59:59.000Z\r\n' +
  'P2DV-8GJS-LQ5E-XR6A,1,1,Весна,100.000000000,2026-12-31T20:59:59.000Z\r\n';

export const promoCodesExportRoute = defineRawRoute<{ codesExport: Pick<CodesExport, 'handle'> }>({
  method: 'GET',
  path: '/api/admin/promotions/:id/codes/export',
  auth: 'admin',
  info: { key: 'admin.promotions', query: '?format=csv|excel-ru (the codes of one campaign)' },
  openapi: {
    operation: {
      operationId: 'admin-promoCodesExport',
      summary: 'Коды акции в CSV, только администратору: раздать, разослать, напечатать',
      description:
        'Все коды акции (у акции с общим кодом — один), сколько раз каждый активирован и сколько можно. Коды хранятся зашифрованными ' +
        '(ENCRYPTION_KEY), поэтому файл можно скачать снова в любое время; в базе для поиска — только их хэш. ' +
        `Столбцы: ${CODES_CSV_COLUMNS.join(', ')}. RFC 4180: запятая, строки через CRLF, метка порядка байтов UTF-8 (BOM) в начале; ` +
        'format=excel-ru — файл для Excel с русской локалью.',
      tags: ['admin'],
      parameters: [
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'Идентификатор акции',
          schema: { type: 'string', format: 'uuid' },
          example: '3f2b8c1e-5d4a-4c6b-9e7f-1a2b3c4d5e6f',
        },
        csvFormatParameter,
      ],
      responses: {
        '200': {
          description: 'CSV-файл (Content-Disposition: attachment)',
          content: { 'text/csv': { schema: { type: 'string', description: 'CSV по RFC 4180 в UTF-8 со строкой заголовков' }, example: EXAMPLE_CSV } },
        },
        ...dashboardErrors({
          400: 'format — csv или excel-ru',
          401: undefined,
          403: undefined,
          404: 'Акция не найдена',
          429: undefined,
          500: undefined,
          503: undefined,
        }),
      },
    },
  },
  handle: ({ request, params }, { codesExport }) => codesExport.handle(request, params.id!),
});
