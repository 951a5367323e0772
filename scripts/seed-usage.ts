// `npm run seed:usage -- --email <e-mail> --rows <N> --days <D> [--other-users <M>] [--spread zipf|even] [--seed <n>]`:
// fills the database with N realistic usage rows over the last D days, half for that account (created when
// missing, with two API keys) and half spread over M other accounts (seed-usage-<i>@example.com, default
// 20), for benchmarks, screenshots and anyone trying the dashboard with a history. `--spread zipf` (the
// default) gives the i-th other account a share of 1/i, a few busy ones and a long tail; `--spread even`
// gives them equal shares, every account active every day (a fleet of a thousand: the operator's reads).
//
// The rows go through the settlement writer's own statement (rows.ts writeBatchStatement), in batches of
// a few thousand, so they come with their ledger rows and rollups exactly as real settlements do. Each
// account is first credited what its rows will cost, as an operator's credit (the admin credit path:
// ledger row, balance, audit row), and the batches take it back: the ledger still equals the balance.
// Rows are written oldest first, as settlements arrive, so a batch touches a few quarter hours of rollups.
//
// Reads the same configuration as the server (DATABASE_URL, or the embedded database in DATA_DIR: stop the
// server first, one process at a time may open it) and migrates the database if it is new. Refuses to run
// with NODE_ENV=production.
import { randomBytes, randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { normaliseEmail } from '../src/accounts/service';
import { ConfigError, loadConfig, type Config } from '../src/config';
import { openDatabase, type Database, type DatabaseHandle } from '../src/db/client';
import { runMigrations } from '../src/db/migrate';
import { users } from '../src/accounts/tables';
import { apiKeys } from '../src/keys/tables';
import { serialize, writeBatchStatement, type Pending } from '../src/gateway/billing/rows';
import type { UsageFacts, UsageStatus } from '../src/gateway/billing/types';
import { createLogger } from '../src/logger';
import { createServices } from '../src/services';

const BATCH_ROWS = 5000;
const HOUR_MS = 3_600_000;

const fail = (message: string): never => {
  process.stderr.write(`seed:usage: ${message}\n`);
  process.exit(1);
};

export interface SeedOptions {
  email: string;
  rows: number;
  days: number;
  otherUsers: number;
  /** How the other half is shared among the other accounts: 1/i each (zipf) or equally (even). */
  spread: 'zipf' | 'even';
  /** Seeds the generator: the same seed and options give the same rows (but new request ids' times shift with now). */
  seed: number;
}

function parseArgs(argv: string[]): SeedOptions {
  const usage = 'запуск: npm run seed:usage -- --email <e-mail> --rows <N> --days <D> [--other-users <M>] [--spread zipf|even] [--seed <n>]';
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    const value = argv[i + 1];
    if (!['--email', '--rows', '--days', '--other-users', '--spread', '--seed'].includes(name) || value === undefined) {
      fail(`непонятный аргумент ${name}\n${usage}`);
    }
    values.set(name, value!);
  }
  const whole = (name: string, min: number, max: number, fallback?: number): number => {
    const text = values.get(name);
    if (text === undefined) {
      if (fallback !== undefined) return fallback;
      return fail(`не задан ${name}\n${usage}`);
    }
    const n = Number(text);
    if (!Number.isInteger(n) || n < min || n > max) fail(`${name}: ожидается целое число от ${min} до ${max}, получено «${text}»`);
    return n;
  };
  const email = values.get('--email');
  if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail(`--email: ожидается адрес электронной почты\n${usage}`);
  const spread = values.get('--spread') ?? 'zipf';
  if (spread !== 'zipf' && spread !== 'even') fail(`--spread: ожидается zipf или even, получено «${spread}»\n${usage}`);
  return {
    email: email!,
    rows: whole('--rows', 1, 1_000_000_000),
    days: whole('--days', 1, 3650),
    otherUsers: whole('--other-users', 0, 10_000, 20),
    spread: spread as 'zipf' | 'even',
    seed: whole('--seed', 0, 2 ** 31, 1),
  };
}

