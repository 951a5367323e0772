// The checks at the end of a run: once the settlements are written, every request Conduit answered has its
// usage row at the right price and the books balance, before and after a graceful stop, and no deadlock
// happened anywhere.
import { deadlockCounts, mispricedRows, modelUsageRows, readBooks, readKeyBooks, slowUsageRows, type Books } from '../database';
import { fakeStats, postgresLogDeadlocks, scanLogs, utcDay } from '../environment';
import { stopChild } from '../processes';
import { booksLine, keyBooksLine, type Verdict } from '../report';
import type { RoutingOutcome } from '../routing';
import { routingChecks } from '../routing';
import { settings, SLOW_USAGE, type LogCounts, type Row, type SlowRow } from '../settings';
import type { BenchContext } from './context';

export interface CheckInputs {
  userId: string;
  keyId: string;
  /** The UTC day the key's spend period started on. */
  keyDay: number;
  rows: Row[];
  slowRows: SlowRow[];
  compareChecks: Verdict[];
  routingOutcome: RoutingOutcome | null;
  benchPrice: { promptNanoPerMillion: bigint; completionNanoPerMillion: bigint };
  seeded: { rows: number; benchPattern: string } | null;
  deadlocksBefore: { database: number; server: number };
  pgLogBefore: { all: number; database: number } | null;
  variantLogs: string[];
}

export interface CheckOutcome {
  usageChecks: Verdict[];
  books: Books;
  priced: { wrong: number; rows: number };
  drainMs: number;
  deadlocksAfter: { database: number; server: number };
  pgLogAfter: { all: number; database: number } | null;
  conduitLogTotal: LogCounts;
  dbTrouble: unknown;
}

