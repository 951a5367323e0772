// Bank transfer: the operator's счета (list, mark paid, cancel, the expiry job) and the 1C bank statements
// (import, confirm, unmatched payments), built once for the composition.
import { authSlot } from '../auth';
import { createPeriodicJob } from '../jobs/periodic';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createInvoiceAdmin } from './invoice-admin';
import { createBankPayments } from './payments';

/** The advisory lock the expiry job runs under: one instance at a time cancels. */
export const INVOICE_EXPIRY_LOCK = 'conduit.invoices.expiry';

export function createBankApi({ db, database, config, logger, outbox }: Base, use: Use) {
  const invoiceAdmin = createInvoiceAdmin(db, config);
  const payments = createBankPayments(db, config);
  const expiry = createPeriodicJob({
    name: 'invoice expiry',
    intervalMs: Math.max(1, config.invoiceExpirySeconds) * 1000,
    logger,
    run: async () => {
      const outcome = await database.withLock(INVOICE_EXPIRY_LOCK, () => invoiceAdmin.expire());
      if (outcome.acquired && outcome.value > 0) logger.info('pending invoices past their date cancelled', { count: outcome.value });
    },
  });
  const bank = {
    invoiceAdmin,
    payments,
    /** The payment notices leave at once, not at the outbox's next poll. */
    wakeOutbox: () => outbox.wake(),
    start() {
      if (config.invoiceExpirySeconds > 0) expiry.start();
    },
    stop: () => expiry.stop(),
  };
  return { bank, authenticator: use(authSlot).authenticator };
}

export type BankApi = ReturnType<typeof createBankApi>;
export const bankSlot = defineSlot<BankApi>('bank');
