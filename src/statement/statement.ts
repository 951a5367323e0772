// The statement of account: every change of a user's balance in a period, read from the ledger (the
// one record whose sum is the balance), with the balance before, after each line, and at the end.
// Money that comes in is a line per ledger row; spending is settled in batches (a ledger row per batch,
// gateway/billing/rows.ts), so it is shown as one line per day and kind — requests through the API,
// answers of the user's assistants — with the number of requests. A day's spending line comes after that
// day's other lines: the running balance is exact at the end of each day, not between a day's requests.
// Operator credits carry the reason the operator gave (from the audit row written in the same transaction).
import { sql } from 'drizzle-orm';
import { rowsOf, type Database, type Executor } from '../db/client';
import { operationLabel, requestsText, statementMessages } from './texts';

export interface StatementLine {
  /** When it happened (ISO); for a day's spending, the last settlement of the day. */
  at: string;
  /** The day in the statement's time zone, YYYY-MM-DD. */
  day: string;
  kind: string;
  title: string;
  /** The operator's reason, a request count, a payment reference: null when there is nothing to add. */
  detail: string | null;
  amountNano: bigint;
  balanceAfterNano: bigint;
  /** Spending lines: how many requests the day's line sums. */
  requests: number | null;
}

export interface Statement {
  from: string;
  to: string;
  timeZone: string;
  openingNano: bigint;
  closingNano: bigint;
  creditsNano: bigint;
  debitsNano: bigint;
  lines: StatementLine[];
}

const SPENDING_KINDS = ['usage', 'assistant_usage'];

interface RawLine {
  at: string;
  day: string;
  kind: string;
  amount: string;
  reference: string | null;
  reason: string | null;
  requests: string | null;
  /** Sorts a day's spending after the day's other lines. */
  spending: boolean;
}

/** A day after `day` (YYYY-MM-DD), as text. */
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

function detailOf(line: RawLine): string | null {
  if (line.requests !== null) return requestsText(Number(line.requests));
  if (line.kind === 'admin_credit') return line.reason;
  // Bank transfers (bank-statements/): `bank:<payment>` from a statement, `invoice:<number>` marked paid by hand.
  if (line.kind === 'topup' && line.reference?.startsWith('bank:')) return statementMessages.bankTransfer(null);
  if (line.kind === 'topup' && line.reference?.startsWith('invoice:')) return statementMessages.bankTransfer(line.reference.slice('invoice:'.length));
  return null;
}

export function createStatements(db: Database) {
  /**
   * The balance at the first instant of `day` in `timeZone`: what the account holds now (the balance plus
   * its leases, which equal the ledger's sum at every commit) less the ledger since then. Read back from
   * now rather than summed from the account's first row: a busy account has a ledger row per settlement
   * batch, and the periods asked for are mostly recent.
   */
  async function balanceBefore(executor: Executor, userId: string, day: string, timeZone: string): Promise<bigint> {
    const [row] = rowsOf<{ total: string | null }>(
      await executor.execute(sql`
        select (u.balance_nano
          + coalesce((select sum(b.amount_nano) from balance_leases b where b.user_id = u.id), 0)
          - coalesce((select sum(l.amount_nano) from ledger_entries l
              where l.user_id = u.id and l.created_at >= (${day}::date)::timestamp at time zone ${timeZone}), 0))::text as total
        from users u where u.id = ${userId}`),
    );
    return BigInt(row?.total ?? '0');
  }

  return {
    /** Lines of the days `from`..`to` (both included) in `timeZone`, oldest first. */
    async statement(userId: string, input: { from: string; to: string; timeZone: string }): Promise<Statement> {
      const { from, to, timeZone } = input;
      const start = sql`(${from}::date)::timestamp at time zone ${timeZone}`;
      const end = sql`(${nextDay(to)}::date)::timestamp at time zone ${timeZone}`;
      const spending = sql.join(
        SPENDING_KINDS.map((k) => sql`${k}`),
        sql`, `,
      );
      // One snapshot for the opening balance and the lines, so a settlement committed between the two reads
      // cannot make the closing balance differ from the opening plus the lines.
      const { openingNano, raw } = await db.transaction(
        async (tx) => ({
          openingNano: await balanceBefore(tx, userId, from, timeZone),
          raw: await tx.execute(sql`
          select to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
            to_char(l.created_at at time zone ${timeZone}, 'YYYY-MM-DD') as day, l.kind, l.amount_nano::text as amount,
            l.reference, a.after ->> 'reason' as reason, null::text as requests, false as spending
          from ledger_entries l
          left join admin_audit a on l.kind = 'admin_credit' and a.action = 'user.credit' and a.target_id = ${userId}
            and a.after ->> 'ledgerEntryId' = l.id::text
          where l.user_id = ${userId} and l.created_at >= ${start} and l.created_at < ${end} and l.kind not in (${spending})
          union all
          select to_char(max(created_at) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            to_char(created_at at time zone ${timeZone}, 'YYYY-MM-DD'), kind, sum(amount_nano)::text, null, null,
            sum(coalesce(nullif(split_part(reference, ':', 2), ''), '0')::bigint)::text, true
          from ledger_entries
          where user_id = ${userId} and created_at >= ${start} and created_at < ${end} and kind in (${spending})
          group by 2, kind
          order by day, spending, at, kind`),
        }),
        { isolationLevel: 'repeatable read', accessMode: 'read only' },
      );
      let balance = openingNano;
      let creditsNano = 0n;
      let debitsNano = 0n;
      const lines = rowsOf<RawLine>(raw).map((row): StatementLine => {
        const amountNano = BigInt(row.amount);
        balance += amountNano;
        if (amountNano >= 0n) creditsNano += amountNano;
        else debitsNano += amountNano;
        return {
          at: row.at,
          day: row.day,
          kind: row.kind,
          title: operationLabel(row.kind, amountNano),
          detail: detailOf(row),
          amountNano,
          balanceAfterNano: balance,
          requests: row.requests === null ? null : Number(row.requests),
        };
      });
      return { from, to, timeZone, openingNano, closingNano: balance, creditsNano, debitsNano, lines };
    },
  };
}

export type Statements = ReturnType<typeof createStatements>;