/** Waits for the settlements, checks the books, stops Conduit (SIGTERM) and checks them again. */
export async function runChecks(ctx: BenchContext, input: CheckInputs): Promise<CheckOutcome> {
  const { userId, keyId, keyDay, rows, slowRows, compareChecks, routingOutcome, benchPrice, seeded, deadlocksBefore, pgLogBefore, variantLogs } = input;
  // Settlements are written in batches at most USAGE_FLUSH_MS late, unless the writer falls behind:
  // wait until the row count stops moving (at most 10 s), and say how long that took.
  const loadEnded = performance.now();
  let stats = await fakeStats(ctx.fakeUrl);
  let books = await readBooks(ctx.database.sql, userId);
  for (let still = 0; still < 3 && performance.now() - loadEnded < 10_000; ) {
    await Bun.sleep(100);
    const next = await readBooks(ctx.database.sql, userId);
    still = next.usageRows === books.usageRows && next.usageRows >= stats.other ? still + 1 : 0;
    books = next;
  }
  const drainMs = performance.now() - loadEnded;
  stats = await fakeStats(ctx.fakeUrl);
  const conduitRows = rows.filter((r) => r.conduit);
  const slowCounts = await slowUsageRows(
    ctx.database.sql,
    userId,
    conduitRows.map((r) => r.conduit!.window),
    settings.slowMs,
  );
  conduitRows.forEach((r, i) => (r.conduit!.slowRows = slowCounts[i]));
  const priced = await mispricedRows(ctx.database.sql, userId, benchPrice.promptNanoPerMillion, benchPrice.completionNanoPerMillion);
  for (const r of slowRows) {
    if (r.target === 'conduit') r.rows = await modelUsageRows(ctx.database.sql, userId, r.model, SLOW_USAGE);
  }
  const keyRunning = settings.keyLimit === null ? null : await readKeyBooks(ctx.database.sql, keyId);
  const sameDay = utcDay(Date.now()) === keyDay;
  const cutOff = books.usageRows - ctx.tally.conduit2xx;
  const usageChecks: Verdict[] = [
    {
      name: 'every request Conduit forwarded upstream has its usage row',
      ok: books.usageRows >= stats.other && books.usageRows - stats.other <= ctx.tally.conduitConnections,
      detail: `${books.usageRows} rows, ${stats.other} upstream requests ` + `(rows settled ${drainMs.toFixed(0)} ms after the load ended)`,
    },
    {
      name: "every 2xx the generator saw has an 'ok' usage row; extra rows only for requests cut off at phase ends",
      ok: books.usageOkRows >= ctx.tally.conduit2xx && cutOff >= 0 && cutOff <= ctx.tally.conduitConnections,
      detail: `${books.usageOkRows} ok rows of ${books.usageRows} vs ${ctx.tally.conduit2xx} 2xx; ${cutOff} extra, at most ${ctx.tally.conduitConnections} in flight at phase ends`,
    },
    {
      name: 'Σ ledger = users.balance_nano + Σ balance_leases (Conduit running)',
      ok: books.ledgerNano === books.balanceNano + books.leasedNano,
      detail: booksLine(books),
    },
    {
      name: 'Σ usage cost = Σ usage ledger debits',
      ok: books.usageCostNano === -books.usageLedgerNano,
      detail: `${books.usageCostNano} vs ${-books.usageLedgerNano}`,
    },
    {
      name: `every usage row costs its tokens at ${seeded ? `the ${seeded.benchPattern} row of ${seeded.rows} price rows` : 'TOKEN_PRICE'} (prompt rounded down, request rounded up once)`,
      ok: priced.wrong === 0 && priced.rows === books.usageRows,
      detail: `${priced.wrong} of ${priced.rows} rows off; ${benchPrice.promptNanoPerMillion} / ${benchPrice.completionNanoPerMillion} nano per 1M tokens`,
    },
    ...(keyRunning
      ? [
          {
            name: "key limit = budget + Σ key_leases + the key's spend this period (Conduit running; claims are not money)",
            // A run across midnight UTC starts a new period: the old one's claims are void by design.
            ok: sameDay ? keyRunning.limitNano === keyRunning.budgetNano + keyRunning.claimedNano + keyRunning.spentNano : null,
            detail: sameDay ? keyBooksLine(keyRunning) : `not judged: the run crossed midnight UTC; ${keyBooksLine(keyRunning)}`,
          },
        ]
      : []),
    ...slowRows
      .filter((r) => r.target === 'conduit')
      .map((r) => ({
        name: `${r.count} slow streams: every stream that ended with [DONE] has its 'ok' usage row with the upstream's tokens`,
        ok: r.rows !== undefined && r.rows.ok >= r.summary.ok && r.rows.all <= r.count && r.rows.exactTokens === r.rows.ok,
        detail: r.rows
          ? `${r.rows.ok} ok rows of ${r.rows.all} for ${r.model}, ${r.rows.exactTokens} with ${SLOW_USAGE.prompt} + ${SLOW_USAGE.completion} tokens; ${r.summary.ok} streams completed of ${r.count}`
          : 'not read',
      })),
    ...compareChecks,
    ...(routingOutcome ? routingChecks(routingOutcome) : []),
    {
      name: 'no non-2xx and no socket errors from Conduit (wrk phases)',
      ok: ctx.tally.conduitNon2xx === 0 && ctx.tally.conduitSocketErrors === 0,
      detail: `non-2xx ${ctx.tally.conduitNon2xx}, socket errors ${ctx.tally.conduitSocketErrors}`,
    },
  ];

  // A graceful stop writes what is left and hands the lease back: the books must still balance.
  const stopStarted = performance.now();
  const exitCode = await stopChild(ctx.conduit, 10_000);
  const stopMs = performance.now() - stopStarted;
  const after = await readBooks(ctx.database.sql, userId);
  usageChecks.push({
    name: 'after SIGTERM: clean exit, leases returned, Σ ledger = balance',
    ok:
      exitCode === 0 &&
      after.leasedNano === 0n &&
      after.ledgerNano === after.balanceNano &&
      after.usageRows >= stats.other &&
      after.usageRows - stats.other <= ctx.tally.conduitConnections,
    detail: `exit ${exitCode} in ${stopMs.toFixed(0)} ms; ${booksLine(after)}; ${after.usageRows} rows for ${stats.other} upstream requests`,
  });
  if (settings.keyLimit !== null) {
    const keyAfter = await readKeyBooks(ctx.database.sql, keyId);
    const sameDayAfter = utcDay(Date.now()) === keyDay;
    usageChecks.push({
      name: "after SIGTERM: the key's claims handed back, key limit = budget + the key's spend this period",
      ok: sameDayAfter ? keyAfter.claims === 0 && keyAfter.limitNano === keyAfter.budgetNano + keyAfter.spentNano : null,
      detail: `${sameDayAfter ? '' : 'not judged: the run crossed midnight UTC; '}${keyBooksLine(keyAfter)}`,
    });
  }

  // Deadlocks and transient database errors. PostgreSQL counts a deadlock in the statistics of the backend
  // that lost it, which reports them when it exits at the latest: Conduit has stopped, so wait for its
  // connections to close before reading the counter.
  for (let i = 0; i < 30; i++) {
    const [open] = await ctx.database.sql<{ n: string }[]>`
      select count(*)::text as n from pg_stat_activity where datname = ${ctx.database.name} and pid <> pg_backend_pid()`;
    if (Number(open?.n ?? 0) <= 1) break; // the bench's own second pooled connection may be open
    await Bun.sleep(100);
  }
  await Bun.sleep(200);
  const deadlocksAfter = await deadlockCounts(ctx.database.sql, ctx.database.name);
  const pgLogAfter = postgresLogDeadlocks(settings.pgLogDir, ctx.database.name);
  // The compared variant's logs too: it wrote to the same database.
  const conduitLogTotal = scanLogs([...ctx.conduitLogs, ...variantLogs], []).counts;
  const benchDeadlocks = deadlocksAfter.database - deadlocksBefore.database;
  const dbTrouble = {
    pgStatDeadlocks: { database: [deadlocksBefore.database, deadlocksAfter.database], server: [deadlocksBefore.server, deadlocksAfter.server] },
    postgresLog: pgLogAfter ? { benchDatabase: pgLogAfter.database, allBefore: pgLogBefore?.all ?? null, allAfter: pgLogAfter.all } : null,
    conduitLog: conduitLogTotal,
  };
  usageChecks.push({
    name: "no deadlock in the bench database (pg_stat_database, PostgreSQL log) and none in Conduit's log",
    ok: benchDeadlocks === 0 && (pgLogAfter?.database ?? 0) === 0 && conduitLogTotal.deadlock === 0,
    detail:
      `pg_stat_database.deadlocks ${deadlocksBefore.database} → ${deadlocksAfter.database}; ` +
      `PostgreSQL log: ${pgLogAfter ? `${pgLogAfter.database} 'deadlock detected' lines for this database` : 'not readable'}; ` +
      `Conduit log: ${conduitLogTotal.deadlock} lines naming a deadlock, ${conduitLogTotal.transient} naming a transient database error`,
  });
  return { usageChecks, books, priced, drainMs, deadlocksAfter, pgLogAfter, conduitLogTotal, dbTrouble };
}
