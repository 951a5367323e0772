// The statement as a CSV file and the closing documents as PDF files: not JSON, so raw routes beside
// the procedures, defined and described in exports.route.ts. JWT only.
import { z } from 'zod';
import type { Authenticator } from '../auth';
import { ORGANIZATION_ACCESS } from '../keys';
import { databaseKnowsTimeZone } from '../db/time-zones';
import type { DatabaseHandle } from '../db/client';
import { CSV_FORMATS, csvHeader, excelDateTime, excelDay, moneyCell, textCell, UTF8_BOM, USAGE_EXPORT_FORMATS } from '../gateway';
import { AppError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { timeZone } from '../http/time-zone-input';
import type { Documents } from './documents';
import { periodIsValid, periodIssue, statementDay } from './input';
import { renderInvoice } from './invoice-pdf';
import type { Invoices } from './invoices';
import { yieldBeforeDrawing, type RenderQueue } from './render-queue';
import type { Requisites } from './requisites';
import type { Statement, Statements } from './statement';
import { statementCsvHeadersRu, statementCsvKindsRu, statementMessages } from './texts';
import { csvResponse } from '../http/csv-response';

export const statementExportInput = z
  .object({ from: statementDay, to: statementDay, timeZone, format: z.enum(USAGE_EXPORT_FORMATS, 'ожидается csv или excel-ru').default('csv') })
  .refine(periodIsValid, periodIssue);

/** The file's columns: English machine names; money with nine decimals, as the ledger keeps it. */
export const STATEMENT_CSV_COLUMNS = ['day', 'at', 'kind', 'title', 'detail', 'amount', 'balance_after', 'currency'] as const;

export interface StatementRoutesDeps {
  database: DatabaseHandle;
  authenticator: Authenticator;
  statements: Statements;
  documents: Documents;
  invoices: Invoices;
  requisites: Requisites;
  renderQueue: RenderQueue;
  /** Settles what the gateway holds in memory, so the file includes the latest requests. */
  flush(): Promise<void>;
  currency: string;
  supportContact: string | undefined;
  userEmail(userId: string): Promise<string>;
}

/**
 * The statement's file. `excel-ru` (for a person in Excel): Russian headers and kinds, days as «28.11.2026»
 * and times as «28.11.2026 22:15:03» in the statement's own time zone, a semicolon and a decimal comma.
 */
function csvOf(statement: Statement, currency: string, formatName: keyof typeof CSV_FORMATS, timeZone: string): string {
  const format = CSV_FORMATS[formatName];
  const line = (cells: string[]) => `${cells.join(format.delimiter)}\r\n`;
  const cur = textCell(currency, format);
  const day = (text: string) => (format.forPeople ? excelDay(text) : text);
  const at = (text: string) => (format.forPeople && text ? excelDateTime(text, timeZone) : text);
  const kind = (text: string) => textCell(format.forPeople ? (statementCsvKindsRu[text] ?? text) : text, format);
  let text = UTF8_BOM + csvHeader(STATEMENT_CSV_COLUMNS, format, statementCsvHeadersRu);
  text += line([
    day(statement.from),
    '',
    kind('opening_balance'),
    textCell('Остаток на начало периода', format),
    '',
    '',
    moneyCell(statement.openingNano, format),
    cur,
  ]);
  for (const l of statement.lines) {
    text += line([
      day(l.day),
      at(l.at),
      kind(l.kind),
      textCell(l.title, format),
      textCell(l.detail, format),
      moneyCell(l.amountNano, format),
      moneyCell(l.balanceAfterNano, format),
      cur,
    ]);
  }
  text += line([day(statement.to), '', kind('closing_balance'), textCell('Остаток на конец периода', format), '', '', moneyCell(statement.closingNano, format), cur]);
  return text;
}

const pdfResponse = (pdf: Buffer, name: string) =>
  new Response(new Uint8Array(pdf), {
    headers: { 'content-type': 'application/pdf', 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' },
  });

export function createStatementRoutes(deps: StatementRoutesDeps) {
  return {
    /** GET /api/account/statement/export?from&to&timeZone&format: the statement as one CSV file. */
    async csv(request: Request): Promise<Response> {
      const principal = await deps.authenticator.jwtUser(request.headers, ORGANIZATION_ACCESS.money);
      const input = statementExportInput.parse(Object.fromEntries(new URL(request.url).searchParams));
      if (!(await databaseKnowsTimeZone(deps.database, input.timeZone))) {
        throw new AppError('invalid_request_error', errorMessages.timeZoneUnknown, { param: 'timeZone' });
      }
      await deps.flush();
      const statement = await deps.statements.statement(principal.userId, input);
      return csvResponse(csvOf(statement, deps.currency, input.format, input.timeZone), `conduit-statement-${input.from}-${input.to}.csv`);
    },

    /** GET /api/account/invoices/{number}.pdf: a счёт на оплату issued to the caller (another's: 404). */
    async invoice(request: Request, file: string): Promise<Response> {
      const principal = await deps.authenticator.jwtUser(request.headers, ORGANIZATION_ACCESS.money);
      const match = /^([1-9]\d{0,8})\.pdf$/.exec(file);
      const invoice = match ? await deps.invoices.get(principal.userId, Number(match[1])) : null;
      if (!invoice) throw new AppError('not_found', statementMessages.invoiceNotFound);
      const pdf = await deps.renderQueue.run(async () => {
        await yieldBeforeDrawing();
        return renderInvoice(invoice);
      });
      return pdfResponse(pdf, `conduit-schet-${invoice.number}.pdf`);
    },
  };
}

export type StatementRoutes = ReturnType<typeof createStatementRoutes>;
