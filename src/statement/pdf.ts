// What the счёт and the акт are drawn with (pdfkit): the page, the fonts, bordered tables, the parties, the
// totals with the amount in words and the signature lines. The text is set in DejaVu Sans (the
// dejavu-fonts-ttf package, under its free licence), embedded in each file: the PDF standard fonts have no
// Cyrillic. invoice-pdf.ts and act-pdf.ts lay out the two documents from these pieces.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PDFDocumentClass from 'pdfkit';
import { amountInWords } from '../money-words';
import { formatDocumentAmount, formatDocumentNumber, roundToKopecks } from './amounts';
import type { CustomerRequisites, OperatorRequisites } from './requisites';
import { documentTexts as T } from './texts';

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/**
 * The two fonts' bytes (~1.4 MB), read on the first document and kept: pdfkit given a path reads the file
 * again for every document, synchronously — about half of a document's time on the event loop.
 */
let fontBytes: { regular: Buffer; bold: Buffer } | null = null;
/**
 * pdfkit is loaded with the first document, not at start: with its font machinery it is ~40 MB of the server's
 * resident memory (issue 46: idle RSS), for documents an instance may draw a few times a month.
 */
let pdfKit: Promise<typeof PDFDocumentClass> | null = null;
const loadPdfKit = () => (pdfKit ??= import('pdfkit').then((module) => module.default));
const fonts = () => (fontBytes ??= { regular: readFileSync(FONT), bold: readFileSync(FONT_BOLD) });

export type Supplier = Omit<OperatorRequisites, 'updatedAt'>;
export type Customer = CustomerRequisites & { email: string };

/** One line of a document's table: what, how many, of what unit, at what price. */
export interface DocumentLine {
  name: string;
  quantity: number;
  unit: string;
  priceNano: bigint;
}

/** Each amount is rounded to kopecks, so the total is the sum of the amounts printed. */
export const kopecksOnly = (nano: bigint) => roundToKopecks(nano) * 10_000_000n;
export const lineSum = (line: DocumentLine) => kopecksOnly(line.priceNano) * BigInt(line.quantity);

/** «ООО «Кондуит», ИНН 7701234567, КПП 770101001, 123112, г. Москва, …». */
export function supplierText(s: Supplier): string {
  return [s.companyName, `ИНН ${s.inn}`, s.kpp ? `КПП ${s.kpp}` : '', s.address].filter(Boolean).join(', ');
}

/** An e-mail address whose hyphens do not break a line (no-break hyphens): a reader copies it whole. */
const unbroken = (email: string) => email.replace(/-/g, '\u2011');

/** The customer's company name, or the account's e-mail worded for a document. */
export const customerName = (c: Customer) => c.companyName || T.accountOwner(unbroken(c.email));

/** The customer's company with what is known of it, or the account's e-mail worded for a document. */
export function customerText(c: Customer): string {
  return [customerName(c), c.inn ? `ИНН ${c.inn}` : '', c.kpp ? `КПП ${c.kpp}` : '', c.address, c.companyName ? `${T.email} ${unbroken(c.email)}` : '']
    .filter(Boolean)
    .join(', ');
}

export interface Column {
  title: string;
  width: number;
  align: 'left' | 'center' | 'right';
}

/**
 * A started A4 document and the means to draw on it; `finish()` ends it and resolves to the PDF's bytes. The УПД's
 * wide table takes a landscape page.
 */
export async function startDocument(title: string, author: string, layout: 'portrait' | 'landscape' = 'portrait') {
  const PDFDocument = await loadPdfKit();
  const doc = new PDFDocument({ size: 'A4', layout, margin: layout === 'landscape' ? 24 : 40, info: { Title: title, Author: author } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const { regular, bold } = fonts();
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  doc.lineWidth(0.6).strokeColor('black');
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const bottom = () => doc.page.height - doc.page.margins.bottom;

  const text = (value: string, options: { size?: number; bold?: boolean; align?: 'left' | 'right' | 'center'; x?: number; width?: number } = {}) =>
    doc
      .font(options.bold ? 'bold' : 'regular')
      .fontSize(options.size ?? 9)
      .text(value, options.x ?? left, doc.y, { width: options.width ?? width, align: options.align ?? 'left' });

  /** Leaves room for `height` points, starting a new page when the rest of this one is shorter. */
  const room = (height: number) => {
    if (doc.y + height > bottom()) doc.addPage();
  };

  const rule = (weight = 1.2) => {
    doc.moveDown(0.3);
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .lineWidth(weight)
      .stroke()
      .lineWidth(0.6);
    doc.moveDown(0.5);
  };

  /** A bordered table: a header row in bold, then one row per line; a row never splits across pages. */
  const table = (columns: Column[], header: string[], rows: string[][]) => {
    const drawRow = (cells: string[], bold: boolean) => {
      doc.font(bold ? 'bold' : 'regular').fontSize(8.5);
      const height = Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: columns[i]!.width - 6 }))) + 6;
      room(height);
      const top = doc.y;
      let x = left;
      cells.forEach((cell, i) => {
        const column = columns[i]!;
        doc.rect(x, top, column.width, height).stroke();
        doc.text(cell, x + 3, top + 3, { width: column.width - 6, align: bold ? 'center' : column.align });
        x += column.width;
      });
      doc.y = top + height;
    };
    drawRow(header, true);
    for (const row of rows) drawRow(row, false);
  };

  /** «Label: value» in one paragraph, the label bold. */
  const labelled = (label: string, value: string) => {
    room(24);
    doc.font('bold').fontSize(9).text(`${label}: `, left, doc.y, { width, continued: true });
    doc.font('regular').text(value);
    doc.moveDown(0.4);
  };

  /**
   * The totals under the table, right-aligned: Итого, the VAT line (the operator's own words; none when empty),
   * «Всего к оплате» on a счёт; then the count and sum of the lines and the amount in words in bold.
   */
  const totals = (lines: DocumentLine[], vatNote: string, currency: string, wording: { grandTotal?: string; summary: (count: number, sum: string) => string }) => {
    const total = lines.reduce((sum, line) => sum + lineSum(line), 0n);
    const amount = formatDocumentNumber(total);
    room(110);
    doc.moveDown(0.4);
    text(`${T.total}: ${amount}`, { bold: true, align: 'right' });
    if (vatNote) text(vatNote, { bold: true, align: 'right' });
    if (wording.grandTotal) text(`${wording.grandTotal}: ${amount}`, { bold: true, align: 'right' });
    doc.moveDown(0.6);
    text(wording.summary(lines.length, formatDocumentAmount(total, currency)));
    text(amountInWords(roundToKopecks(total), currency), { bold: true });
    return total;
  };

  /** A signature line: «Руководитель ______________ / Иванов И. И. /» (a blank when the name is not known), at `x`. */
  const signature = (role: string, name: string, x: number, lineWidth: number, y: number) => {
    doc.font('regular').fontSize(9).text(T.signatureLine(role, name), x, y, { width: lineWidth, lineBreak: false, ellipsis: true });
  };

  return {
    doc,
    left,
    width,
    room,
    text,
    rule,
    table,
    labelled,
    totals,
    signature,
    finish(): Promise<Buffer> {
      doc.end();
      return finished;
    },
  };
}

export type DocumentCanvas = Awaited<ReturnType<typeof startDocument>>;
