// Error logs carry codes and ids, never a statement's parameters: Drizzle puts every parameter (e-mails, key
// hashes, webhook payloads, whole usage batches) into its error message, and the logger must drop them.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { users } from '../../src/accounts/tables';
import { createLogger } from '../../src/logger';
import { registerUser, startTestApp, type TestApp } from '../helpers/app';

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
    .then(
      () => null,
      (e: unknown) => e,
    );
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

// Issue 28: wherever a database error travels, its statement's parameters stay out of the log line.
const AGENT_ID = 'agent-7d1c0a42-secret-param';
const BAD_DAY = '0000-12-02';

/** The drizzle error and the driver's own error of one failing statement with two parameters. */
async function failingStatement(): Promise<{ drizzle: Error; driver: Error }> {
  const drizzle = await app.instance.services.db.execute(sql`select ${BAD_DAY}::date as day, ${AGENT_ID}::text as agent`).then(
    () => null,
    (e: unknown) => e as Error,
  );
  const driver = await app.instance.services.database.query('select $1::date as day, $2::text as agent', [BAD_DAY, AGENT_ID]).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(drizzle).toBeInstanceOf(Error);
  expect(driver).toBeInstanceOf(Error);
  return { drizzle: drizzle!, driver: driver! };
}

function logged(fields: Record<string, unknown>): string {
  const lines: string[] = [];
  createLogger('error', {}, (line) => lines.push(line)).error('something failed', fields);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

test("no SQL parameter reaches a log line: a wrapped error, a passed-on message, a nested error, the driver's own error", async () => {
  const { drizzle, driver } = await failingStatement();
  expect(drizzle.message).toContain(AGENT_ID); // what each shape below used to put in the log
  const shapes: Record<string, unknown>[] = [
    { error: drizzle },
    { error: new Error('booking sync failed', { cause: drizzle }) },
    { error: new Error(`job failed: ${drizzle.message}`) },
    { error: drizzle.message },
    { details: { attempts: [drizzle] } },
    { error: driver },
    { details: { error: driver } },
  ];
  for (const fields of shapes) {
    const line = logged(fields);
    expect(line).not.toContain(AGENT_ID);
    expect(line).not.toContain(BAD_DAY);
    expect(line).not.toContain('params');
  }
  // What is kept still tells what failed: the database's code and the statement's opening.
  const direct = JSON.parse(logged({ error: driver })).error;
  expect(direct.code).toBe('22008');
  expect(direct.message).toContain('out of range');
  const wrapped = JSON.parse(logged({ error: new Error('booking sync failed', { cause: drizzle }) })).error;
  expect(wrapped.message).toBe('booking sync failed');
  expect(wrapped.cause).toMatchObject({ code: '22008', statement: expect.stringContaining('select $1::date') });
  const passedOn = JSON.parse(logged({ error: drizzle.message })).error as string;
  expect(passedOn).toContain('select $1::date');
});
