// Chaos across providers (issue 29, "Measured", scaled to keep the suite fast): a dead provider, one that
// hangs and one answering 429, beside a good one, under 200 concurrent requests (streams and plain), on two
// instances when on PostgreSQL. Every request is answered 200 (the good provider is always within
// ROUTE_MAX_ATTEMPTS) or a 5xx saying no provider could answer; none twice; the ledger exact; and once the
// failing providers cooled down, none of them is called again while their cooldown lasts.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { startFakeUpstream, type FakeUpstream } from '../fakes/upstream';
import { call, createApiKey, registerAdmin, registerUser, startTestApp, uniqueEmail, type TestApp } from '../helpers/app';
import { settleAll, unbalancedUsers, waitFor } from '../helpers/gateway';

setDefaultTimeout(60_000);

const onPostgres = Boolean(process.env.DATABASE_URL);
const ADMIN = uniqueEmail('chaos-admin');
const CONCURRENT = 200;
const MODEL = 'acme/chaos';
const env = (home: string) => ({
  UPSTREAM_BASE_URL: home,
  ADMIN_EMAILS: ADMIN,
  ROUTE_MAX_ATTEMPTS: '4',
  PROVIDER_FAILURE_THRESHOLD: '5',
  // Longer than the test: a cooled provider must not be called again before it ends.
  PROVIDER_COOLDOWN_SECONDS: '600',
  // No probes: their GET /models answers, so a probe would put them back (provider-healing.test.ts).
  PROVIDER_PROBE_SECONDS: '0',
  // 20 requests a key, each timing out at the hanging provider until it cools down: the per-key cap on
  // failovers after a timeout (provider-faults.test.ts) is not what this test measures.
  ROUTE_TIMEOUT_FAILOVERS_PER_MINUTE: '1000',
});

let home: FakeUpstream;
let hanging: FakeUpstream;
let limited: FakeUpstream;
let good: FakeUpstream;
let instances: TestApp[] = [];
let admin: string;
const ids: Record<'dead' | 'hanging' | 'limited' | 'good', string> = { dead: '', hanging: '', limited: '', good: '' };

beforeAll(async () => {
  [home, hanging, limited, good] = await Promise.all([startFakeUpstream(), startFakeUpstream(), startFakeUpstream(), startFakeUpstream()]);
  hanging.outage = 'hang';
  limited.outage = 429;
  const first = await startTestApp({ env: env(home.url) });
  instances = [first];
  if (onPostgres) instances.push(await startTestApp({ database: first.database, env: env(home.url) }));
  admin = (await registerAdmin(first, ADMIN)).token;
  const add = async (baseUrl: string, timeoutMs = 5000) => {
    const res = await call(first.url, 'POST', '/api/admin/providers', { token: admin, body: { name: 'chaos', baseUrl, timeoutMs } });
    if (res.status !== 201) throw new Error(res.text);
    return res.body.id as string;
  };
  ids.dead = await add('http://127.0.0.1:9/v1');
  ids.hanging = await add(hanging.url, 300);
  ids.limited = await add(limited.url);
  ids.good = await add(good.url);
  const res = await call(first.url, 'PUT', '/api/admin/routes', {
    token: admin,
    body: {
      pattern: MODEL,
      targets: [
        { providerId: ids.dead, priority: 0 },
        { providerId: ids.hanging, priority: 0 },
        { providerId: ids.limited, priority: 0 },
        { providerId: ids.good, priority: 1 },
      ],
    },
  });
  if (res.status !== 200) throw new Error(res.text);
  for (const app of instances) await waitFor(() => app.instance.services.routing.candidates(MODEL).length === 4);
});
afterAll(async () => {
  for (const app of instances.reverse()) await app.close();
  await Promise.all([home, hanging, limited, good].map((f) => f?.close()));
});

interface Outcome {
  status: number;
  text: string;
  requestId: string;
}

async function burst(keys: { key: string }[], tag: string): Promise<Outcome[]> {
  return Promise.all(
    Array.from({ length: CONCURRENT }, async (_, i) => {
      const app = instances[i % instances.length]!;
      const requestId = `${tag}-${i}`;
      const res = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keys[i % keys.length]!.key}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: `запрос ${i}` }], stream: i % 2 === 0 }),
      });
      return { status: res.status, text: await res.text(), requestId };
    }),
  );
}

function expectAnswered(outcomes: Outcome[]) {
  for (const o of outcomes) {
    if (o.status === 200) {
      // A whole answer: a stream ends with [DONE], a plain answer is the echo.
      expect(o.text.includes('data: [DONE]') || o.text.includes('Echo: запрос')).toBe(true);
      expect(o.text).not.toContain('upstream_error');
    } else {
      expect(o.status).toBeGreaterThanOrEqual(500);
      expect(o.text).toContain('Ни один провайдер');
    }
  }
}

describe('chaos across providers', () => {
  test('dead, hanging and 429 providers beside a good one: all answered once, the ledger exact, no call during a cooldown', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => registerUser(instances[0]!.url)));
    const keys = await Promise.all(users.map((u) => createApiKey(instances[0]!.url, u.token)));

    const first = await burst(keys, 'chaos-a');
    expectAnswered(first);
    // Every failing provider has cooled down, and every instance knows it.
    for (const app of instances) {
      await waitFor(() => ['dead', 'hanging', 'limited'].every((p) => app.instance.services.routing.health.get(ids[p as 'dead']).state === 'cooling_down'), 5000);
    }
    const calledBefore = { hanging: hanging.requests.length, limited: limited.requests.length };

    const second = await burst(keys, 'chaos-b');
    expectAnswered(second);
    expect(second.every((o) => o.status === 200)).toBe(true);
    expect({ hanging: hanging.requests.length, limited: limited.requests.length }).toEqual(calledBefore);

    const answered = [...first, ...second].filter((o) => o.status === 200).length;
    // Each answer came from exactly one call to the good provider: none answered twice.
    expect(good.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(answered);

    for (const app of instances) await settleAll(app);
    const app = instances[0]!;
    const rows = await app.sql<{ request_id: string; n: number }>(
      `select request_id, count(*)::int as n from usage_records where request_id like 'chaos-%' group by request_id`,
    );
    expect(rows).toHaveLength(2 * CONCURRENT);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    const okRows = await app.sql<{ n: number }>(
      `select count(*)::int as n from usage_records where request_id like 'chaos-%' and status = 'ok' and provider_id = $1`,
      [ids.good],
    );
    expect(okRows[0]!.n).toBe(answered);
    // The ledger: balance + leases = Σ ledger, and Σ usage cost = what the ledger took for usage.
    expect(await unbalancedUsers(app)).toEqual([]);
    const [sums] = await app.sql<{ usage: string; ledger: string }>(
      `select (select coalesce(sum(cost_nano), 0) from usage_records where request_id like 'chaos-%')::text as usage,
              (select coalesce(-sum(amount_nano), 0) from ledger_entries where kind = 'usage' and user_id = any($1::uuid[]))::text as ledger`,
      [users.map((u) => u.userId)],
    );
    expect(sums!.usage).toBe(sums!.ledger);
    expect(BigInt(sums!.usage)).toBeGreaterThan(0n);
  });
});
