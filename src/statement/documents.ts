// What the monthly closing documents hold, read from the ledger by UTC calendar month.
// The service is prepaid: money comes first, services are taken from the balance afterwards. So the
// счёт (invoice) of a month lists the payments received in it (top-ups: advances for the service), and
// the акт (certificate of services rendered) lists what was spent in it — requests through the API and
// answers of the user's assistants, each kind one line with its number of requests. Bonuses and an
// operator's credits are neither a payment nor a service: they are in the statement, not in these.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';

/** How many months back the document list reaches. */
export const DOCUMENT_MONTHS = 24;

export interface MonthSummary {
  month: string;
  /** The month that is still running: its documents are not final. */
  current: boolean;
  paidNano: bigint;
  spentNano: bigint;
}

export interface MonthFacts {
  month: string;
  current: boolean;
  /** First and last day of the month (the last: today for the current month), YYYY-MM-DD. */
  from: string;
  to: string;
  payments: { at: string; amountNano: bigint }[];
  services: { kind: 'usage' | 'assistant_usage'; requests: number; amountNano: bigint }[];
}

export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

const monthStart = (month: string) => `${month}-01`;
function nextMonthStart(month: string): string {
  const [year, m] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  return m === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${month.slice(0, 4)}-${String(m + 1).padStart(2, '0')}-01`;
}
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

export function createDocuments(db: Database) {
  return {
    /** The months with payments or spending, newest first, the current month always among them. */
    async months(userId: string, now = new Date()): Promise<MonthSummary[]> {
      const current = monthOf(now);
      const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (DOCUMENT_MONTHS - 1), 1));
      const rows = rowsOf<{ month: string; paid: string; spent: string }>(
        await db.execute(sql`
          select to_char(created_at at time zone 'UTC', 'YYYY-MM') as month,
            coalesce(sum(amount_nano) filter (where kind = 'topup'), 0)::text as paid,
            coalesce(-sum(amount_nano) filter (where kind in ('usage', 'assistant_usage')), 0)::text as spent
          from ledger_entries
          where user_id = ${userId} and created_at >= ${since.toISOString()}::timestamptz and kind in ('topup', 'usage', 'assistant_usage')
          group by 1 order by 1 desc`),
      );
      const months = rows.map((r) => ({ month: r.month, current: r.month === current, paidNano: BigInt(r.paid), spentNano: BigInt(r.spent) }));
      if (!months.some((m) => m.current)) months.unshift({ month: current, current: true, paidNano: 0n, spentNano: 0n });
      return months;
    },

    /** The payments and services of one month (not a month still to come: the caller checks). */
    async month(userId: string, month: string, now = new Date()): Promise<MonthFacts> {
      const start = sql`(${monthStart(month)}::date)::timestamp at time zone 'UTC'`;
      const end = sql`(${nextMonthStart(month)}::date)::timestamp at time zone 'UTC'`;
      const [payments, services] = await Promise.all([
        db.execute(sql`
          select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, amount_nano::text as amount
          from ledger_entries where user_id = ${userId} and kind = 'topup' and created_at >= ${start} and created_at < ${end}
          order by created_at, id`),
        db.execute(sql`
          select kind, (-sum(amount_nano))::text as amount,
            sum(coalesce(nullif(split_part(reference, ':', 2), ''), '0')::bigint)::text as requests
          from ledger_entries where user_id = ${userId} and kind in ('usage', 'assistant_usage') and created_at >= ${start} and created_at < ${end}
          group by kind order by kind desc`),
      ]);
      const current = month === monthOf(now);
      return {
        month,
        current,
        from: monthStart(month),
        to: current ? now.toISOString().slice(0, 10) : dayBefore(nextMonthStart(month)),
        payments: rowsOf<{ at: string; amount: string }>(payments).map((p) => ({ at: p.at, amountNano: BigInt(p.amount) })),
        services: rowsOf<{ kind: 'usage' | 'assistant_usage'; amount: string; requests: string }>(services).map((s) => ({
          kind: s.kind,
          requests: Number(s.requests),
          amountNano: BigInt(s.amount),
        })),
      };
    },
  };
}

export type Documents = ReturnType<typeof createDocuments>;