/** A small deterministic generator (mulberry32): the two passes over the rows must see the same ones. */
function generator(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks by weight: `weights` summed once into a cumulative table. */
function weighted<T>(items: readonly (readonly [T, number])[]) {
  const total = items.reduce((s, [, w]) => s + w, 0);
  let acc = 0;
  const table = items.map(([item, w]) => [item, (acc += w / total)] as const);
  return (u: number): T => (table.find(([, c]) => u < c) ?? table[table.length - 1]!)[0];
}

const MODELS = weighted([
  ['openai/gpt-4o-mini', 38],
  ['openai/gpt-4o', 14],
  ['anthropic/claude-3.5-sonnet', 16],
  ['google/gemini-flash-1.5', 12],
  ['deepseek/deepseek-chat', 12],
  ['meta-llama/llama-3.1-70b-instruct', 8],
] as const);
const STATUSES = weighted<UsageStatus>([
  ['ok', 955],
  ['client_closed', 20],
  ['upstream_error', 15],
  ['upstream_timeout', 5],
  ['upstream_rejected', 5],
]);
const ENDPOINTS = weighted<'chat' | 'responses' | 'embeddings'>([
  ['chat', 85],
  ['responses', 8],
  ['embeddings', 7],
]);

/** A count spread like real prompts: mostly small, a long tail (log-uniform between min and max). */
const logUniform = (u: number, min: number, max: number) => Math.round(Math.exp(Math.log(min) + u * (Math.log(max) - Math.log(min))));

/**
 * Instants over the last `days`, oldest first, with a working day's rhythm (Moscow time: quiet at night,
 * a peak in the afternoon, weekends lighter): the i-th of n is the rhythm's quantile (i + u) / n.
 */
function timeline(days: number, now: number) {
  const start = Math.floor((now - days * 86_400_000) / HOUR_MS) * HOUR_MS;
  const hours = Math.ceil((now - start) / HOUR_MS);
  const cumulative = new Float64Array(hours + 1);
  for (let h = 0; h < hours; h++) {
    const at = new Date(start + h * HOUR_MS + 3 * HOUR_MS);
    const local = at.getUTCHours();
    const weekend = at.getUTCDay() === 0 || at.getUTCDay() === 6;
    const weight = (0.08 + Math.exp(-((local - 14) ** 2) / 18)) * (weekend ? 0.55 : 1);
    cumulative[h + 1] = cumulative[h]! + weight;
  }
  const total = cumulative[hours]!;
  return (q: number): number => {
    const target = q * total;
    let lo = 0;
    let hi = hours;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid + 1]! <= target) lo = mid + 1;
      else hi = mid;
    }
    const within = (target - cumulative[lo]!) / (cumulative[lo + 1]! - cumulative[lo]! || 1);
    return Math.min(start + (lo + within) * HOUR_MS, now - 1);
  };
}

interface Account {
  userId: string;
  keyIds: string[];
}

