// The issued closing documents as files (described in closing-routes.route.ts): a customer's PDF by id, the old
// month address redirected to the month's issued акт, and for the operator a month's PDFs in one ZIP and the
// month's registry as CSV. Every PDF is drawn from the document's frozen facts, never from live data.
import type { Authenticator } from '../auth';
import { ORGANIZATION_ACCESS } from '../keys';
import { CSV_FORMATS, textCell, UTF8_BOM } from '../gateway';
import { AppError } from '../http/errors';
import { renderAct } from './act-pdf';
import { formatDocumentDay, formatDocumentNumber } from './amounts';
import type { ClosingDocument, ClosingDocuments } from './closing-documents';
import { monthInput } from './input';
import { moscowMonth } from './moscow';
import { yieldBeforeDrawing, type RenderQueue } from './render-queue';
import { closingTexts as C, monthTitle, statementMessages } from './texts';
import { renderUpd } from './upd-pdf';
import { zipStore } from './zip';
import { csvResponse } from '../http/csv-response';

/** The PDF of an issued document, from its facts alone. */
export const renderClosing = (document: ClosingDocument): Promise<Buffer> => (document.kind === 'upd' ? renderUpd(document.facts) : renderAct(document.facts));

/** «akt-12-2026.pdf», «upd-13-2026.pdf»: kind, number and year, unique in a month's archive. */
export const fileNameOf = (d: Pick<ClosingDocument, 'kind' | 'number' | 'year'>) => `${d.kind === 'upd' ? 'upd' : 'akt'}-${d.number}-${d.year}.pdf`;

export const pdfUrlOf = (d: Pick<ClosingDocument, 'id'>) => `/api/account/documents/${d.id}.pdf`;

const pdfResponse = (pdf: Uint8Array<ArrayBuffer>, name: string, type = 'application/pdf') =>
  new Response(pdf, { headers: { 'content-type': type, 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' } });

/** A month in the path: YYYY-MM from 0001 (a 400 in Russian otherwise). */
function parseMonth(month: string): string {
  const parsed = monthInput.safeParse(month);
  if (!parsed.success) throw new AppError('invalid_request_error', parsed.error.issues[0]?.message ?? statementMessages.monthInvalid, { param: 'month' });
  return parsed.data;
}

export const REGISTRY_COLUMNS = ['number', 'date', 'kind', 'customer', 'inn', 'kpp', 'amount', 'vat', 'status', 'corrects'] as const;

/** The registry's file: one document a line, by number; Russian headers, «;» and a decimal comma, as Excel in Russian reads it. */
export function registryCsv(documents: readonly ClosingDocument[]): string {
  const format = CSV_FORMATS['excel-ru'];
  const byId = new Map(documents.map((d) => [d.id, d]));
  const money = (nano: bigint) => formatDocumentNumber(nano).replace(/[\s\u00a0\u202f]/g, '');
  let text = `${UTF8_BOM}${C.registryHeaders.map((h) => textCell(h, format)).join(';')}\r\n`;
  for (const d of documents) {
    const c = d.facts.customer;
    const corrected = d.corrects ? byId.get(d.corrects) : undefined;
    const cells = [
      String(d.number),
      formatDocumentDay(d.date),
      textCell(C.kinds[d.kind] ?? d.kind, format),
      textCell(c.companyName || c.email, format),
      textCell(c.inn, format),
      textCell(c.kpp, format),
      money(d.amountNano),
      money(d.vatNano),
      textCell(C.statuses[d.status] ?? d.status, format),
      corrected ? textCell(`${C.kinds[corrected.kind]} № ${corrected.number} от ${formatDocumentDay(corrected.date)}`, format) : '',
    ];
    text += `${cells.join(';')}\r\n`;
  }
  return text;
}

export function createClosingRoutes(deps: { authenticator: Authenticator; closing: ClosingDocuments; renderQueue: RenderQueue }) {
  const { authenticator, closing, renderQueue } = deps;
  const draw = (document: ClosingDocument) =>
    renderQueue.run(async () => {
      await yieldBeforeDrawing();
      return renderClosing(document);
    });

  return {
    /** GET /api/account/documents/{id}.pdf: an issued document of the caller's account (another's: 404). */
    async pdf(request: Request, file: string): Promise<Response> {
      const principal = await authenticator.jwtUser(request.headers, ORGANIZATION_ACCESS.money);
      const match = /^(.+)\.pdf$/.exec(file);
      const document = match ? await closing.getFor(principal.userId, match[1]!) : null;
      if (!document) throw new AppError('not_found', C.documentNotFound);
      return pdfResponse(new Uint8Array(await draw(document)), fileNameOf(document));
    },

    /**
     * GET /api/account/documents/{month}/act.pdf, the address before documents were issued: the month's issued
     * акт itself (Content-Location names its own address), or 404 saying documents come once the month has
     * ended. Served, not redirected: a client that does not follow redirects (curl without -L) keeps working.
     */
    async monthAct(request: Request, month: string, file: string): Promise<Response> {
      const principal = await authenticator.jwtUser(request.headers, ORGANIZATION_ACCESS.money);
      const parsed = parseMonth(month);
      if (file !== 'act.pdf') throw new AppError('not_found', statementMessages.documentKindUnknown);
      if (parsed > moscowMonth(new Date())) throw new AppError('invalid_request_error', statementMessages.monthInFuture, { param: 'month' });
      const document = await closing.issuedFor(principal.userId, parsed);
      if (!document) throw new AppError('not_found', C.notIssuedYet(monthTitle(parsed)));
      const response = pdfResponse(new Uint8Array(await draw(document)), fileNameOf(document));
      response.headers.set('content-location', pdfUrlOf(document));
      return response;
    },

    /** GET /api/admin/documents/{month}.zip: every document of the month, superseded ones too, as stored PDFs. */
    async zip(request: Request, file: string): Promise<Response> {
      await authenticator.admin(request.headers);
      // A segment that does not decode (a broken escape) reaches here as null: no month, a 400 like any bad one.
      const name = file ?? '';
      if (file != null && !name.endsWith('.zip')) throw new AppError('not_found', C.documentNotFound);
      const month = parseMonth(name.replace(/\.zip$/, ''));
      const entries = [];
      for (const document of await closing.listMonth(month)) entries.push({ name: fileNameOf(document), bytes: new Uint8Array(await draw(document)) });
      return pdfResponse(zipStore(entries), `conduit-documents-${month}.zip`, 'application/zip');
    },

    /** GET /api/admin/documents/{month}/registry.csv: the month's documents one a line. */
    async registry(request: Request, month: string, file: string): Promise<Response> {
      await authenticator.admin(request.headers);
      const parsed = parseMonth(month);
      if (file !== 'registry.csv') throw new AppError('not_found', C.documentNotFound);
      const text = registryCsv(await closing.listMonth(parsed));
      return csvResponse(text, `conduit-documents-${parsed}.csv`);
    },
  };
}

export type ClosingRoutes = ReturnType<typeof createClosingRoutes>;
