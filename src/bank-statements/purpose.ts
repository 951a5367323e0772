// The счёт numbers a payment purpose names. The счёт prints «Оплата по счёту № 42 от 29.11.2026 …», but an
// accountant types what they type: «по счету №42», «сч. 42», «сч.42», «Счет N 42 от …», «счёт на оплату № 42»,
// «по сч № 42». Pure.

/**
 * «сч», «сч.», «счет», «счёт», «счета», «счету», «счёту», «счетом» — then optionally «на оплату», then a number
 * sign (№, N, No, #) or none, then the digits. Not «р/сч 40702…» (a settlement account: too many digits) nor
 * «счет-фактура» (the hyphen stops it). The number is at most 9 digits and must not run on into more digits
 * («2026-11/0042», «42.5»: not a счёт's plain number).
 */
const INVOICE_REFERENCE = /(?<![\p{L}/])сч(?:[её]т(?:а|у|ом|е)?)?\.?\s*(?:на\s+оплату\s*)?(?:№|N(?:o|о)?\.?|#)?\s*№?\s*(\d{1,9})(?!\d|[-/.]\d)/giu;

/** Every счёт number the purpose names, in order, without repeats. */
export function invoiceNumbersIn(purpose: string): number[] {
  const found: number[] = [];
  for (const m of purpose.matchAll(INVOICE_REFERENCE)) {
    const n = Number(m[1]);
    if (n > 0 && !found.includes(n)) found.push(n);
  }
  return found;
}
