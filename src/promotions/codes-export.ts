// GET /api/admin/promotions/{id}/codes.csv: a campaign's codes as a file to hand out (a mailing, a printer),
// admins only. Not a tRPC procedure: its answer is CSV (codes-export.route.ts describes it). The codes are
// opened from their sealed copies, so the file can be downloaded again at any time; at most 10 000 lines.
import { z } from 'zod';
import type { Authenticator } from '../auth';
import { CSV_FORMATS, csvHeader, excelDateTime, moneyCell, textCell, USAGE_EXPORT_FORMATS, UTF8_BOM } from '../gateway';
import { AppError } from '../http/errors';
import type { Campaigns } from './campaigns';
import { codesCsvHeadersRu } from './texts';
import { csvResponse } from '../http/csv-response';

export const CODES_CSV_COLUMNS = ['code', 'uses', 'max_uses', 'campaign', 'amount', 'expires_at'] as const;

const formatInput = z.enum(USAGE_EXPORT_FORMATS, 'ожидается csv или excel-ru').default('csv');

export function createCodesExport(deps: { authenticator: Pick<Authenticator, 'admin'>; campaigns: Pick<Campaigns, 'codes'> }) {
  return {
    async handle(request: Request, id: string): Promise<Response> {
      await deps.authenticator.admin(request.headers);
      if (!z.uuid().safeParse(id).success) throw new AppError('not_found');
      const format = CSV_FORMATS[formatInput.parse(new URL(request.url).searchParams.get('format') ?? undefined)];
      const { campaign, codes } = await deps.campaigns.codes(id);
      const expires = format.forPeople ? excelDateTime(campaign.expiresAt) : campaign.expiresAt.toISOString();
      const tail = [textCell(campaign.name, format), moneyCell(campaign.amountNano, format), textCell(expires, format)].join(format.delimiter);
      let text = UTF8_BOM + csvHeader(CODES_CSV_COLUMNS, format, codesCsvHeadersRu);
      for (const c of codes) text += `${[textCell(c.code, format), String(c.uses), String(c.maxUses), tail].join(format.delimiter)}\r\n`;
      return csvResponse(text, `conduit-promo-${campaign.id}.csv`);
    },
  };
}

export type CodesExport = ReturnType<typeof createCodesExport>;