/** Every row, oldest first, in batches: the same sequence on every call with the same arguments. */
function* batches(options: SeedOptions, accounts: { main: Account; others: Account[] }, tokenPriceNano: bigint, now: number) {
  const next = generator(options.seed);
  const at = timeline(options.days, now);
  const others = accounts.others;
  const other =
    options.spread === 'even'
      ? (u: number) => others[Math.min(Math.floor(u * others.length), others.length - 1)]!
      : weighted(others.map((a, i) => [a, 1 / (i + 1)] as const));
  const hex = () =>
    Math.floor(next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  let batch: Pending[] = [];
  for (let i = 0; i < options.rows; i++) {
    const account = accounts.others.length === 0 || next() < 0.5 ? accounts.main : other(next());
    const endpoint = ENDPOINTS(next());
    const status = STATUSES(next());
    const embeddings = endpoint === 'embeddings';
    const prompt = logUniform(next(), 8, embeddings ? 2000 : 6000);
    // An answer cut short (the client left, the host failed) has fewer completion tokens, or none.
    const fullCompletion = embeddings ? 0 : logUniform(next(), 5, 1500);
    const completion = status === 'ok' ? fullCompletion : status === 'client_closed' ? Math.floor(fullCompletion * next()) : 0;
    const billed = status === 'ok' || status === 'client_closed';
    const promptCost = billed ? BigInt(prompt) * tokenPriceNano : 0n;
    const completionCost = BigInt(completion) * tokenPriceNano;
    const stream = !embeddings && next() < 0.6;
    const attempts = next() < 0.03 ? 2 : 1;
    const facts: UsageFacts = {
      userId: account.userId,
      apiKeyId: account.keyIds[next() < 0.7 ? 0 : account.keyIds.length - 1] ?? null,
      agentId: null,
      requestId: `seed-${hex()}${hex()}`,
      endpoint,
      model: embeddings ? 'openai/text-embedding-3-small' : MODELS(next()),
      stream,
      promptTokens: billed ? prompt : 0,
      completionTokens: completion,
      totalTokens: (billed ? prompt : 0) + completion,
      status,
      usageSource: billed ? 'upstream' : 'none',
      upstreamStatus: status === 'ok' || status === 'client_closed' ? 200 : status === 'upstream_rejected' ? 400 : status === 'upstream_timeout' ? null : 502,
      error: billed ? null : status === 'upstream_timeout' ? 'upstream timed out' : 'upstream answered with an error',
      durationMs: Math.round(embeddings ? 80 + next() * 400 : 300 + completion * (15 + next() * 25)),
      providerId: 'default',
      attempts,
    };
    batch.push({
      facts,
      promptCostNano: promptCost,
      completionCostNano: completionCost,
      costNano: promptCost + completionCost,
      providerCostNano: null,
      leaseId: null,
      keyLeaseId: null,
      memberLeaseId: null,
      member: null,
      overage: null,
      createdAt: new Date(at((i + next()) / options.rows)),
      json: undefined,
      segment: null,
    });
    if (batch.length === BATCH_ROWS) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** The account with this address, made through the app's own registration when missing, with two keys. */
async function ensureAccount(services: ReturnType<typeof createServices>, db: Database, email: string): Promise<Account & { password: string | null }> {
  const normalised = normaliseEmail(email);
  let [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, normalised)).limit(1);
  let password: string | null = null;
  if (!user) {
    password = randomBytes(9).toString('base64url');
    const created = await services.accounts.register(normalised, password, { address: 'seed:usage' });
    user = { id: created.user.id };
  }
  const keys = await db.select({ id: apiKeys.id, revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.userId, user.id));
  const active = keys.filter((k) => k.revokedAt === null).map((k) => k.id);
  while (active.length < 2) active.push((await services.keys.create(user.id, active.length === 0 ? 'Основной' : 'Тестовый')).id);
  return { userId: user.id, keyIds: active.slice(0, 2), password };
}

export async function seedUsage(config: Config, database: DatabaseHandle, options: SeedOptions, log: (line: string) => void) {
  // Seed accounts register without the per-address limit and without a mailed link: nobody reads that mail.
  const seedConfig: Config = { ...config, registrationLimitPerHour: 0, requireEmailVerification: false };
  const services = createServices({ config: seedConfig, database, logger: createLogger('warn') });
  const main = await ensureAccount(services, database.db, options.email);
  const others: Account[] = [];
  // A few at a time: a registration's password hash runs off the main thread, and a fleet of a thousand
  // made one by one took minutes.
  for (let i = 1; i <= options.otherUsers; i += 4) {
    const emails = [i, i + 1, i + 2, i + 3].filter((n) => n <= options.otherUsers).map((n) => `seed-usage-${n}@example.com`);
    others.push(...(await Promise.all(emails.map((email) => ensureAccount(services, database.db, email)))));
  }
  const accounts = { main, others };
  const now = Date.now();

  // First pass: what each account's rows will cost, credited before they are written.
  const owed = new Map<string, bigint>();
  for (const batch of batches(options, accounts, config.tokenPriceNano, now)) {
    for (const p of batch) owed.set(p.facts.userId, (owed.get(p.facts.userId) ?? 0n) + p.costNano);
  }
  // The credit's audit row names an operator; the seed has none, so it names the account it credits.
  for (const [userId, amountNano] of owed) {
    if (amountNano === 0n) continue;
    await services.admin.users.credit(
      { userId, email: 'seed:usage' },
      { userId, amountNano, reason: 'npm run seed:usage: оплата тестовой истории использования', reference: `seed-usage:${randomUUID()}` },
    );
  }

  // The period's months get their partitions first: rows written into DEFAULT would have to be moved out
  // of it by the server's upkeep, a pass over every one of them.
  const made = await services.usagePartitions.ensureMonths(new Date(now - options.days * 86_400_000), new Date(now));
  if (made.length > 0) log(`созданы разделы: ${made.join(', ')}`);

  const started = performance.now();
  let written = 0;
  const write = async (batch: Pending[]) => {
    if (batch.length === 0) return;
    const json = `[${batch.map((p) => serialize(p, p.costNano, 0n)).join(',')}]`;
    const short = await database.query<{ user_id: string; short: string }>(writeBatchStatement, [json, 60], { prepared: true });
    const unpaid = short.find((r) => BigInt(r.short) > 0n);
    if (unpaid) throw new Error(`the balance of ${unpaid.user_id} did not cover its rows`);
    written += batch.length;
  };
  // Two lanes on two connections, the named account's rows on one and the others' on the other: their
  // batches lock different users and rollup rows, so PostgreSQL writes them side by side. Each lane has
  // one batch in flight while the next is built.
  const lanes: (Promise<void> | null)[] = [null, null];
  let reported = 0;
  for (const batch of batches(options, accounts, config.tokenPriceNano, now)) {
    const parts = [batch.filter((p) => p.facts.userId === main.userId), batch.filter((p) => p.facts.userId !== main.userId)];
    for (const [lane, part] of parts.entries()) {
      if (lanes[lane]) await lanes[lane];
      const writing = write(part);
      // Awaited at the lane's next batch; until then a failure must not count as unhandled.
      writing.catch(() => {});
      lanes[lane] = writing;
    }
    if (written - reported >= 500_000) {
      reported = written;
      log(`  ${written.toLocaleString('ru-RU')} строк…`);
    }
  }
  await Promise.all(lanes);
  const seconds = (performance.now() - started) / 1000;
  return { main, others, written, seconds };
}

if (import.meta.main) {
  const options = parseArgs(process.argv.slice(2));
  let config: Config;
  try {
    config = loadConfig().config;
  } catch (error) {
    fail(error instanceof ConfigError ? error.message : String(error));
  }
  // Checked before the database is opened: the production database is never touched.
  if (config!.nodeEnv === 'production') {
    fail('NODE_ENV=production: тестовые данные в рабочую базу не записываются');
  }
  const database = await openDatabase({ databaseUrl: config!.databaseUrl, dataDir: config!.dataDir, maxConnections: 2 });
  try {
    await runMigrations(database, config!.databaseUrl);
    const result = await seedUsage(config!, database, options, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(
      `записано ${result.written.toLocaleString('ru-RU')} строк за ${result.seconds.toFixed(1)} с ` +
        `(${Math.round(result.written / result.seconds).toLocaleString('ru-RU')} строк/с): ${options.email} и ещё ${result.others.length} аккаунтов\n`,
    );
    if (result.main.password) process.stdout.write(`создан аккаунт ${options.email}, пароль: ${result.main.password}\n`);
  } catch (error) {
    await database.close();
    fail(`запись не удалась: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  await database.close();
}
