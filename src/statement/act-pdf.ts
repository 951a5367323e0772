// The акт of a month's services as a PDF: the title with its number and date, the period (Moscow days), both
// parties with their requisites, the table (№, service, quantity, unit, price, sum), Итого, the VAT line, the
// amount in words, the acceptance wording, and both sides' signature lines with a place for each stamp.
import { formatDocumentDate, formatDocumentDay, formatDocumentNumber } from './amounts';
import type { MonthFacts } from './documents';
import { type Customer, customerName, customerText, type DocumentLine, kopecksOnly, lineSum, startDocument, type Supplier, supplierText } from './pdf';
import { documentTexts as T, monthTitle, operationLabel, requestsText } from './texts';

export interface ActInput {
  number: string;
  facts: MonthFacts;
  supplier: Supplier;
  customer: Customer;
  currency: string;
}

/** A month's services: each kind one service (quantity 1) at the month's sum, its requests named in the line. */
function actLines(facts: MonthFacts): DocumentLine[] {
  return facts.services.map((s) => ({
    name: T.actLine(operationLabel(s.kind, -s.amountNano), monthTitle(facts.month), requestsText(s.requests)),
    quantity: 1,
    unit: T.serviceUnit,
    priceNano: kopecksOnly(s.amountNano),
  }));
}

/** Renders the акт of a month; resolves to the PDF's bytes. */
export function renderAct(input: ActInput): Promise<Buffer> {
  const { facts } = input;
  const date = formatDocumentDate(facts.to);
  const c = startDocument(T.actTitle(input.number, date), input.supplier.companyName);

  c.text(T.actTitle(input.number, date), { size: 14, bold: true });
  c.text(T.actSubtitle(monthTitle(facts.month)), { size: 10 });
  c.text(T.period(formatDocumentDay(facts.from), formatDocumentDay(facts.to)));
  if (facts.current) {
    c.doc.fillColor('#a33');
    c.text(T.currentMonth(formatDocumentDay(facts.to)), { bold: true });
    c.doc.fillColor('black');
  }
  c.rule();
  const s = input.supplier;
  c.labelled(T.executor, `${supplierText(s)}, ОГРН ${s.ogrn}, р/с ${s.account} в ${s.bankName}, БИК ${s.bik}, к/с ${s.correspondentAccount}`);
  c.labelled(T.customer, customerText(input.customer));
  c.doc.moveDown(0.4);

  const lines = actLines(facts);
  const w = c.width;
  c.table(
    [
      { title: T.columns.n, width: 24, align: 'center' },
      { title: T.columns.service, width: w - 24 - 50 - 40 - 80 - 85, align: 'left' },
      { title: T.columns.quantity, width: 50, align: 'right' },
      { title: T.columns.unit, width: 40, align: 'center' },
      { title: T.columns.price, width: 80, align: 'right' },
      { title: T.columns.amount, width: 85, align: 'right' },
    ],
    [T.columns.n, T.columns.service, T.columns.quantity, T.columns.unit, T.columns.price, T.columns.amount],
    lines.map((line, i) => [String(i + 1), line.name, String(line.quantity), line.unit, formatDocumentNumber(line.priceNano), formatDocumentNumber(lineSum(line))]),
  );
  if (lines.length === 0) {
    c.doc.moveDown(0.4);
    c.text(T.noActLines);
  }
  c.totals(lines, s.vatNote, input.currency, { summary: T.actSummary });
  c.doc.moveDown(0.6);
  c.text(T.actNote, { size: 8 });
  c.rule();

  // Both sides: the party, its head's signature line, the place for its stamp.
  c.room(90);
  const top = c.doc.y + 4;
  const half = c.width / 2;
  const side = (x: number, role: string, name: string, director: string) => {
    c.doc
      .font('bold')
      .fontSize(9)
      .text(role.toUpperCase(), x, top, { width: half - 12 });
    c.doc
      .font('regular')
      .fontSize(9)
      .text(name, x, c.doc.y, { width: half - 12 });
    const y = c.doc.y + 16;
    c.signature(T.director, director, x, half - 12, y);
    c.doc
      .font('regular')
      .fontSize(9)
      .text(T.stamp, x + 40, y + 24, { width: half - 52 });
    return c.doc.y;
  };
  const end = Math.max(side(c.left, T.executor, s.companyName, s.directorName), side(c.left + half, T.customer, customerName(input.customer), ''));
  c.doc.x = c.left;
  c.doc.y = end;
  return c.finish();
}
