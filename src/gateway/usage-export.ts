// GET /api/usage/export: the usage records /api/usage pages through, as one CSV file for a spreadsheet or
// an accountant. Same credentials, scope and filters as /api/usage; written a page at a time as the
// client reads (a pull stream over the keyset cursor), so a year of records never sits in memory.
// GET /api/admin/users/{id}/usage/export: an operator's export of one account's records, with the same
// filters and three more columns customers are not shown: the provider that answered, the attempts, and
// what that provider charges us.
// Not a tRPC procedure: its answer is not JSON. The OpenAPI document describes it by hand
// (usage-export.route.ts).
import { z } from 'zod';
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import { fieldNameOf } from '../http/field-labels';
import { errorMessages } from '../http/messages';
import { findUnstorableText } from '../http/text';
import { csvBooleanRu, gatewayMessages, usageCsvHeadersRu } from './texts';
import { ORGANIZATION_ACCESS, usageCreatorFilter, usageKeyFilter, type OrganizationRole, type Principal } from '../keys';
import type { Logger } from '../logger';
import { nanoToFixedString } from '../money';
import { usageQueryInput } from './usage-input';
import type { ExportedUsageRow, UsageReport } from './usage-report';
import { csvResponse } from '../http/csv-response';

/**
 * `csv` is RFC 4180 (comma, decimal dot, English column names, UTC ISO 8601 instants): what API clients
 * read. `excel-ru` is what Excel with a Russian locale opens by a double click into columns: semicolons
 * between fields, a decimal comma in the money columns, Russian column names, Moscow time as
 * «28.11.2026 22:15:03» (a date Excel recognises), «да»/«нет». Both start with a UTF-8 byte-order mark.
 */
export const USAGE_EXPORT_FORMATS = ['csv', 'excel-ru'] as const;
export type UsageExportFormat = (typeof USAGE_EXPORT_FORMATS)[number];

/** The `format` query parameter of every CSV download (usage, statement, the operator's daily figures), as OpenAPI describes it. */
export const csvFormatParameter = {
  name: 'format',
  in: 'query',
  required: false,
  description:
    'csv (по умолчанию) — для программ: RFC 4180, запятая, десятичная точка, английские имена столбцов, время ISO 8601 в UTC. ' +
    'excel-ru — для Excel с русской локалью (открывается двойным щелчком сразу по столбцам): точка с запятой между полями, ' +
    'десятичная запятая, русские заголовки, даты «28.11.2026» и время «28.11.2026 22:15:03» по Москве (в выписке — в её часовом ' +
    'поясе timeZone), «да»/«нет». Оба начинаются с BOM UTF-8.',
  schema: { type: 'string', enum: [...USAGE_EXPORT_FORMATS], default: 'csv' },
  example: 'excel-ru',
};

/** The filters of /api/usage, without its paging: the export holds every record they select. */
export const usageExportInput = usageQueryInput
  .pick({ from: true, to: true, keyId: true, model: true, endpoint: true })
  .extend({ format: z.enum(USAGE_EXPORT_FORMATS, 'ожидается csv или excel-ru').default('csv') });

/**
 * The columns, in order: English machine names (snake_case), one record per line, newest first. Money is
 * in the balance currency (the `currency` column) with all nine decimals and a dot, exact as the ledger
 * keeps it; instants are ISO 8601 in UTC; a missing value is an empty field.
 */
export const USAGE_CSV_COLUMNS = [
  'id',
  'created_at',
  'request_id',
  'endpoint',
  'model',
  'key_id',
  'key_name',
  'agent_id',
  'stream',
  'status',
  'usage_source',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  // Parts of the two above (issue 45): prompt tokens read from and written to the provider's cache, reasoning.
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'prompt_cost',
  'completion_cost',
  'unpaid',
  'cost',
  'currency',
  'duration_ms',
  'audio_seconds',
] as const;

/** An operator's export: the customer's columns, then the provider that answered, attempts and its cost to us. */
export const ADMIN_USAGE_CSV_COLUMNS = [...USAGE_CSV_COLUMNS, 'provider_id', 'attempts', 'provider_cost'] as const;

type CsvColumn = (typeof ADMIN_USAGE_CSV_COLUMNS)[number];

/**
 * A key's name, a model or a request id is whatever the client typed; a spreadsheet runs a cell starting
 * with = + - @ (or a tab or CR before one) as a formula, e.g. `=HYPERLINK(…)` that sends data away.
 * OWASP's rule: a leading apostrophe, which the spreadsheet shows as text and does not display.
 */
