// The settlement journal keeps a request's cached, cache-write and reasoning tokens (issue 45): a line written
// with them replays them onto its usage row, and a line journaled before them (it ends at member_lease_id)
// replays with none, beside it, each charged once.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBilling } from '../../src/gateway/billing';
import { createLogger } from '../../src/logger';
import { registerUser, startTestApp, type TestApp } from '../helpers/app';
import { balanceNanoInDb, setBalanceNano, unbalancedUsers } from '../helpers/gateway';

setDefaultTimeout(30_000);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

test('a journaled row keeps its cache and reasoning tokens at replay; an older row has none', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'conduit-journal-'));
  const user = await registerUser(app.url);
  await setBalanceNano(app, user.userId, 1_000_000n);
  // ROW_COLUMNS' order (gateway/billing/rows.ts): …, endpoint, provider_id, attempts, provider_cost_nano, audio_ms,
  // member_lease_id, then the three of issue 45.
  const row = (id: string, at: string, cost: string, tail: unknown[]) =>
    JSON.stringify([
      user.userId,
      null,
      null,
      id,
      'acme/chat',
      false,
      130,
      7,
      137,
      cost,
      '60',
      '40',
      '0',
      'ok',
      'upstream',
      200,
      null,
      1,
      at,
      null,
      null,
      'chat',
      ...tail,
    ]);
  writeFileSync(
    join(dir, 'settlements-1073741823-old-4.jsonl'),
    `${row('older', '2026-11-20T10:00:00.000Z', '100', ['default', 1, null, null, null])}\n` +
      `${row('cached', '2026-11-20T10:00:01.000Z', '100', ['default', 1, null, null, null, 100, 20, 3])}\n`,
  );
  const billing = createBilling({
    db: app.instance.services.database.db,
    query: app.instance.services.database.query,
    config: { tokenPriceNano: 125n, leaseChunkNano: 10_000_000n, usageFlushMs: 20 },
    logger: createLogger('error', {}, () => {}),
    instanceId: `cached-journal-${crypto.randomUUID()}`,
    journalDir: dir,
  });
  await billing.start();
  const rows = await app.sql<{ request_id: string; cached: string; written: string; reasoning: string }>(
    `select request_id, cached_tokens::text as cached, cache_write_tokens::text as written, reasoning_tokens::text as reasoning
     from usage_records where user_id = $1 order by created_at`,
    [user.userId],
  );
  expect(rows.map((r) => [r.request_id, r.cached, r.written, r.reasoning])).toEqual([
    ['older', '0', '0', '0'],
    ['cached', '100', '20', '3'],
  ]);
  expect(await balanceNanoInDb(app, user.userId)).toBe(1_000_000n - 200n);
  await billing.stop();
  expect(await unbalancedUsers(app)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});
