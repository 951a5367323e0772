// The closing documents as PDF files, drawn with pdfkit. The text is set in DejaVu Sans (the
// dejavu-fonts-ttf package, under its free licence), embedded in each file: the PDF standard fonts
// have no Cyrillic.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';
import { formatDocumentAmount, formatDocumentDay, roundToKopecks } from './amounts';
import type { MonthFacts } from './documents';
import type { DocumentKind } from './input';
import type { CustomerRequisites, OperatorRequisites } from './requisites';
import { documentTexts as T, monthTitle, operationLabel, requestsText } from './texts';

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

/**
 * The two fonts' bytes (~1.4 MB), read on the first document and kept: pdfkit given a path reads the file
 * again for every document, synchronously — about half of a document's time on the event loop.
 */
let fontBytes: { regular: Buffer; bold: Buffer } | null = null;
const fonts = () => (fontBytes ??= { regular: readFileSync(FONT), bold: readFileSync(FONT_BOLD) });

export interface DocumentInput {
  kind: DocumentKind;
  number: string;
  facts: MonthFacts;
  supplier: OperatorRequisites;
  customer: CustomerRequisites;
  customerEmail: string;
  currency: string;
}

interface Row {
  name: string;
  quantity: string;
  amountNano: bigint;
}

/** Each line is rounded to kopecks, so the total is the sum of the amounts printed. */
const kopecksOnly = (nano: bigint) => roundToKopecks(nano) * 10_000_000n;

function rowsOf(input: DocumentInput): Row[] {
  if (input.kind === 'invoice') {
    return input.facts.payments.map((p) => ({ name: T.invoiceLine(formatDocumentDay(p.at)), quantity: '1', amountNano: kopecksOnly(p.amountNano) }));
  }
  return input.facts.services.map((s) => ({
    name: `${operationLabel(s.kind, -s.amountNano)}, ${monthTitle(input.facts.month)}`,
    quantity: requestsText(s.requests),
    amountNano: kopecksOnly(s.amountNano),
  }));
}

function supplierLines(r: OperatorRequisites): string[] {
  return [
    `${r.companyName}, ИНН ${r.inn}${r.kpp ? `, КПП ${r.kpp}` : ''}, ОГРН ${r.ogrn}`,
    `Адрес: ${r.address}`,
    `${T.bank}: ${r.bankName}, БИК ${r.bik}, к/с ${r.correspondentAccount}`,
    `Расчётный счёт: ${r.account}`,
  ];
}

function customerLine(input: DocumentInput): string {
  const { companyName, inn } = input.customer;
  const name = companyName || T.ownerEmail(input.customerEmail);
  return `${name}${inn ? `, ИНН ${inn}` : ''}${companyName ? ` (${input.customerEmail})` : ''}`;
}

/** Renders the счёт or the акт of a month; resolves to the PDF's bytes. */
export function renderDocument(input: DocumentInput): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    info: { Title: `${input.kind === 'invoice' ? 'Счёт' : 'Акт'} ${input.number}`, Author: input.supplier.companyName },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const { regular, bold } = fonts();
  doc.registerFont('regular', regular);
  doc.registerFont('bold', bold);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const { facts, currency } = input;
  const date = formatDocumentDay(facts.to);

  const heading = (text: string) => doc.font('bold').fontSize(9).text(text, left, doc.y, { width });
  const para = (text: string, size = 9) => doc.font('regular').fontSize(size).text(text, left, doc.y, { width });

  if (input.kind === 'invoice') {
    heading(`${T.recipient}:`);
    for (const line of supplierLines(input.supplier)) para(line);
  }
  doc.moveDown(1);
  doc
    .font('bold')
    .fontSize(14)
    .text(input.kind === 'invoice' ? T.invoiceTitle(input.number, date) : T.actTitle(input.number, date), left, doc.y, { width });
  para(T.period(formatDocumentDay(facts.from), formatDocumentDay(facts.to)));
  if (facts.current) {
    doc.fillColor('#a33').font('bold').fontSize(9).text(T.currentMonth(date), left, doc.y, { width });
    doc.fillColor('black');
  }
  doc.moveDown(0.8);
  if (input.kind === 'act') {
    heading(`${T.supplier}:`);
    for (const line of supplierLines(input.supplier)) para(line);
    doc.moveDown(0.5);
  }
  heading(`${input.kind === 'invoice' ? T.payer : T.customer}:`);
  para(customerLine(input));
  doc.moveDown(1);

  // The table: №, name, quantity, amount.
  const columns = [
    { title: T.columns.n, width: 28, align: 'left' as const },
    { title: T.columns.name, width: width - 28 - 90 - 100, align: 'left' as const },
    { title: T.columns.quantity, width: 90, align: 'right' as const },
    { title: T.columns.amount, width: 100, align: 'right' as const },
  ];
  const drawRow = (cells: string[], font: 'regular' | 'bold') => {
    doc.font(font).fontSize(9);
    const height = Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: columns[i]!.width - 6 }))) + 6;
    if (doc.y + height > doc.page.height - doc.page.margins.bottom) doc.addPage();
    const top = doc.y;
    let x = left;
    cells.forEach((cell, i) => {
      doc.text(cell, x + 3, top + 3, { width: columns[i]!.width - 6, align: columns[i]!.align });
      x += columns[i]!.width;
    });
    doc
      .moveTo(left, top + height)
      .lineTo(left + width, top + height)
      .lineWidth(0.5)
      .strokeColor('#888')
      .stroke();
    doc.y = top + height;
  };
  drawRow(
    columns.map((c) => c.title),
    'bold',
  );
  const rows = rowsOf(input);
  rows.forEach((row, i) => drawRow([String(i + 1), row.name, row.quantity, formatDocumentAmount(row.amountNano, currency)], 'regular'));
  if (rows.length === 0) {
    doc.moveDown(0.5);
    para(input.kind === 'invoice' ? T.noInvoiceLines : T.noActLines);
  }
  const total = rows.reduce((sum, row) => sum + row.amountNano, 0n);
  doc.moveDown(0.5);
  doc
    .font('bold')
    .fontSize(10)
    .text(`${T.total}: ${formatDocumentAmount(total, currency)}`, left, doc.y, { width, align: 'right' });
  if (input.supplier.vatNote) doc.font('regular').fontSize(9).text(input.supplier.vatNote, left, doc.y, { width, align: 'right' });
  doc.moveDown(1);
  para(input.kind === 'invoice' ? T.invoiceNote : T.actNote, 8);
  doc.moveDown(2);
  para(T.signatures.supplier, 10);
  if (input.kind === 'act') {
    doc.moveDown(1);
    para(T.signatures.customer, 10);
  }
  doc.end();
  return finished;
}
