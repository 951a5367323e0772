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
export async function createBenchDatabase(
  adminUrl: string,
  settings: Record<string, string> = {},
): Promise<BenchDatabase> {
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
  const [row] = await sql<
    { ledger: string; balance: string; leased: string; rows: string; ok_rows: string; cost: string; usage_ledger: string }[]
  >`
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
