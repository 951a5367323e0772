// What every part of billing is handed: createBilling's options resolved to their defaults once, and the
// helpers for the short transactions and database values they all use.
import type { Database, DatabaseHandle } from '../../db/client';
import { isTransientDatabaseError } from '../../db/transient';
import { AppError } from '../../http/errors';
import { gatewayMessages } from '../texts';
import type { Logger } from '../../logger';
import type { BillingObserver, BillingOptions } from './types';

export interface BillingContext {
  db: Database;
  query: DatabaseHandle['query'];
  config: BillingOptions['config'];
  logger: Logger;
  instanceId: string;
  observer: BillingObserver | undefined;
  currency: string;
  idleReturnMs: number;
  leaseTtlSeconds: number;
  maxBatch: number;
  statementRows: number;
  maxPending: number;
  admissionWaitMs: number;
}

export function billingContext(options: BillingOptions): BillingContext {
  const maxBatch = options.maxBatch ?? 5_000;
  return {
    db: options.db,
    query: options.query,
    config: options.config,
    logger: options.logger,
    instanceId: options.instanceId,
    observer: options.observer,
    currency: options.config.balanceCurrency ?? 'RUB',
    idleReturnMs: options.idleReturnMs ?? 2_000,
    leaseTtlSeconds: options.leaseTtlSeconds ?? 120,
    maxBatch,
    statementRows: Math.max(1, Math.min(options.statementRows ?? maxBatch, maxBatch)),
    maxPending: Math.max(options.maxPending ?? 2 * maxBatch, 1),
    admissionWaitMs: options.admissionWaitMs ?? 10_000,
  };
}

export const toBigInt = (v: unknown) => (typeof v === 'bigint' ? v : BigInt(v as string | number));
export const minBig = (a: bigint, b: bigint) => (a < b ? a : b);

/** Runs a short transaction, again on a transient failure; then 503 with Retry-After. */
export async function withRetry<T>(logger: Logger, what: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isTransientDatabaseError(error)) throw error;
      if (attempt >= 3) {
        logger.error(`${what} failed on a transient database error; answering 503`, { error, attempts: attempt });
        throw new AppError('service_unavailable', gatewayMessages.billingUnavailable, { headers: { 'retry-after': '1' } });
      }
      logger.warn(`${what} hit a transient database error; retrying`, { error, attempt });
      await Bun.sleep(5 * attempt + Math.random() * 20);
    }
  }
}
