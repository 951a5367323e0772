// The service container: built once at start-up from config and the database, handed to every route.
import { createAccountService } from './accounts/service';
import { createAuthenticator } from './auth/authenticate';
import { createJwtService } from './auth/jwt';
import type { Config } from './config';
import type { DatabaseHandle } from './db/client';
import { createKeyService } from './keys/service';
import { createLifecycle } from './lifecycle';
import type { Logger } from './logger';

export interface ServicesInput {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
}

export function createServices({ config, database, logger }: ServicesInput) {
  const db = database.db;
  const lifecycle = createLifecycle(logger);
  const jwt = createJwtService(config.jwtSecret);
  const accounts = createAccountService({ db, jwt, config });
  const keys = createKeyService({ db, config });
  const authenticator = createAuthenticator(accounts, { resolve: (presented) => keys.lookup(presented) });
  return { config, logger, lifecycle, database, db, jwt, accounts, keys, authenticator };
}

export type Services = ReturnType<typeof createServices>;