export function neutraliseCell(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

/**
 * RFC 4180: CRLF line ends, a field quoted only when it holds the separator, a quote or a line break (a
 * quote inside doubled). The separator is a comma, or a semicolon for `excel-ru`, whose decimal comma
 * would otherwise split money. Written here rather than by csv-stringify, which cost ~15 µs a row (a
 * ceiling of ~60 000 rows/s before anything else); these rules are the ones it applied.
 */
export interface CsvFormat {
  delimiter: string;
  needsQuotes: RegExp;
  decimalComma: boolean;
  /** Headers, instants and yes/no for a person in a Russian Excel rather than a program. */
  forPeople: boolean;
}
export const CSV_FORMATS: Record<UsageExportFormat, CsvFormat> = {
  csv: { delimiter: ',', needsQuotes: /[",\r\n]/, decimalComma: false, forPeople: false },
  'excel-ru': { delimiter: ';', needsQuotes: /[";\r\n]/, decimalComma: true, forPeople: true },
};

/** Where the `excel-ru` files' times are: the operator's and most customers' zone (UTC+3, no summer time). */
export const EXCEL_TIME_ZONE = 'Europe/Moscow';

const excelClocks = new Map<string, Intl.DateTimeFormat>();

/** An instant as a Russian Excel reads a date and time, in `timeZone`: «28.11.2026 22:15:03». */
export function excelDateTime(instant: string | Date, timeZone: string = EXCEL_TIME_ZONE): string {
  let clock = excelClocks.get(timeZone);
  if (!clock) {
    const parts = { day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' } as const;
    clock = new Intl.DateTimeFormat('ru-RU', { timeZone, hourCycle: 'h23', ...parts });
    excelClocks.set(timeZone, clock);
  }
  return clock.format(new Date(instant)).replace(', ', ' ');
}

/** A calendar day (YYYY-MM-DD) as a Russian Excel reads a date: «28.11.2026». */
export function excelDay(day: string): string {
  return `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;
}

/** The header line's names: the machine names, or for `excel-ru` their Russian ones. */
export function csvHeader<C extends string>(columns: readonly C[], format: CsvFormat, russian: Readonly<Record<C, string>>): string {
  return `${columns.map((c) => (format.forPeople ? textCell(russian[c], format) : c)).join(format.delimiter)}\r\n`;
}

const USAGE_HEADERS_RU: Readonly<Record<CsvColumn, string>> = usageCsvHeadersRu;

/** A text cell: neutralised, then quoted if it must be. Numbers we write ourselves never go through it. */
export function textCell(value: string | null, format: CsvFormat): string {
  if (!value) return '';
  const cell = neutraliseCell(value);
  return format.needsQuotes.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function moneyCell(nano: bigint | null, format: CsvFormat): string {
  if (nano === null) return '';
  const text = nanoToFixedString(nano);
  return format.decimalComma ? text.replace('.', ',') : text;
}

/** One record's line, its cells in the order of USAGE_CSV_COLUMNS (ADMIN_USAGE_CSV_COLUMNS for an operator). */
function csvLine(row: ExportedUsageRow, currency: string, operator: boolean, format: CsvFormat): string {
  const cells = [
    row.id.toString(),
    format.forPeople ? excelDateTime(row.createdAt) : textCell(row.createdAt, format),
    textCell(row.requestId, format),
    textCell(row.endpoint, format),
    textCell(row.model, format),
    textCell(row.apiKeyId, format),
    textCell(row.keyName, format),
    textCell(row.agentId, format),
    format.forPeople ? csvBooleanRu[String(row.stream) as 'true' | 'false'] : textCell(String(row.stream), format),
    textCell(row.status, format),
    textCell(row.usageSource, format),
    String(row.promptTokens),
    String(row.completionTokens),
    String(row.totalTokens),
    String(row.cachedTokens),
    String(row.cacheWriteTokens),
    String(row.reasoningTokens),
    moneyCell(row.promptCostNano, format),
    moneyCell(row.completionCostNano, format),
    moneyCell(row.unpaidNano, format),
    moneyCell(row.costNano, format),
    textCell(currency, format),
    String(row.durationMs),
    row.audioMs === null || row.audioMs === undefined ? '' : String(row.audioMs / 1000),
  ];
  if (operator) {
    cells.push(textCell(row.providerId, format), row.attempts === null ? '' : String(row.attempts), moneyCell(row.providerCostNano, format));
  }
  return `${cells.join(format.delimiter)}\r\n`;
}

/** Without a byte-order mark Excel reads UTF-8 as the system's code page and shows Cyrillic as mojibake. */
export const UTF8_BOM = '\uFEFF';

/** `conduit-usage-2026-11-01-2026-12-01.csv`: the period in the name, as the query gave it (dates only). */
function fileName(query: { from?: string; to?: string }): string {
  const day = (text: string | undefined) => (text ? text.slice(0, 10) : '');
  const period = [day(query.from) || 'start', day(query.to) || 'now'].join('-');
  return query.from || query.to ? `conduit-usage-${period}.csv` : 'conduit-usage.csv';
}

/** Query parameters as /api/usage reads them: strings, a repeated one as the list of its values. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return query;
}

export interface UsageExportDeps {
  /** auth/authenticate.ts's authenticator, named by what the export calls (auth/ sits on a higher floor). */
  authenticator: {
    jwtOrKey(headers: Headers, organizationRoles?: readonly OrganizationRole[]): Promise<Principal>;
    /** Refuses (throws) unless the caller is an operator. */
    admin(headers: Headers): Promise<unknown>;
  };
  usageReport: UsageReport;
  /** Usage rows are written in batches: what was billed before the request must be in the file. */
  billing: { flush(): Promise<void> };
  currency: string;
  logger: Logger;
  pageSize?: number;
}

export function createUsageExport(deps: UsageExportDeps) {
  /** Exports whose file is still being written: each holds a page in memory (and on PostgreSQL a connection). */
  let open = 0;

  /**
   * The file of one account's records. Input and the first page are checked before the answer starts, so
   * their failures are ordinary error answers. A failure after that can only cut the transfer short, and
   * does so loudly (the stream errors) rather than end a file that looks complete.
   * The body is a pull stream: the next page is read only when the client has taken the previous one,
   * so a slow client slows the read instead of filling memory. A client that goes away cancels the
   * stream, which ends the read (on PostgreSQL the cursor is closed and its connection given back).
   */
  async function exported(request: Request, userId: string, keyFilter: (keyId: string | undefined) => string | undefined, operator: boolean, createdBy?: string) {
    const url = new URL(request.url);
    const raw = queryOf(url);
    // A filter is compared with stored text: one PostgreSQL cannot hold (NUL) is refused, as the procedures refuse it.
    const unstorable = findUnstorableText(raw);
    if (unstorable !== null) throw new AppError('invalid_request_error', errorMessages.unstorableText(fieldNameOf(unstorable)), { param: unstorable || null });
    const input = usageExportInput.parse(raw);
    const keyId = keyFilter(input.keyId);
    await deps.billing.flush();
    const columns: readonly CsvColumn[] = operator ? ADMIN_USAGE_CSV_COLUMNS : USAGE_CSV_COLUMNS;
    const format = CSV_FORMATS[input.format];

    const pages = deps.usageReport.pages(userId, { from: input.from, to: input.to, keyId, createdBy, model: input.model, endpoint: input.endpoint }, deps.pageSize);
    let pending: IteratorResult<ExportedUsageRow[]> | null = await pages.next();
    open += 1;
    let finished = false;
    let cancelled = false;
    let rowsWritten = 0;
    const finish = () => {
      if (finished) return;
      finished = true;
      open -= 1;
    };
    let text = UTF8_BOM + csvHeader(columns, format, USAGE_HEADERS_RU);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = pending ?? (await pages.next());
          pending = null;
          // The client went away while the page was read: cancel() ends the read, nothing to send.
          if (cancelled) return;
          if (!next.done) {
            for (const row of next.value) text += csvLine(row, deps.currency, operator, format);
            rowsWritten += next.value.length;
          }
          // The header line goes out with the first page, or alone when there is no record at all.
          if (text) controller.enqueue(Buffer.from(text));
          text = '';
          if (next.done) {
            finish();
            controller.close();
          }
        } catch (error) {
          finish();
          if (cancelled) return;
          deps.logger.error('usage export failed mid-stream', { error, rows: rowsWritten });
          await pages.return(undefined).catch(() => undefined);
          controller.error(error);
        }
      },
      async cancel(reason) {
        cancelled = true;
        try {
          await pages.return(undefined);
        } finally {
          finish();
          deps.logger.info('usage export stopped: the client went away', { rows: rowsWritten, reason: String(reason) });
        }
      },
    });
    const name = fileName({ from: typeof raw.from === 'string' ? raw.from : undefined, to: typeof raw.to === 'string' ? raw.to : undefined });
    return csvResponse(body, name);
  }

  return {
    /** GET /api/usage/export: the caller's own records, within its key's scope. */
    async handle(request: Request): Promise<Response> {
      const principal = await deps.authenticator.jwtOrKey(request.headers, ORGANIZATION_ACCESS.usage);
      return exported(request, principal.userId, (keyId) => usageKeyFilter(principal, keyId), false, usageCreatorFilter(principal));
    },

    /** GET /api/admin/users/{id}/usage/export: an operator's export of one account, with the provider columns. */
    async handleAdmin(request: Request, userId: string): Promise<Response> {
      await deps.authenticator.admin(request.headers);
      // An operator's export names an account by its id: anything else cannot be one.
      if (!isUuid(userId) || !(await deps.usageReport.accountExists(userId))) {
        throw new AppError('not_found', gatewayMessages.adminUserNotFound);
      }
      return exported(request, userId, (keyId) => keyId, true);
    },

    /** Exports still being written (their reads not ended): 0 once every client has its file or went away. */
    get openExports() {
      return open;
    },
  };
}

export type UsageExport = ReturnType<typeof createUsageExport>;
