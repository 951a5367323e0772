// GET /api/admin/stats/daily/export: the operator's daily figures (the chart's numbers) as a CSV file for
// a spreadsheet, admins only. Not a tRPC procedure: its answer is not JSON (stats-export.route.ts
// describes it). At most 366 days, so the file is built in memory.
import { z } from 'zod';
import type { Authenticator } from '../auth';
import { CSV_FORMATS, csvHeader, excelDay, moneyCell, textCell, USAGE_EXPORT_FORMATS, UTF8_BOM, type CsvFormat } from '../gateway';
import { dailyStatsInput } from './input';
import type { AdminStats, DayFiguresNano } from './stats';
import { statsCsvHeadersRu } from './texts';
import { csvResponse } from '../http/csv-response';

/**
 * One UTC day a line, oldest first; money in the balance currency with all nine decimals (a dot, or for
 * `excel-ru` a comma, with a semicolon between fields, Russian headers and days as «28.11.2026»).
 */
export const STATS_CSV_COLUMNS = ['day', 'revenue', 'credits', 'spend', 'provider_cost', 'margin', 'requests', 'currency'] as const;

const formatInput = z.enum(USAGE_EXPORT_FORMATS, 'ожидается csv или excel-ru').default('csv');

function line(day: string, row: DayFiguresNano, currency: string, format: CsvFormat): string {
  const money = [row.revenueNano, row.creditsNano, row.spendNano, row.providerCostNano, row.marginNano].map((nano) => moneyCell(nano, format));
  return `${[format.forPeople ? excelDay(day) : day, ...money, String(row.requests), textCell(currency, format)].join(format.delimiter)}\r\n`;
}

export interface StatsExportDeps {
  authenticator: Pick<Authenticator, 'admin'>;
  stats: Pick<AdminStats, 'dailyExact'>;
  currency: string;
}

export function createStatsExport({ authenticator, stats, currency }: StatsExportDeps) {
  return {
    async handle(request: Request): Promise<Response> {
      await authenticator.admin(request.headers);
      const url = new URL(request.url);
      const input = dailyStatsInput.parse({
        from: url.searchParams.get('from') ?? undefined,
        to: url.searchParams.get('to') ?? undefined,
      });
      const format = CSV_FORMATS[formatInput.parse(url.searchParams.get('format') ?? undefined)];
      const figures = await stats.dailyExact(input);
      let text = UTF8_BOM + csvHeader(STATS_CSV_COLUMNS, format, statsCsvHeadersRu);
      for (const { day, ...row } of figures.days) text += line(day, row, currency, format);
      return csvResponse(text, `conduit-daily-${figures.from}-${figures.to}.csv`);
    },
  };
}

export type StatsExport = ReturnType<typeof createStatsExport>;
