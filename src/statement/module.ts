// The statement of account and the monthly closing documents, built once for the service container.
import { eq } from 'drizzle-orm';
import type { Authenticator } from '../auth/authenticate';
import type { Config } from '../config';
import type { DatabaseHandle } from '../db/client';
import { users } from '../db/schema';
import { createDocuments } from './documents';
import { createRequisites } from './requisites';
import { createStatementRoutes } from './routes';
import { createStatements } from './statement';

export function createStatementModule(deps: {
  database: DatabaseHandle;
  authenticator: Authenticator;
  config: Pick<Config, 'balanceCurrency' | 'supportContact'>;
  flush(): Promise<void>;
}) {
  const db = deps.database.db;
  const statements = createStatements(db);
  const documents = createDocuments(db);
  const requisites = createRequisites(db);
  const routes = createStatementRoutes({
    database: deps.database,
    authenticator: deps.authenticator,
    statements,
    documents,
    requisites,
    flush: deps.flush,
    currency: deps.config.balanceCurrency,
    supportContact: deps.config.supportContact,
    async userEmail(userId) {
      const [row] = await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
      return row?.email ?? '';
    },
  });
  return { statements, documents, requisites, routes };
}

export type StatementModule = ReturnType<typeof createStatementModule>;
