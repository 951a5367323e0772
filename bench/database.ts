// The benchmark's own PostgreSQL database: made fresh for a run and dropped after it, plus the SQL the
// benchmark needs (top-up with its ledger entry, and the checks that the books balance).
import postgres from 'postgres';

export interface BenchDatabase {
  name: string;
  url: string;
  sql: postgres.Sql;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates `conduit_bench_<pid>_<time>` through the admin URL (any database the role can connect to). */
export async function createBenchDatabase(adminUrl: string, settings: Record<string, string> = {}): Promise<BenchDatabase> {
  const name = `conduit_bench_${process.pid}_${Date.now()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
    // Diagnostics such as log_min_duration_statement or synchronous_commit, for this database only.
    for (const [key, value] of Object.entries(settings)) {
      if (!/^[a-z_.]+$/.test(key)) throw new Error(`bad database setting name: ${key}`);
      await admin.unsafe(`alter database "${name}" set ${key} = '${value.replace(/'/g, "''")}'`);
    }
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  let dropped = false;
  return {
    name,
    url,
    sql,
    async drop() {
      if (dropped) return;
      dropped = true;
      await sql.end({ timeout: 2 }).catch(() => {});
      const again = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        // FORCE ends the connections of a Conduit that did not stop cleanly.
        await again.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await again.end({ timeout: 5 });
      }
    },
  };
}

/** Raises the balance and writes the matching ledger entry in one transaction (Σ ledger stays = balance). */
export async function topUp(sql: postgres.Sql, userId: string, amountNano: bigint): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`insert into ledger_entries (user_id, amount_nano, kind, reference)
             values (${userId}, ${amountNano.toString()}::bigint, 'adjustment', 'bench top-up')`;
    await tx`update users set balance_nano = balance_nano + ${amountNano.toString()}::bigint where id = ${userId}`;
  });
}

export interface Books {
  ledgerNano: bigint;
  balanceNano: bigint;
  leasedNano: bigint;
  usageRows: number;
  usageOkRows: number;
  usageCostNano: bigint;
  usageLedgerNano: bigint;
}

export async function readBooks(sql: postgres.Sql, userId: string): Promise<Books> {
  const [row] = await sql<{ ledger: string; balance: string; leased: string; rows: string; ok_rows: string; cost: string; usage_ledger: string }[]>`
    select
      (select coalesce(sum(amount_nano), 0)::text from ledger_entries where user_id = ${userId}) as ledger,
      (select balance_nano::text from users where id = ${userId}) as balance,
      (select coalesce(sum(amount_nano), 0)::text from balance_leases where user_id = ${userId}) as leased,
      (select count(*)::text from usage_records where user_id = ${userId}) as rows,
      (select count(*)::text from usage_records where user_id = ${userId} and status = 'ok') as ok_rows,
      (select coalesce(sum(cost_nano), 0)::text from usage_records where user_id = ${userId}) as cost,
      (select coalesce(sum(amount_nano), 0)::text from ledger_entries where user_id = ${userId} and kind = 'usage') as usage_ledger`;
  if (!row) throw new Error('bench user not found');
  return {
    ledgerNano: BigInt(row.ledger),
    balanceNano: BigInt(row.balance),
    leasedNano: BigInt(row.leased),
    usageRows: Number(row.rows),
    usageOkRows: Number(row.ok_rows),
    usageCostNano: BigInt(row.cost),
    usageLedgerNano: BigInt(row.usage_ledger),
  };
}

/** The price rows BENCH_PRICE_ROWS adds, and a model whose price on GET /v1/models shows they were loaded. */
export interface SeededPrices {
  rows: number;
  /** The row every bench request matches (`acme/*`), at TOKEN_PRICE both ways, so costs stay as without rows. */
  benchPattern: string;
  /** A model of the fake upstream's list and the price (nano per 1M tokens) a loaded table gives it; null with one row. */
  probe: { model: string; promptNanoPerMillion: bigint; completionNanoPerMillion: bigint } | null;
}

/**
 * Fills model_prices with `count` rows: `acme/*` (what the bench's `acme/chat` matches) at
 * `benchNanoPerMillion` both ways, and count − 1 others alternating between exact ids `vendor<i>/model<i>`
 * (odd i) and prefixes `vendor<i>/*` (even i), each at its own price. Replaces any rows already there.
 */
export async function seedPrices(sql: postgres.Sql, count: number, benchNanoPerMillion: bigint): Promise<SeededPrices> {
  await sql.begin(async (tx) => {
    await tx`delete from model_prices`;
    await tx`
      insert into model_prices (pattern, prompt_nano_per_million, completion_nano_per_million)
      select case when i % 2 = 1 then 'vendor' || i || '/model' || i else 'vendor' || i || '/*' end,
             (100000 + i)::bigint * 1000, (200000 + i)::bigint * 1000
      from generate_series(1, ${count - 1}::int) as i
      union all
      select 'acme/*', ${benchNanoPerMillion.toString()}::bigint, ${benchNanoPerMillion.toString()}::bigint`;
  });
  return {
    rows: count,
    benchPattern: 'acme/*',
    probe: count >= 2 ? { model: 'vendor1/model1', promptNanoPerMillion: 100_001_000n, completionNanoPerMillion: 200_001_000n } : null,
  };
}

