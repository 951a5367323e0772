// The accounts feature as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { accountSecurityRouter } from './security-router';
import { authRouter } from './auth-router';
import { emailChangeRouter } from './email-change-router';
import { twoFactorRouter } from './two-factor-router';
import { sessionsRouter } from './sessions-router';
import { accountsSlot, createAccountsApi } from './api';
import { mailedLinkPageRoutes } from './mailed-links.route';

export const accountsFeature = defineFeature({
  slot: accountsSlot,
  create: createAccountsApi,
  async start({ accounts, securityNotices, tokenUsers, emailChange, emailChangeSweep }, { lifecycle }) {
    accounts.start();
    lifecycle.onShutdown('accounts', () => accounts.stop());
    lifecycle.onShutdown('security notices', () => securityNotices.stop());
    await tokenUsers.start();
    lifecycle.onShutdown('token user cache', () => tokenUsers.stop());
    emailChangeSweep.start();
    lifecycle.onShutdown('e-mail change', async () => {
      await emailChangeSweep.stop();
      emailChange.stop();
    });
  },
  rawRoutes: mailedLinkPageRoutes,
  routers: { auth: authRouter, accountSecurity: accountSecurityRouter, twoFactor: twoFactorRouter, emailChange: emailChangeRouter, sessions: sessionsRouter },
});
