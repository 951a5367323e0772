// The statement of account and the monthly closing documents (CSV, PDF).
import { authSlot } from '../auth';
import { gatewaySlot } from '../gateway';
import { type Base, defineSlot, type Use } from '../platform/feature';
import { createStatementModule } from './module';
import { createStatementRoutes } from './exports';

export function createStatementApi({ database, config }: Base, use: Use) {
  const { billing } = use(gatewaySlot);
  const parts = createStatementModule({ database, pdfQueueMaxWaiting: config.pdfQueueMaxWaiting });
  const statement = {
    ...parts,
    routes: createStatementRoutes({
      ...parts,
      database,
      authenticator: use(authSlot).authenticator,
      flush: () => billing.flush(),
      currency: config.balanceCurrency,
      supportContact: config.supportContact,
    }),
  };
  return { statement, billing };
}

export type StatementApi = ReturnType<typeof createStatementApi>;
export const statementSlot = defineSlot<StatementApi>('statement');
