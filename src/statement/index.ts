// The statement feature's way in for other features: what they may use of it (bank-statements/ reads and
// settles счета, renders their view). Anything not exported here is the feature's own.
export { invoiceFromRow, effectiveStatus, lastValidDay, INVOICE_STATUSES, type Invoice, type InvoiceRow, type InvoiceStatus } from './invoices';
export { paymentPurpose } from './invoice-terms';
export { formatDocumentDay } from './amounts';
export { moscowDay } from './moscow';
