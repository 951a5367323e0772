// Error logs carry codes and ids, never a statement's parameters: Drizzle puts every parameter (e-mails, key
// hashes, webhook payloads, whole usage batches) into its error message, and the logger must drop them.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { users } from '../src/db/schema';
import { createLogger } from '../src/logger';
import { registerUser, startTestApp, type TestApp } from './helpers/app';

setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

test('a failed query is logged with its code and its statement’s opening, not its parameters', async () => {
  const { email } = await registerUser(app.url);
  const secretHash = 'argon2-hash-that-must-not-be-logged';
  const error = await app.instance.services.db
    .insert(users)
    .values({ email, passwordHash: secretHash })
    .then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  expect(String((error as Error).message)).toContain(email); // what Drizzle would have put in the log

  const lines: string[] = [];
  createLogger('error', {}, (line) => lines.push(line)).error('registration failed', { error });
  const line = lines.join('\n');
  expect(line).not.toContain(email);
  expect(line).not.toContain(secretHash);
  const logged = JSON.parse(lines[0]!).error;
  expect(logged.code).toBe('23505');
  expect(logged.statement).toContain('insert into "users"');
});
