// The statement and closing documents as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createStatementApi, statementSlot } from './api';
import { adminDocumentsRegistryRoute, adminDocumentsZipRoute, closingPdfRoute } from './closing-routes.route';
import { adminDocumentsRouter } from './closing-router';
import { closingDocumentRoute, invoiceDocumentRoute, statementExportRoute } from './exports.route';
import { adminRequisitesRouter, invoicesRouter, statementRouter, supportRouter } from './router';

export const statementFeature = defineFeature({
  slot: statementSlot,
  create: createStatementApi,
  start({ statement }, { lifecycle }) {
    statement.closingJob.start();
    lifecycle.onShutdown('closing documents', () => statement.closingJob.stop());
  },
  rawRoutes: [statementExportRoute, closingDocumentRoute, invoiceDocumentRoute, closingPdfRoute, adminDocumentsZipRoute, adminDocumentsRegistryRoute],
  routers: {
    statement: statementRouter,
    invoices: invoicesRouter,
    support: supportRouter,
    adminRequisites: adminRequisitesRouter,
    adminDocuments: adminDocumentsRouter,
  },
});
