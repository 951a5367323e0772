// The УПД (универсальный передаточный документ) of a month's services, on a landscape A4 page, drawn from an
// issued document's frozen facts: the status box (1 — also a счёт-фактура, 2 — a transfer document only),
// «Счёт-фактура № N от <date>» with the correction line, the seller and the buyer with addresses and ИНН/КПП
// (rows 2–7 of the form), the table of the form's columns (code, name, unit with its ОКЕИ code, quantity,
// price, cost without tax, excise, rate, tax, cost with tax), «Всего к оплате», the signers, and both halves of
// the transfer: «Товар (груз) передал / услуги … сдал» and «… получил / услуги … принял».
import { formatDocumentDate, formatDocumentDay, formatDocumentNumber } from './amounts';
import type { ClosingFacts } from './closing-documents';
import { type Column, startDocument } from './pdf';
import { customerParty } from './act-pdf';
import { closingTexts as C, documentTexts as T, monthTitle } from './texts';

const innKpp = (inn: string, kpp: string) => [inn, kpp].filter(Boolean).join('/') || C.notApplicable;

/** Renders an issued УПД; resolves to the PDF's bytes. */
export async function renderUpd(facts: ClosingFacts): Promise<Buffer> {
  const date = formatDocumentDate(facts.date);
  const title = C.invoiceFactura(facts.number, date);
  const s = facts.supplier;
  const c = await startDocument(`${C.updTitle}: ${title}`, s.companyName, 'landscape');
  const { doc, left } = c;
  const status = facts.updStatus ?? 2;
  const vatPayer = facts.vatRate !== null;

  // The status box on the left, the heading rows on the right.
  const boxWidth = 150;
  const top = doc.y;
  doc.font('bold').fontSize(10).text(C.updTitle, left, top, { width: boxWidth });
  const statusY = doc.y + 6;
  doc
    .font('regular')
    .fontSize(9)
    .text(C.updStatus, left, statusY + 5, { width: 50 });
  doc.rect(left + 50, statusY, 28, 22).stroke();
  doc
    .font('bold')
    .fontSize(13)
    .text(String(status), left + 50, statusY + 4, { width: 28, align: 'center' });
  doc
    .font('regular')
    .fontSize(6.5)
    .text(C.updStatusHint, left, statusY + 30, { width: boxWidth - 6 });
  const boxBottom = doc.y + 4;

  const x = left + boxWidth + 12;
  const width = c.width - boxWidth - 12;
  doc.y = top;
  const row = (label: string, value: string, code: string, bold = false) => {
    const y = doc.y;
    doc.font('regular').fontSize(8).text(label, x, y, { width: 170 });
    const labelEnd = doc.y;
    doc
      .font(bold ? 'bold' : 'regular')
      .fontSize(bold ? 10 : 8)
      .text(value, x + 172, y, { width: width - 172 - 24 });
    const end = Math.max(doc.y, labelEnd, y + 10);
    doc
      .font('regular')
      .fontSize(7)
      .text(`(${code})`, x + width - 22, y, { width: 22, align: 'right' });
    doc
      .moveTo(x + 172, end)
      .lineTo(x + width - 24, end)
      .lineWidth(0.4)
      .stroke()
      .lineWidth(0.6);
    doc.y = end + 2;
  };
  row('', title, '1', true);
  row('', facts.corrects ? C.correctionOfUpd(facts.corrects.number, formatDocumentDay(facts.corrects.date)) : C.correctionNo, '1а');
  row(C.seller, s.companyName, '2');
  row(C.sellerAddress, s.address, '2а');
  row(C.sellerInnKpp, innKpp(s.inn, s.kpp), '2б');
  row(C.shipper, C.notApplicable, '3');
  row(C.consignee, C.notApplicable, '4');
  row(C.paymentDoc, C.paymentDocValue, '5');
  const buyer = customerParty(facts.customer);
  row(C.buyer, buyer.name, '6');
  row(C.buyerAddress, facts.customer.address || C.notApplicable, '6а');
  row(C.buyerInnKpp, innKpp(facts.customer.inn, facts.customer.kpp), '6б');
  row(C.currencyLine, C.currencyRub, '7');
  doc.y = Math.max(doc.y, boxBottom) + 6;

  const K = C.updColumns;
  const widths = [26, 46, 0, 34, 46, 42, 70, 80, 50, 50, 70, 80];
  widths[2] = c.width - widths.reduce((a, b) => a + b, 0);
  const aligns: Column['align'][] = ['center', 'center', 'left', 'center', 'center', 'right', 'right', 'right', 'center', 'center', 'right', 'right'];
  const titles = [K.n, K.code, K.name, K.unitCode, K.unit, K.quantity, K.price, K.costWithoutVat, K.excise, K.rate, K.vat, K.costWithVat];
  const columns: Column[] = titles.map((title, i) => ({ title, width: widths[i]!, align: aligns[i]! }));
  const rate = vatPayer ? `${facts.vatRate}%` : C.noVatCell;
  const rows = facts.lines.map((line, i) => {
    const amount = BigInt(line.amountNano);
    const vat = BigInt(line.vatNano);
    const net = formatDocumentNumber(amount - vat);
    return [
      String(i + 1),
      C.notApplicable,
      line.name,
      C.unitCode,
      C.unitName,
      '1',
      net,
      net,
      C.noExcise,
      rate,
      vatPayer ? formatDocumentNumber(vat) : C.noVatCell,
      formatDocumentNumber(amount),
    ];
  });
  // Under the heading, the form's column numbers (А, Б, 1 … 9), as an accountant finds the columns by them.
  c.table(columns, titles, [['А', 'Б', '1', '2', '2а', '3', '4', '5', '6', '7', '8', '9'], ...rows]);
  // «Всего к оплате»: the totals of columns 5, 8 and 9.
  const amount = BigInt(facts.amountNano);
  const vat = BigInt(facts.vatNano);
  const totalY = doc.y;
  const before = widths.slice(0, 7).reduce((a, b) => a + b, 0);
  doc.rect(left, totalY, before, 14).stroke();
  doc
    .font('bold')
    .fontSize(8)
    .text(C.updTotal, left + 3, totalY + 3, { width: before - 6 });
  let cx = left + before;
  const cell = (w: number, value: string) => {
    doc.rect(cx, totalY, w, 14).stroke();
    doc
      .font('bold')
      .fontSize(8)
      .text(value, cx + 3, totalY + 3, { width: w - 6, align: 'right' });
    cx += w;
  };
  cell(widths[7]!, formatDocumentNumber(amount - vat));
  cell(widths[8]! + widths[9]!, 'X');
  cell(widths[10]!, vatPayer ? formatDocumentNumber(vat) : C.noVatCell);
  cell(widths[11]!, formatDocumentNumber(amount));
  doc.x = left;
  doc.y = totalY + 20;

  // The signers of the seller.
  c.text(`${C.updSigned} ${C.sheets}`, { size: 7 });
  const half = c.width / 2;
  const signY = doc.y + 4;
  doc.font('regular').fontSize(8).text(C.head, left, signY, { width: 170 });
  doc.text(C.signLine(s.directorName), left + 172, signY, { width: half - 180 });
  doc.text(C.chiefAccountant, left + half, signY, { width: 170 });
  doc.text(C.signLine(s.accountantName), left + half + 172, signY, { width: half - 180 });
  doc.y = signY + 26;
  c.rule(0.8);

  // Both halves of the transfer.
  c.room(110);
  const bottom = doc.y;
  const halfBlock = (bx: number, heading: string, party: string, lines: string[], signer: string) => {
    doc
      .font('bold')
      .fontSize(8)
      .text(heading, bx, bottom, { width: half - 14 });
    for (const line of lines)
      doc
        .font('regular')
        .fontSize(8)
        .text(line, bx, doc.y + 3, { width: half - 14 });
    doc
      .font('regular')
      .fontSize(8)
      .text(`${T.director} ${C.signLine(signer)}`, bx, doc.y + 10, { width: half - 14 });
    doc.text(`${party}`, bx, doc.y + 6, { width: half - 14 });
    doc.text(T.stamp, bx, doc.y + 4, { width: half - 14 });
    return doc.y;
  };
  const basis = C.basisText(monthTitle(facts.month));
  const end = Math.max(
    halfBlock(left, C.transferred, s.companyName, [`${C.basis}: ${basis}`, C.dateOfTransfer(formatDocumentDay(facts.date))], s.directorName),
    halfBlock(left + half + 8, C.received, buyer.name, [`${C.basis}: ${basis}`, C.dateOfReceipt], ''),
  );
  doc.x = left;
  doc.y = end;
  return c.finish();
}
