// The booking integration assembled from its parts: one YCLIENTS client per partner token, the shared
// cache, the settings, the service that reads and books, and the background sync.
import type { Config } from '../../config';
import type { SecretBox } from '../../crypto/secret-box';
import type { Database, DatabaseHandle } from '../../db/client';
import type { Logger } from '../../logger';
import { createAttendanceSync } from './attendance';
import { createBookingCache } from './cache';
import { createYclientsClient } from './client';
import { createYclientsLimiter } from './limiter';
import { createBookingService } from './service';
import { createBookingSettings } from './settings';
import { createBookingSync } from './sync';

/** The spec's administrator token cache. */
const USER_TOKEN_TTL_SECONDS = 55 * 60;

export function createBooking(deps: {
  db: Database;
  database: DatabaseHandle;
  config: Pick<Config, 'yclientsBaseUrl' | 'bookingSyncIntervalSeconds' | 'yclientsRatePerSecond' | 'yclientsRatePerMinute' | 'yclientsTimeZone'>;
  logger: Logger;
  box: SecretBox;
}) {
  const { db, database, config, logger, box } = deps;
  // One gate for all of this process's YCLIENTS calls, whichever agent or job makes them.
  const limiter = createYclientsLimiter({ perSecond: config.yclientsRatePerSecond, perMinute: config.yclientsRatePerMinute });
  const clientFor = (partnerToken: string) => createYclientsClient({ baseUrl: config.yclientsBaseUrl, partnerToken, limiter });
  const cache = createBookingCache(db);
  const settings = createBookingSettings({ db, box, cache, clientFor, userTokenTtlSeconds: USER_TOKEN_TTL_SECONDS });
  const service = createBookingService({
    db,
    box,
    cache,
    settings,
    clientFor,
    logger,
    userTokenTtlSeconds: USER_TOKEN_TTL_SECONDS,
    defaultTimeZone: config.yclientsTimeZone,
  });
  const sync = createBookingSync({
    database,
    settings,
    service,
    cache,
    logger,
    intervalMs: config.bookingSyncIntervalSeconds * 1000,
    limiter,
  });
  // After the visit: what YCLIENTS says of each past visit (attendance), polled by the social feature's job.
  const attendance = createAttendanceSync({ db, service, limiter, logger });
  return { cache, settings, service, sync, attendance };
}

export type Booking = ReturnType<typeof createBooking>;
