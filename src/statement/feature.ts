// The statement and closing documents as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createStatementApi, statementSlot } from './api';
import { closingDocumentRoute, invoiceDocumentRoute, statementExportRoute } from './exports.route';
import { adminRequisitesRouter, invoicesRouter, statementRouter, supportRouter } from './router';

export const statementFeature = defineFeature({
  slot: statementSlot,
  create: createStatementApi,
  rawRoutes: [statementExportRoute, closingDocumentRoute, invoiceDocumentRoute],
  routers: { statement: statementRouter, invoices: invoicesRouter, support: supportRouter, adminRequisites: adminRequisitesRouter },
});
