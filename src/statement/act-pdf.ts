// The акт of a month's services as a PDF, drawn from an issued document's frozen facts alone (closing_documents):
// «Акт № N от <date>», the period (Moscow days), both parties with their full requisites (ИНН/КПП, address, ОГРН,
// bank details when known), the table (№, service, quantity, unit, price, sum), Итого, the НДС line, the count
// and sum of services, the amount in words, the acceptance sentence, and both sides' signature lines.
import { formatDocumentDate, formatDocumentDay, formatDocumentNumber, formatDocumentAmount } from './amounts';
import type { ClosingCustomer, ClosingFacts, ClosingSupplier } from './closing-documents';
import { customerName, type DocumentLine, startDocument } from './pdf';
import { closingTexts as C, documentTexts as T, monthTitle } from './texts';

/** A party's requisites in one paragraph: name, ИНН, КПП, address, ОГРН, bank details — whatever is known. */
export function partyText(p: ClosingSupplier | ClosingCustomer, email = ''): string {
  const bank = C.bankDetails(p.account, p.bankName, p.bik, p.correspondentAccount);
  return [p.companyName, p.inn ? `ИНН ${p.inn}` : '', p.kpp ? `КПП ${p.kpp}` : '', p.address, p.ogrn ? `${C.ogrn} ${p.ogrn}` : '', bank, email]
    .filter(Boolean)
    .join(', ');
}

/** The customer as printed: a company with its requisites, or the account's owner named by e-mail. */
export function customerParty(c: ClosingCustomer): { name: string; text: string } {
  const name = customerName({ ...c, email: c.email });
  if (!c.companyName) return { name, text: name };
  return { name, text: partyText(c, c.email ? `${T.email} ${c.email.replace(/-/g, '\u2011')}` : '') };
}

/** «В том числе НДС 20%: 166,67»; without НДС the operator's own words («Без НДС (УСН)»), else «Без НДС». */
export const vatText = (facts: Pick<ClosingFacts, 'vatRate' | 'vatNano' | 'supplier'>) =>
  facts.vatRate === null ? facts.supplier.vatNote || C.noVat : C.vatLine(facts.vatRate, formatDocumentNumber(BigInt(facts.vatNano)));

export const linesOf = (facts: ClosingFacts): DocumentLine[] =>
  facts.lines.map((l) => ({ name: l.name, quantity: 1, unit: T.serviceUnit, priceNano: BigInt(l.amountNano) }));

/** Renders an issued акт; resolves to the PDF's bytes. */
export async function renderAct(facts: ClosingFacts): Promise<Buffer> {
  const date = formatDocumentDate(facts.date);
  const title = C.actTitle(facts.number, date);
  const s = facts.supplier;
  const c = await startDocument(title, s.companyName);

  c.text(title, { size: 14, bold: true });
  c.text(T.actSubtitle(monthTitle(facts.month)), { size: 10 });
  c.text(T.period(formatDocumentDay(facts.from), formatDocumentDay(facts.to)));
  if (facts.corrects) {
    c.text(C.correctionOf(C.kinds[facts.corrects.kind] ?? '', facts.corrects.number, formatDocumentDay(facts.corrects.date)), { bold: true });
  }
  c.rule();
  c.labelled(T.executor, partyText(s));
  const customer = customerParty(facts.customer);
  c.labelled(T.customer, customer.text);
  c.doc.moveDown(0.4);

  const lines = linesOf(facts);
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
    lines.map((line, i) => [String(i + 1), line.name, String(line.quantity), line.unit, formatDocumentNumber(line.priceNano), formatDocumentNumber(line.priceNano)]),
  );
  c.totals(lines, vatText(facts), facts.currency, { summary: T.actSummary });
  c.doc.moveDown(0.6);
  c.text(C.actNote, { size: 8 });
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
  const end = Math.max(side(c.left, T.executor, s.companyName, s.directorName), side(c.left + half, T.customer, customer.name, ''));
  c.doc.x = c.left;
  c.doc.y = end;
  return c.finish();
}

/** «1 234,50 ₽». */
export const amountText = (facts: ClosingFacts) => formatDocumentAmount(BigInt(facts.amountNano), facts.currency);
