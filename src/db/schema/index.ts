// The tables, one file per concern, all re-exported here, so `from '../db/schema'` reaches every one of them
// (drizzle-kit reads this folder: drizzle.config.ts). Money columns are bigint nano-units (1e-9 of the currency).
export * from './users';
export * from './ledger';
export * from './keys';
export * from './usage';
export * from './providers';
export * from './admin';
export * from './gateway';
export * from './alerts';
export * from './agents';
export * from './jobs';
export * from './dialogues';
export * from './integrations';
export * from './commerce';
export * from './knowledge';
export * from './statement';
