// Bank transfer as it plugs into the composition (src/features.ts): the operator's счета and the 1C bank
// statements. After the statement (whose счета it settles) and the top-ups (whose credit it uses).
import { defineFeature } from '../platform/feature';
import { bankSlot, createBankApi } from './api';
import { adminInvoicesRouter, bankPaymentsRouter } from './router';
import { bankStatementUploadRoute } from './statement-upload.route';

export const bankStatementsFeature = defineFeature({
  slot: bankSlot,
  create: createBankApi,
  start({ bank }, { lifecycle }) {
    bank.start();
    lifecycle.onShutdown('invoice expiry', () => bank.stop());
  },
  routers: { adminInvoices: adminInvoicesRouter, bankPayments: bankPaymentsRouter },
  rawRoutes: [bankStatementUploadRoute],
});
