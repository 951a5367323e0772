// The keys feature's API: the dashboard's key records and the /v1 hot path's cached verifier of them.
import { type Base, defineSlot } from '../platform/feature';
import { keyChanged, keyRevoked, userKeysRevoked } from './events';
import { createKeyService } from './service';
import { createKeyVerifier } from './verifier';

export function createKeysApi({ config, database, db, logger, events }: Base) {
  const keys = createKeyService({ db, config, onRevoked: (keyId) => events.emit(keyRevoked, keyId) });
  const verifier = createKeyVerifier({ database, keys, logger, onKeyChanged: (keyId) => events.emit(keyChanged, keyId) });
  events.on(keyRevoked, (keyId) => verifier.invalidate(keyId));
  events.on(userKeysRevoked, (userId) => verifier.invalidateUser(userId));
  return { keys, verifier };
}

export type KeysApi = ReturnType<typeof createKeysApi>;
export const keysSlot = defineSlot<KeysApi>('keys');
