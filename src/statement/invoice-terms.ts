// What a счёт says besides its figures, computed the same way for its PDF, the dashboard and the matching of
// transfers: the НДС included in the amount, and the payment purpose the buyer is asked to copy.
import { SERVICE_NAME } from '../service-info';
import { formatDocumentDay, formatDocumentNumber, roundToKopecks } from './amounts';
import type { Invoice } from './invoices';
import { moscowDay } from './moscow';
import { documentTexts as T } from './texts';

/**
 * НДС included in `totalNano` at `rate` percent, in nano-units of whole kopecks: total × rate / (100 + rate),
 * rounded half up to the kopeck, as Russian accounting programs compute «в том числе НДС».
 */
export function includedVatNano(totalNano: bigint, rate: number): bigint {
  const kopecks = roundToKopecks(totalNano);
  const r = BigInt(rate);
  const vat = (kopecks * r * 2n + (100n + r)) / (2n * (100n + r));
  return vat * 10_000_000n;
}

/** The VAT lines under «Итого»: «В том числе НДС 22%: 222,62» or «Без НДС», and the operator's note when it adds something. */
export function vatLines(invoice: Pick<Invoice, 'amountNano' | 'supplier'>): string[] {
  const { vatRate, vatNote } = invoice.supplier;
  // «Без НДС (УСН)» from the operator already says «Без НДС»: one line, not two.
  if (vatRate === null) return vatNote.startsWith(T.noVat) ? [vatNote] : [T.noVat, ...(vatNote ? [vatNote] : [])];
  return [T.vatIncluded(vatRate, formatDocumentNumber(includedVatNano(invoice.amountNano, vatRate))), ...(vatNote ? [vatNote] : [])];
}

/**
 * The payment purpose the buyer copies into the transfer: «Оплата по счёту № 42 от 29.11.2026 за доступ к API
 * Conduit. Без НДС». The number is the plain integer the счёт is titled with, so a bank's purpose field read back
 * (bank-statements/match.ts) finds it in any of the spellings an accountant types.
 */
export function paymentPurpose(invoice: Pick<Invoice, 'number' | 'createdAt' | 'amountNano' | 'supplier'>): string {
  const { vatRate } = invoice.supplier;
  const vat = vatRate === null ? T.purposeNoVat : T.purposeVat(vatRate, formatDocumentNumber(includedVatNano(invoice.amountNano, vatRate)));
  return T.purpose(invoice.number, formatDocumentDay(moscowDay(invoice.createdAt)), SERVICE_NAME, vat);
}
