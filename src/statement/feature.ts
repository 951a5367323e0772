// The statement and closing documents as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createStatementApi, statementSlot } from './api';
import { adminRequisitesRouter, statementRouter, supportRouter } from './router';

export const statementFeature = defineFeature({
  slot: statementSlot,
  create: createStatementApi,
  routers: { statement: statementRouter, support: supportRouter, adminRequisites: adminRequisitesRouter },
});
