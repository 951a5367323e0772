// The счёт на оплату as a PDF, laid out as a Russian bank-transfer invoice is: the recipient's bank block on top
// (bank, БИК, correspondent account; ИНН/КПП, name and settlement account of the recipient), the title with its
// number and date, the supplier and the buyer with their requisites, the table (№, name, quantity, unit, price,
// sum), Итого, «В том числе НДС» (or «Без НДС»), «Всего к оплате», the amount in words, the payment purpose to copy,
// the last day it is good for, and the signature lines with a place for the stamp. Once paid it says «Оплачен
// DD.MM.YYYY» at the top; once cancelled, that it is.
import { SERVICE_NAME } from '../service-info';
import { formatDocumentDate, formatDocumentDay, formatDocumentNumber } from './amounts';
import { paymentPurpose, vatLines } from './invoice-terms';
import { type Invoice, lastValidDay } from './invoices';
import { moscowDay } from './moscow';
import { customerText, type DocumentCanvas, type DocumentLine, lineSum, startDocument, supplierText } from './pdf';
import { documentTexts as T } from './texts';

/** The bank block: a bordered grid, drawn in the order a reader reads it (left to right, top to bottom). */
function bankBlock(c: DocumentCanvas, invoice: Invoice): void {
  const { doc, left, width } = c;
  const s = invoice.supplier;
  const labelWidth = 50;
  const valueWidth = 150;
  const nameWidth = width - labelWidth - valueWidth;
  const mid = left + nameWidth;
  const right = mid + labelWidth;
  const pad = 3;
  const lineHeight = 13;
  doc.fontSize(9);
  const bankHeight = Math.max(2 * lineHeight, doc.font('regular').heightOfString(s.bankName, { width: nameWidth - 2 * pad }) + pad) + lineHeight;
  const nameHeight = Math.max(lineHeight, doc.font('regular').heightOfString(s.companyName, { width: nameWidth - 2 * pad }) + pad) + lineHeight;
  const top = doc.y;
  const innTop = top + bankHeight;
  const nameTop = innTop + lineHeight + 2;
  const bottom = nameTop + nameHeight;

  const cell = (value: string, x: number, y: number, w: number, options: { small?: boolean } = {}) =>
    doc
      .font('regular')
      .fontSize(options.small ? 7.5 : 9)
      .text(value, x + pad, y + pad, { width: w - 2 * pad });

  // The bank: its name, then БИК and the correspondent account beside it.
  cell(s.bankName, left, top, nameWidth);
  cell(T.bik, mid, top, labelWidth);
  cell(s.bik, right, top, valueWidth);
  cell(T.accountNo, mid, top + lineHeight + 2, labelWidth);
  cell(s.correspondentAccount, right, top + lineHeight + 2, valueWidth);
  cell(T.bank, left, innTop - lineHeight, nameWidth, { small: true });
  // The recipient: ИНН and КПП, the settlement account beside them, then the name.
  const half = nameWidth / 2;
  cell(`ИНН ${s.inn}`, left, innTop, half);
  cell(s.kpp ? `КПП ${s.kpp}` : 'КПП —', left + half, innTop, half);
  cell(T.accountNo, mid, innTop, labelWidth);
  cell(s.account, right, innTop, valueWidth);
  cell(s.companyName, left, nameTop, nameWidth);
  cell(T.recipient, left, bottom - lineHeight, nameWidth, { small: true });

  doc.lineWidth(0.6);
  doc.rect(left, top, width, bottom - top).stroke();
  doc.moveTo(mid, top).lineTo(mid, bottom).stroke();
  doc.moveTo(right, top).lineTo(right, bottom).stroke();
  doc
    .moveTo(left, innTop)
    .lineTo(left + width, innTop)
    .stroke();
  doc
    .moveTo(mid, top + lineHeight + 2)
    .lineTo(left + width, top + lineHeight + 2)
    .stroke();
  doc.moveTo(left, nameTop).lineTo(mid, nameTop).stroke();
  doc
    .moveTo(left + half, innTop)
    .lineTo(left + half, nameTop)
    .stroke();
  doc.x = left;
  doc.y = bottom + 14;
}

