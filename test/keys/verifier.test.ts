// The key cache and a revocation that arrives while a lookup is in flight: the lookup read the key as
// active before the revocation committed, and must not leave it cached as active afterwards.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { createLogger } from '../../src/logger';
import { createKeyService } from '../../src/keys/service';
import { createKeyVerifier } from '../../src/keys/verifier';
import { createApiKey, registerUser, startTestApp, type TestApp } from '../helpers/app';

setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

test('a key revoked while its lookup is in flight is not cached as active', async () => {
  const services = app.instance.services;
  const real = createKeyService({ db: services.db, config: services.config });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = true;
  // The real lookup, held back after reading the row: the revocation lands in between.
  const keys = {
    findByHash: async (hash: string) => {
      const row = await real.findByHash(hash);
      if (held) await gate;
      return row;
    },
    recordLastUsed: real.recordLastUsed,
  };
  const verifier = createKeyVerifier({ database: services.database, keys, logger: createLogger('silent') });

  const user = await registerUser(app.url);
  const { key, id } = await createApiKey(app.url, user.token);
  const first = verifier.resolve(key);
  await Bun.sleep(50);
  await real.revoke(user.userId, id);
  verifier.invalidate(id); // what the revoking instance's onRevoked / the NOTIFY listener does
  held = false;
  release();
  await first;
  const after = await verifier.resolve(key);
  expect(after?.isActive).toBe(false);
});
