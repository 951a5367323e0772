// The statement of account and the monthly closing documents, built once for the service container.
import { eq } from 'drizzle-orm';
import type { DatabaseHandle } from '../db/client';
import { users } from '../accounts/tables';
import { createDocuments } from './documents';
import { createInvoices } from './invoices';
import { createRenderQueue, PDF_RENDERS_AT_ONCE } from './render-queue';
import { createRequisites } from './requisites';
import { createStatements } from './statement';

/** The statement's parts; its HTTP routes (routes.ts) are put on top of them by the composition root. */
export function createStatementModule(deps: { database: DatabaseHandle /** PDF_QUEUE_MAX_WAITING. */; pdfQueueMaxWaiting: number }) {
  const db = deps.database.db;
  return {
    statements: createStatements(db),
    documents: createDocuments(db),
    invoices: createInvoices(db),
    requisites: createRequisites(db),
    /** Builds the PDFs a few at a time, with at most PDF_QUEUE_MAX_WAITING waiting (render-queue.ts). */
    renderQueue: createRenderQueue(PDF_RENDERS_AT_ONCE, deps.pdfQueueMaxWaiting),
    async userEmail(userId: string): Promise<string> {
      const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
      return row?.email ?? '';
    },
  };
}

export type StatementModule = ReturnType<typeof createStatementModule>;