/** «ООО «Кондуит», ИНН …, КПП …, ОГРН …, адрес, р/с … в …, БИК …, к/с …»: a party with every requisite it has. */
function partyText(base: string, p: { ogrn?: string; account?: string; bankName?: string; bik?: string; correspondentAccount?: string }): string {
  const bank =
    p.account && p.bankName ? [`р/с ${p.account} в ${p.bankName}`, p.bik ? `БИК ${p.bik}` : '', p.correspondentAccount ? `к/с ${p.correspondentAccount}` : ''] : [];
  return [base, p.ogrn ? `ОГРН ${p.ogrn}` : '', ...bank].filter(Boolean).join(', ');
}

/** A paid or cancelled счёт says so in a frame at the top right, above the bank block. */
function statusMark(c: DocumentCanvas, invoice: Invoice): void {
  const mark = invoice.status === 'paid' && invoice.paidOn ? T.paidMark(formatDocumentDay(invoice.paidOn)) : invoice.status === 'cancelled' ? T.cancelledMark : null;
  if (!mark) return;
  const { doc, left, width } = c;
  const boxWidth = invoice.status === 'paid' ? 150 : 260;
  const x = left + width - boxWidth;
  const y = doc.y;
  doc.font('bold').fontSize(11);
  const height = doc.heightOfString(mark, { width: boxWidth - 10 }) + 8;
  doc.lineWidth(1.2).rect(x, y, boxWidth, height).stroke().lineWidth(0.6);
  doc.text(mark, x + 5, y + 4, { width: boxWidth - 10, align: 'center' });
  doc.x = left;
  doc.y = y + height + 8;
}

/** Renders a счёт на оплату; resolves to the PDF's bytes. */
export async function renderInvoice(invoice: Invoice): Promise<Buffer> {
  const date = formatDocumentDate(moscowDay(invoice.createdAt));
  const c = await startDocument(T.invoiceTitle(invoice.number, date), invoice.supplier.companyName);
  statusMark(c, invoice);
  bankBlock(c, invoice);

  c.text(T.invoiceTitle(invoice.number, date), { size: 14, bold: true });
  c.rule();
  c.labelled(T.supplier, partyText(supplierText(invoice.supplier), invoice.supplier));
  c.labelled(T.buyer, partyText(customerText(invoice.customer), invoice.customer));
  c.doc.moveDown(0.4);

  const lines: DocumentLine[] = [{ name: T.invoiceLine(SERVICE_NAME), quantity: 1, unit: T.serviceUnit, priceNano: invoice.amountNano }];
  const w = c.width;
  c.table(
    [
      { title: T.columns.n, width: 24, align: 'center' },
      { title: T.goodsColumn, width: w - 24 - 50 - 40 - 80 - 85, align: 'left' },
      { title: T.columns.quantity, width: 50, align: 'right' },
      { title: T.columns.unit, width: 40, align: 'center' },
      { title: T.columns.price, width: 80, align: 'right' },
      { title: T.columns.amount, width: 85, align: 'right' },
    ],
    [T.columns.n, T.goodsColumn, T.columns.quantity, T.columns.unit, T.columns.price, T.columns.amount],
    lines.map((line, i) => [String(i + 1), line.name, String(line.quantity), line.unit, formatDocumentNumber(line.priceNano), formatDocumentNumber(lineSum(line))]),
  );
  c.totals(lines, vatLines(invoice).join('\n'), invoice.currency, { grandTotal: T.grandTotal, summary: T.invoiceSummary });
  c.doc.moveDown(0.6);
  c.text(T.paymentPurpose(paymentPurpose(invoice)), { size: 9, bold: true });
  c.doc.moveDown(0.3);
  c.text(T.validUntil(formatDocumentDay(lastValidDay(invoice))), { size: 8 });
  c.rule();

  c.room(70);
  c.doc.moveDown(1.5);
  const y = c.doc.y;
  const half = c.width / 2;
  c.signature(T.director, invoice.supplier.directorName, c.left, half - 10, y);
  c.signature(T.invoiceAccountant, invoice.supplier.accountantName, c.left + half, half, y);
  c.doc.x = c.left;
  c.doc.y = y + 26;
  c.text(T.stamp, { x: c.left + 40 });
  return c.finish();
}
