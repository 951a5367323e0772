// The operator side of the service, assembled once from the container's parts.
import type { Config } from '../config';
import type { Database } from '../db/client';
import type { Billing } from '../gateway/billing';
import type { ModelCatalog } from '../gateway/models';
import type { PriceBook } from '../pricing/prices';
import { createAuditLog } from './audit';
import { createAdminPrices } from './prices';
import { createAdminStats } from './stats';
import { createAdminUsers } from './users';

export interface AdminServiceDeps {
  db: Database;
  billing: Billing;
  prices: PriceBook;
  models: ModelCatalog;
  config: Pick<Config, 'balanceCurrency'>;
}

export function createAdminService({ db, billing, prices, models, config }: AdminServiceDeps) {
  return {
    users: createAdminUsers({ db, billing, config }),
    stats: createAdminStats({ db, billing }),
    prices: createAdminPrices({ db, prices, models }),
    audit: createAuditLog(db),
  };
}

export type AdminService = ReturnType<typeof createAdminService>;
