// The development secrets kept in DATA_DIR: made once when JWT_SECRET and ENCRYPTION_KEY are unset outside
// production, so `npm start` needs no configuration and a restart keeps the sessions and sealed secrets valid.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

interface DevSecrets {
  jwtSecret: string;
  encryptionKey: string;
}

/** Reads (or creates once, mode 0600) the development secrets kept in DATA_DIR. */
export function loadDevSecrets(dataDir: string, warnings: string[]): DevSecrets {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<DevSecrets>;
    if (typeof parsed.jwtSecret === 'string' && typeof parsed.encryptionKey === 'string') {
      return { jwtSecret: parsed.jwtSecret, encryptionKey: parsed.encryptionKey };
    }
  }
  // Only this user may enter it: it holds these secrets and the embedded database (see db/client.ts).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets: DevSecrets = {
    jwtSecret: randomBytes(48).toString('base64url'),
    encryptionKey: randomBytes(32).toString('hex'),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  warnings.push(`JWT_SECRET/ENCRYPTION_KEY are not set: generated development secrets into ${file}; set both in production`);
  return secrets;
}
