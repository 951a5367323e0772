// Starts the real app on port 0 against a fresh database, and speaks HTTP to it.
import { grantAdmin as grantAdminRole } from '../../src/accounts/admin-role';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { startInstance, type RunningInstance } from '../../src/server';
import { createTestDatabase, type TestDatabase } from './database';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-at-least-32-bytes-long!';
export const TEST_ENCRYPTION_KEY = '0123456789abcdef'.repeat(4);

export interface TestApp {
  url: string;
  instance: RunningInstance;
  config: Config;
  database: TestDatabase;
  /** Raw SQL against the app's database, for assertions a client cannot make. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Stops the instance; the database stays for a restart unless dropped. */
  stop(): Promise<void>;
  /** Stops the instance and removes its database. */
  close(): Promise<void>;
}

export interface StartTestAppOptions {
  /** Extra environment variables, exactly as an operator would set them. */
  env?: Record<string, string | undefined>;
  /** Reuse a database (a restart, or a second instance on the same PostgreSQL). */
  database?: TestDatabase;
}

export function testConfig(database: TestDatabase, env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.databaseUrl,
    DATA_DIR: database.dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9/v1',
    // Every test registers from 127.0.0.1, far past the production default; the limit's own tests set it.
    REGISTRATION_LIMIT_PER_HOUR: '0',
    // Tests post YooKassa's notifications themselves, from 127.0.0.1; the sender check's own tests
    // (payment-senders.test.ts) pass undefined for YooKassa's published list.
    YOOKASSA_NOTIFICATION_IPS: '127.0.0.1,::1',
    // Each client message answered at once, as before bursts were gathered: tests that send a message and
    // wait for its answer stay as fast as they were. The burst tests (chat-patterns.test.ts) set it.
    ASSISTANT_DEBOUNCE_MS: '0',
    // Alert webhooks go to small servers on 127.0.0.1 in tests; the refusal's own test sets it false.
    ALERT_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...env,
  }).config;
}

export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = testConfig(database, options.env);
  const instance = await startInstance(config, { logger: createLogger(config.logLevel) });
  const ownsDatabase = !options.database;
  return {
    url: instance.url,
    instance,
    config,
    database,
    sql: (text, params) => instance.services.database.query(text, params),
    stop: () => instance.stop(1000),
    async close() {
      await instance.stop(1000);
      if (ownsDatabase) await database.drop();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** A small JSON client: what a dashboard or curl user would send. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: leave the text for the assertion to look at.
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

let emailCounter = 0;
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${Date.now()}-${++emailCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Registers a user and returns their JWT and id. */
export async function registerUser(base: string, email = uniqueEmail(), password = 'secret123') {
  const res = await call(base, 'POST', '/api/auth/register', { body: { email, password } });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return { token: res.body.token as string, userId: res.body.user.id as string, email, password };
}

/**
 * Gives a registered ADMIN_EMAILS address the admin role as `npm run admin:grant -- <email>` does (the
 * script's own function, on the app's database): registering a listed address no longer makes an admin.
 */
export async function grantAdmin(app: TestApp, email: string): Promise<void> {
  const result = await grantAdminRole(app.instance.services.database.db, app.config.adminEmails, email);
  if (!result.granted) throw new Error(`admin grant refused for ${email}: ${result.reason}`);
}

/** Registers an ADMIN_EMAILS address and grants it the role; the JWT works on the admin routes at once. */
export async function registerAdmin(app: TestApp, email: string, password = 'secret123') {
  const user = await registerUser(app.url, email, password);
  await grantAdmin(app, email);
  return user;
}

/** Creates an API key for a user and returns the full key (shown once) and its id. */
export async function createApiKey(base: string, token: string, name = 'test key') {
  const res = await call(base, 'POST', '/api/keys', { token, body: { name } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { key: res.body.key as string, id: res.body.id as string };
}