/**
 * Usage rows of the user whose cost is not what the price gives for their tokens: prompt part rounded
 * down, the whole request rounded up once (src/pricing/prices.ts), charged + unpaid = the whole.
 */
export async function mispricedRows(
  sql: postgres.Sql,
  userId: string,
  promptNanoPerMillion: bigint,
  completionNanoPerMillion: bigint,
): Promise<{ rows: number; wrong: number }> {
  const [row] = await sql<{ rows: string; wrong: string }[]>`
    select count(*)::text as rows,
      count(*) filter (where
        cost_nano + unpaid_nano <> (prompt_tokens * ${promptNanoPerMillion.toString()}::bigint
          + greatest(completion_tokens, total_tokens - prompt_tokens) * ${completionNanoPerMillion.toString()}::bigint
          + 999999) / 1000000
        or prompt_cost_nano <> prompt_tokens * ${promptNanoPerMillion.toString()}::bigint / 1000000)::text as wrong
    from usage_records where user_id = ${userId}`;
  return { rows: Number(row?.rows ?? 0), wrong: Number(row?.wrong ?? 0) };
}

/**
 * A key's spend limit against what it spent (the key's claims are a cap, not money): at every commit
 * limit = budget_nano + Σ key_leases of the budget's period + Σ usage cost of the key since that period began.
 */
export interface KeyBooks {
  limitNano: bigint | null;
  budgetNano: bigint;
  periodStart: Date | null;
  claimedNano: bigint;
  /** key_leases rows of the key, whatever their period. */
  claims: number;
  spentNano: bigint;
}

export async function readKeyBooks(sql: postgres.Sql, keyId: string): Promise<KeyBooks> {
  const [row] = await sql<{ limit: string | null; budget: string; period: Date | null; claimed: string; claims: string; spent: string }[]>`
    select k.spend_limit_nano::text as limit, k.budget_nano::text as budget, k.budget_period_start as period,
      (select coalesce(sum(amount_nano), 0)::text from key_leases l
        where l.key_id = k.id and l.period_start = k.budget_period_start) as claimed,
      (select count(*)::text from key_leases l where l.key_id = k.id) as claims,
      (select coalesce(sum(cost_nano), 0)::text from usage_records u
        where u.api_key_id = k.id and u.created_at >= k.budget_period_start) as spent
    from api_keys k where k.id = ${keyId}`;
  if (!row) throw new Error('bench key not found');
  return {
    limitNano: row.limit === null ? null : BigInt(row.limit),
    budgetNano: BigInt(row.budget),
    periodStart: row.period,
    claimedNano: BigInt(row.claimed),
    claims: Number(row.claims),
    spentNano: BigInt(row.spent),
  };
}

/** Deadlocks PostgreSQL counted in one database (pg_stat_database; a backend reports them when it next flushes its statistics) and in all of them. */
export async function deadlockCounts(sql: postgres.Sql, database: string): Promise<{ database: number; server: number }> {
  const [row] = await sql<{ here: string | null; total: string | null }[]>`
    select (select deadlocks::text from pg_stat_database where datname = ${database}) as here,
           (select sum(deadlocks)::text from pg_stat_database) as total`;
  return { database: Number(row?.here ?? 0), server: Number(row?.total ?? 0) };
}

/** Usage rows settled within each window whose request took longer than `slowMs` by Conduit's own clock. */
export async function slowUsageRows(sql: postgres.Sql, userId: string, windows: { from: Date; to: Date }[], slowMs: number): Promise<number[]> {
  const out: number[] = [];
  for (const w of windows) {
    const [row] = await sql<{ n: string }[]>`
      select count(*)::text as n from usage_records
      where user_id = ${userId} and created_at >= ${w.from} and created_at < ${w.to} and duration_ms > ${slowMs}`;
    out.push(Number(row?.n ?? 0));
  }
  return out;
}

/**
 * Usage rows of one model (the slow-stream phases each use their own id): all of them, the `ok` ones, and
 * the `ok` ones carrying exactly the upstream's token counts (prompt, completion, their sum).
 */
export async function modelUsageRows(
  sql: postgres.Sql,
  userId: string,
  model: string,
  tokens: { prompt: number; completion: number },
): Promise<{ all: number; ok: number; exactTokens: number }> {
  const [row] = await sql<{ all: string; ok: string; exact: string }[]>`
    select count(*)::text as all,
      count(*) filter (where status = 'ok')::text as ok,
      count(*) filter (where status = 'ok' and prompt_tokens = ${tokens.prompt} and completion_tokens = ${tokens.completion}
        and total_tokens = ${tokens.prompt + tokens.completion})::text as exact
    from usage_records where user_id = ${userId} and model = ${model}`;
  return { all: Number(row?.all ?? 0), ok: Number(row?.ok ?? 0), exactTokens: Number(row?.exact ?? 0) };
}
