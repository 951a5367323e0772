// Helpers for gateway tests: an OpenAI SDK client pointed at the app, and exact balance bookkeeping.
import { afterAll, beforeAll, beforeEach } from 'bun:test';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from '../fakes/upstream';
import { nanoToUnits } from '../../src/money';
import { createApiKey, registerUser, startTestApp, type TestApp } from './app';

/** Nano-units per token at the default price, 1.25e-7. */
export const PRICE_NANO = 125n;
/** A new account's balance in nano-units: the 3.00 starting bonus. */
export const START_NANO = 3_000_000_000n;

export interface GatewayTestSetup {
  app: TestApp;
  fake: FakeUpstream;
}

export interface GatewayTestOptions {
  /** The app's environment beside the upstream's address and key. */
  env?: Record<string, string>;
  /** The fake upstream's behaviour (its key is always 'upstream-secret'). */
  upstream?: Omit<FakeUpstreamOptions, 'apiKey'>;
  /** Receives the app and the fake once they run, before the file's first test. */
  ready: (setup: GatewayTestSetup) => void;
}

/**
 * A test file's /v1 setting: one app in front of one fake upstream, started before the file's tests and
 * closed after them; the fake forgets what it recorded before each test.
 */
export function useGatewayApp(options: GatewayTestOptions): void {
  let setup: GatewayTestSetup | undefined;
  beforeAll(async () => {
    const fake = await startFakeUpstream({ ...options.upstream, apiKey: 'upstream-secret' });
    const app = await startTestApp({ env: { UPSTREAM_BASE_URL: fake.url, UPSTREAM_API_KEY: 'upstream-secret', ...options.env } });
    setup = { app, fake };
    options.ready(setup);
  });
  afterAll(async () => {
    await setup?.app.close();
    await setup?.fake.close();
  });
  beforeEach(() => setup?.fake.reset());
}

/** A registered user with an API key and an OpenAI SDK client that uses it. */
export async function newGatewayCustomer(app: TestApp) {
  const user = await registerUser(app.url);
  const key = await createApiKey(app.url, user.token);
  return { ...user, key: key.key, keyId: key.id, client: openaiClient(app, key.key) };
}

export function openaiClient(app: TestApp, apiKey: string, options: { timeoutMs?: number } = {}) {
  // No retries: a test asserts what one request does.
  return new OpenAI({ baseURL: `${app.url}/v1`, apiKey, maxRetries: 0, timeout: options.timeoutMs ?? 20_000 });
}

/** Writes everything the instance has batched and hands its leases back, so the database is at rest. */
export async function settleAll(app: TestApp): Promise<void> {
  await app.instance.services.billing.returnIdleLeases(true);
  await app.instance.services.billing.flush();
}

/** Sets a user's balance exactly, with the ledger entry that keeps Σ ledger = balance. */
export async function setBalanceNano(app: TestApp, userId: string, nano: bigint): Promise<void> {
  await settleAll(app);
  await app.sql(
    `with prev as (select balance_nano from users where id = $1),
          upd as (update users set balance_nano = $2::bigint where id = $1)
     insert into ledger_entries (user_id, amount_nano, kind)
     select $1, $2::bigint - prev.balance_nano, 'adjustment' from prev`,
    [userId, nano.toString()],
  );
}

export async function balanceNanoInDb(app: TestApp, userId: string): Promise<bigint> {
  const [row] = await app.sql<{ balance_nano: unknown }>('select balance_nano from users where id = $1', [userId]);
  return BigInt(row!.balance_nano as string);
}

/** Users whose ledger does not sum to their balance plus what leases hold; empty when the books balance. */
export async function unbalancedUsers(app: TestApp) {
  return app.sql<{ id: string; balance: string; ledger: string; leased: string }>(
    `select u.id, u.balance_nano::text as balance,
            coalesce((select sum(amount_nano) from ledger_entries l where l.user_id = u.id), 0)::text as ledger,
            coalesce((select sum(amount_nano) from balance_leases b where b.user_id = u.id), 0)::text as leased
     from users u
     where u.balance_nano + coalesce((select sum(amount_nano) from balance_leases b where b.user_id = u.id), 0)
           <> coalesce((select sum(amount_nano) from ledger_entries l where l.user_id = u.id), 0)
        or u.balance_nano < 0`,
  );
}

export async function usageRows(app: TestApp, userId: string) {
  await app.instance.services.billing.flush();
  return app.sql<{
    status: string;
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    cost_nano: unknown;
    usage_source: string;
    model: string;
    stream: boolean;
    upstream_status: number | null;
    api_key_id: string | null;
  }>(
    `select *, prompt_tokens::float8 as prompt_tokens, completion_tokens::float8 as completion_tokens,
            total_tokens::float8 as total_tokens
     from usage_records where user_id = $1 order by id`,
    [userId],
  );
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, stepMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await Bun.sleep(stepMs);
  }
  throw new Error('condition not met in time');
}

/** An account's usage by provider as the operator's account detail shows it, summed straight from its usage rows. */
export async function usageByProviderFromRows(app: TestApp, userId: string) {
  const rows = await app.sql<{ provider: string | null; requests: string; failed: string; attempts: string; cost: string; pcost: string | null }>(
    `select provider_id as provider, count(*)::text as requests, count(*) filter (where attempts > 1)::text as failed,
       coalesce(sum(attempts), 0)::text as attempts, sum(cost_nano)::text as cost, sum(provider_cost_nano)::text as pcost
     from usage_records where user_id = $1 group by 1 order by count(*) desc, 1`,
    [userId],
  );
  return rows.map((p) => ({
    provider: p.provider,
    requests: Number(p.requests),
    failedOver: Number(p.failed),
    attempts: Number(p.attempts),
    cost: nanoToUnits(BigInt(p.cost)),
    providerCost: p.pcost === null ? null : nanoToUnits(BigInt(p.pcost)),
  }));
}
