// The statement of account and the monthly closing documents (CSV, PDF).
import { authSlot } from '../auth';
import { gatewaySlot } from '../gateway';
import { AppError } from '../http/errors';
import { unitsToNano } from '../money';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createClosingDocuments } from './closing-documents';
import { createClosingJob } from './closing-job';
import { createClosingRoutes } from './closing-routes';
import { createStatementModule } from './module';
import { createStatementRoutes } from './exports';
import { statementMessages } from './texts';

export function createStatementApi({ database, config, logger }: Base, use: Use) {
  const { billing } = use(gatewaySlot);
  const parts = createStatementModule({ database, pdfQueueMaxWaiting: config.pdfQueueMaxWaiting });
  const authenticator = use(authSlot).authenticator;
  const closing = createClosingDocuments({
    db: database.db,
    documents: parts.documents,
    operator: parts.requisites.operator,
    currency: config.balanceCurrency,
    supportContact: config.supportContact,
  });
  const statement = {
    ...parts,
    /** The issued акты and УПД (closing-documents.ts), their monthly issue and their files. */
    closing,
    closingJob: createClosingJob({ database, closing, flush: () => billing.flush(), logger }),
    closingRoutes: createClosingRoutes({ authenticator, closing, renderQueue: parts.renderQueue }),
    /**
     * Issues a счёт на оплату for `amount` (currency units, checked by createInvoiceInput) with both parties'
     * requisites as they are now; 409 while the operator has not set theirs, or the customer has no company name
     * and ИНН (an organisation always has them).
     */
    async issueInvoice(userId: string, amount: number) {
      const supplier = await parts.requisites.operator();
      if (!supplier) throw new AppError('conflict', statementMessages.requisitesMissing(config.supportContact));
      const [customer, email] = await Promise.all([parts.requisites.customerForDocuments(userId), parts.userEmail(userId)]);
      // A счёт names its buyer: an accountant books a transfer against a company and its ИНН, not an e-mail.
      if (!customer.companyName || !customer.inn) throw new AppError('conflict', statementMessages.invoiceRequisitesMissing);
      return parts.invoices.create(userId, {
        amountNano: unitsToNano(amount)!,
        currency: config.balanceCurrency,
        supplier,
        customer: { ...customer, email },
        validDays: config.invoiceValidDays,
      });
    },
    routes: createStatementRoutes({
      ...parts,
      database,
      authenticator,
      flush: () => billing.flush(),
      currency: config.balanceCurrency,
      supportContact: config.supportContact,
    }),
  };
  return { statement, billing };
}

export type StatementApi = ReturnType<typeof createStatementApi>;
export const statementSlot = defineSlot<StatementApi>('statement');
