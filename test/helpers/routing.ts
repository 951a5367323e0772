// The operator's side of the routing tests: one app on a default fake upstream, an admin, and the admin API
// calls that add providers and routes; customers with keys, and chat requests to any instance.
import { afterAll, beforeAll } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, type TestApp } from './app';

export const ROUTED_MESSAGES = [{ role: 'user' as const, content: 'Привет!' }];

export interface RouteTargetInput {
  providerId: string;
  priority?: number;
  weight?: number;
  model?: string;
}

/**
 * Registers the file's beforeAll/afterAll: starts a fake as the default upstream and the app with
 * `env(home.url)` (which must list `adminEmail` in ADMIN_EMAILS), and makes that address an admin. The
 * returned helpers read `app`, `home` and the admin's token once the hooks have run.
 */
export function routingHarness(env: (defaultUpstream: string) => Record<string, string>, adminEmail: string) {
  let home: FakeUpstream | undefined;
  let app: TestApp | undefined;
  let admin = '';
  const fakes: FakeUpstream[] = [];

  beforeAll(async () => {
    home = await startFakeUpstream();
    app = await startTestApp({ env: env(home.url) });
    admin = (await registerAdmin(app, adminEmail)).token;
  });
  afterAll(async () => {
    await app?.close();
    await Promise.all([home, ...fakes].map((f) => f?.close()));
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the routing harness has not started yet (use it inside tests)');
    return value;
  };
  const adminCall = (method: string, path: string, body?: unknown, target: TestApp = started(app)) => call(target.url, method, path, { token: admin, body });
  return {
    get app(): TestApp {
      return started(app);
    },
    get home(): FakeUpstream {
      return started(home);
    },
    /** The admin's JWT. */
    get adminToken(): string {
      return admin;
    },
    /** Another fake provider, closed with the file. */
    async fake(options: Parameters<typeof startFakeUpstream>[0] = {}): Promise<FakeUpstream> {
      const f = await startFakeUpstream(options);
      fakes.push(f);
      return f;
    },
    adminCall,
    /** A provider at `baseUrl` (a random name unless `extra` names one); its id. */
    async addProvider(baseUrl: string, extra: Record<string, unknown> = {}, target: TestApp = started(app)): Promise<string> {
      const res = await adminCall('POST', '/api/admin/providers', { name: `p-${Math.random().toString(36).slice(2, 8)}`, baseUrl, ...extra }, target);
      if (res.status !== 201) throw new Error(`provider not created: ${res.status} ${res.text}`);
      return res.body.id as string;
    },
    async setRoute(pattern: string, targets: RouteTargetInput[], target: TestApp = started(app)): Promise<void> {
      const res = await adminCall('PUT', '/api/admin/routes', { pattern, targets }, target);
      if (res.status !== 200) throw new Error(`route not saved: ${res.status} ${res.text}`);
    },
    async deleteRoute(pattern: string, target: TestApp = started(app)): Promise<void> {
      const res = await adminCall('DELETE', `/api/admin/routes?pattern=${encodeURIComponent(pattern)}`, undefined, target);
      if (res.status !== 200) throw new Error(`route not deleted: ${res.status} ${res.text}`);
    },
    /** A registered user with an API key. */
    async customer(target: TestApp = started(app)) {
      const user = await registerUser(target.url);
      const { key } = await createApiKey(target.url, user.token);
      return { ...user, key };
    },
    /** A chat completion of ROUTED_MESSAGES (plus `extra` in the body) on `target`. */
    ask(target: TestApp, key: string, model: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      return call(target.url, 'POST', '/v1/chat/completions', { token: key, body: { model, messages: ROUTED_MESSAGES, ...extra }, headers });
    },
  };
}

/** The chat completions a fake received. */
export const chatCalls = (f: FakeUpstream) => f.requests.filter((r) => r.path === '/v1/chat/completions');
