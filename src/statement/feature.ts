// The statement and closing documents as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createStatementApi, statementSlot } from './api';
import { closingDocumentRoute, statementExportRoute } from './exports.route';
import { adminRequisitesRouter, statementRouter, supportRouter } from './router';

export const statementFeature = defineFeature({
  slot: statementSlot,
  create: createStatementApi,
  rawRoutes: [statementExportRoute, closingDocumentRoute],
  routers: { statement: statementRouter, support: supportRouter, adminRequisites: adminRequisitesRouter },
});
