// The operator side of the service, assembled once from the container's parts.
import type { AccountService } from '../accounts';
import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Billing, ModelCatalog, ProviderProbes, Routing } from '../gateway';
import type { KeyService } from '../keys';
import type { SecretBox } from '../crypto/secret-box';
import type { PriceBook } from '../pricing/prices';
import { createAuditLog } from './audit';
import { createAdminPrices } from './prices';
import { createAdminPriceGroups } from './price-groups';
import { createAdminProviders } from './providers';
import { createAdminStats } from './stats';
import { createAdminUserSessions } from './user-sessions';
import { createAdminUserKeys } from './user-keys';
import { createAdminUsers } from './users';

export interface AdminServiceDeps {
  db: Database;
  billing: Billing;
  prices: PriceBook;
  models: ModelCatalog;
  config: Pick<Config, 'balanceCurrency' | 'upstreamBaseUrl' | 'upstreamApiKey' | 'upstreamTimeoutMs' | 'upstreamProtocol' | 'upstreamBalanceThresholdNano'>;
  routing: Routing;
  probes: ProviderProbes;
  box: Pick<SecretBox, 'seal'>;
  accounts: Pick<AccountService, 'passwordReset' | 'sessionsEnded'>;
  keys: KeyService;
  /** A user's keys changed standing (blocked, moved to another price group): this instance's cache drops them. */
  onUserKeysChanged?: (userId: string) => void;
}

export function createAdminService({ db, billing, prices, models, config, routing, probes, box, accounts, keys, onUserKeysChanged }: AdminServiceDeps) {
  return {
    users: createAdminUsers({ db, billing, config, listKeys: keys.list, onSessionsEnded: accounts.sessionsEnded, onUserKeysChanged }),
    userKeys: createAdminUserKeys({ keys }),
    userSessions: createAdminUserSessions({ db, accounts }),
    stats: createAdminStats({ db, billing }),
    prices: createAdminPrices({ db, prices, models }),
    priceGroups: createAdminPriceGroups({ db, prices, onUserKeysChanged }),
    audit: createAuditLog(db, config.balanceCurrency),
    providers: createAdminProviders({ db, routing, box, billing, probes, config }),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
