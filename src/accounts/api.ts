// The accounts feature's API: sign-up, login, sessions, two-factor, e-mail change and the notices they
// mail; built from the base alone.
import { createJwtService } from './jwt';
import { createMailer } from '../mail/mailer';
import { type Base, defineSlot } from '../platform/feature';
import { createPeriodicJob } from '../jobs/periodic';
import { userKeysRevoked } from '../keys';
import { createEmailChange } from './email-change';
import { createSecurityNotices } from './security-notices';
import { createSessions } from './sessions';
import { createAccountService } from './service';
import { createThrottle } from './throttle';
import { createTokenUserCache, endSessions } from './token-users';
import { createTwoFactor } from './two-factor';
import { accountRegistered } from './events';

export function createAccountsApi({ config, database, db, logger, events, secretBox }: Base) {
  const jwt = createJwtService(config.jwtSecret);
  const tokenUsers = createTokenUserCache({ database, logger });
  const securityNotices = createSecurityNotices({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    logger,
    publicBaseUrl: config.publicBaseUrl,
    lockoutSeconds: config.totpLockoutSeconds,
  });
  const sessions = createSessions({ db, forget: (userId) => tokenUsers.forget(userId) });
  const twoFactor = createTwoFactor({
    db,
    box: secretBox,
    throttle: createThrottle(db),
    lock: { maxFailures: config.totpMaxFailures, lockoutSeconds: config.totpLockoutSeconds },
    notices: securityNotices,
    adminEmails: config.adminEmails,
  });
  const accounts = createAccountService({
    db,
    jwt,
    logger,
    tokenUsers,
    sessions,
    twoFactor,
    notices: securityNotices,
    keysRevoked: (userId) => events.emit(userKeysRevoked, userId),
    registered: (event) => events.emitAndWait(accountRegistered, event),
    config,
  });
  const emailChange = createEmailChange({
    db,
    mailer: config.smtp ? createMailer(config.smtp) : null,
    throttle: createThrottle(db),
    logger,
    publicBaseUrl: config.publicBaseUrl,
    hideTakenAddresses: config.requireEmailVerification,
    bonusNano: config.registrationBonusNano,
    endSessions,
    afterRevert: (userId) => tokenUsers.forget(userId),
  });
  // Expired e-mail change links are refused anyway; the sweep keeps the table small.
  const emailChangeSweep = createPeriodicJob({ name: 'e-mail change link sweep', intervalMs: 10 * 60_000, run: () => emailChange.pruneExpired(), logger });
  return { jwt, tokenUsers, sessions, securityNotices, twoFactor, accounts, emailChange, emailChangeSweep };
}

export type AccountsApi = ReturnType<typeof createAccountsApi>;
export const accountsSlot = defineSlot<AccountsApi>('accounts');
