// The bank-statements feature's way in for other features: what they may use of it. Anything not exported here
// is the feature's own.
export { bankSlot, INVOICE_EXPIRY_LOCK } from './api';
