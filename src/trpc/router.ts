import { adminRouter } from '../admin/router';
import { billingRouter } from '../billing/router';
import { assistantRouter } from '../assistant/router';
import { commerceRouter } from '../commerce/router';
import { knowledgeRouter } from '../knowledge/router';
import { dialoguesRouter } from '../dialogues/router';
import { bookingRouter } from '../integrations/booking/router';
import { messengerRouter } from '../integrations/messenger/router';
import { socialRouter } from '../integrations/social/router';
import { router } from './init';
import { accountRouter } from './routers/account';
import { accountSecurityRouter } from './routers/account-security';
import { agentsRouter } from './routers/agents';
import { alertsRouter } from './routers/alerts';
import { authRouter } from './routers/auth';
import { keysRouter } from './routers/keys';
import { twoFactorRouter } from './routers/two-factor';
import { emailChangeRouter } from './routers/email-change';
import { adminRequisitesRouter, statementRouter, supportRouter } from '../statement/router';

export const appRouter = router({
  auth: authRouter,
  accountSecurity: accountSecurityRouter,
  twoFactor: twoFactorRouter,
  emailChange: emailChangeRouter,
  keys: keysRouter,
  account: accountRouter,
  alerts: alertsRouter,
  agents: agentsRouter,
  messenger: messengerRouter,
  social: socialRouter,
  booking: bookingRouter,
  commerce: commerceRouter,
  knowledge: knowledgeRouter,
  assistant: assistantRouter,
  dialogues: dialoguesRouter,
  billing: billingRouter,
  admin: adminRouter,
  statement: statementRouter,
  support: supportRouter,
  adminRequisites: adminRequisitesRouter,
});

/** The typed client's view of the dashboard API. */
export type AppRouter = typeof appRouter;
