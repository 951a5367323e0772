// GET /api/admin/stats/daily/export: the operator's daily figures (the chart's numbers) as a CSV file for
// a spreadsheet, admins only. Not a tRPC procedure: its answer is not JSON (stats-export.route.ts
// describes it). At most 366 days, so the file is built in memory.
import type { Authenticator } from '../auth';
import { neutraliseCell } from '../gateway';
import { nanoToFixedString } from '../money';
import { dailyStatsInput } from './input';
import type { AdminStats, DayFiguresNano } from './stats';

/** One UTC day a line, oldest first; money in the balance currency with all nine decimals and a dot. */
export const STATS_CSV_COLUMNS = ['day', 'revenue', 'credits', 'spend', 'provider_cost', 'margin', 'requests', 'currency'] as const;

/** Without a byte-order mark Excel reads UTF-8 as the system's code page. */
const UTF8_BOM = '\uFEFF';

function line(day: string, row: DayFiguresNano, currency: string): string {
  const money = [row.revenueNano, row.creditsNano, row.spendNano, row.providerCostNano, row.marginNano].map(nanoToFixedString);
  return `${[day, ...money, String(row.requests), neutraliseCell(currency)].join(',')}\r\n`;
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
      const figures = await stats.dailyExact(input);
      let text = `${UTF8_BOM}${STATS_CSV_COLUMNS.join(',')}\r\n`;
      for (const { day, ...row } of figures.days) text += line(day, row, currency);
      return new Response(text, {
        headers: {
          'content-type': 'text/csv; charset=utf-8; header=present',
          'content-disposition': `attachment; filename="conduit-daily-${figures.from}-${figures.to}.csv"`,
          'cache-control': 'no-store',
        },
      });
    },
  };
}

export type StatsExport = ReturnType<typeof createStatsExport>;
