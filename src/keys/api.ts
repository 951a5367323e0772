// The keys feature's API: the dashboard's key records and the /v1 hot path's cached verifier of them.
import { userKeysRevoked } from '../accounts/api';
import { defineEvent } from '../platform/events';
import { type Base, defineSlot } from '../platform/feature';
import { createKeyService } from './service';
import { createKeyVerifier } from './verifier';

/** A key was revoked here: caches of it must drop it before the database's notice arrives. */
export const keyRevoked = defineEvent<string>('keys.revoked');
/** A key's limits changed (here or on another instance): claims on the old limit are void. */
export const keyChanged = defineEvent<string>('keys.changed');

export function createKeysApi({ config, database, db, logger, events }: Base) {
  const keys = createKeyService({ db, config, onRevoked: (keyId) => events.emit(keyRevoked, keyId) });
  const verifier = createKeyVerifier({ database, keys, logger, onKeyChanged: (keyId) => events.emit(keyChanged, keyId) });
  events.on(keyRevoked, (keyId) => verifier.invalidate(keyId));
  events.on(userKeysRevoked, (userId) => verifier.invalidateUser(userId));
  return { keys, verifier };
}

export type KeysApi = ReturnType<typeof createKeysApi>;
export const keysSlot = defineSlot<KeysApi>('keys');
