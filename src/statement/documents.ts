// What the monthly closing document holds, read from the ledger by calendar month in Moscow time.
// The service is prepaid: money comes first (a счёт на оплату is issued for an amount before paying,
// invoices.ts), services are taken from the balance afterwards. The акт (certificate of services rendered) of
// a month lists what was spent in it — requests through the API and answers of the user's assistants, each
// kind one line with its number of requests. The month list also shows the month's payments, for reference.
// Bonuses and an operator's credits are neither a payment nor a service: they are in the statement only.
import { sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import { DOCUMENT_TIME_ZONE, moscowDay, moscowMonth } from './moscow';

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
  /** First and last day of the month (the last: today for the current month), YYYY-MM-DD, Moscow time. */
  from: string;
  to: string;
  services: { kind: 'usage' | 'assistant_usage'; requests: number; amountNano: bigint }[];
}

/** The month a moment belongs to in the documents' calendar (Moscow time). */
export const monthOf = moscowMonth;

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
      const [year, m] = [Number(current.slice(0, 4)), Number(current.slice(5, 7))];
      const first = new Date(Date.UTC(year, m - 1 - (DOCUMENT_MONTHS - 1), 1)).toISOString().slice(0, 10);
      const since = sql`(${first}::date)::timestamp at time zone ${DOCUMENT_TIME_ZONE}`;
      const rows = rowsOf<{ month: string; paid: string; spent: string }>(
        await db.execute(sql`
          select to_char(created_at at time zone ${DOCUMENT_TIME_ZONE}, 'YYYY-MM') as month,
            coalesce(sum(amount_nano) filter (where kind = 'topup'), 0)::text as paid,
            coalesce(-sum(amount_nano) filter (where kind in ('usage', 'assistant_usage')), 0)::text as spent
          from ledger_entries
          where user_id = ${userId} and created_at >= ${since} and kind in ('topup', 'usage', 'assistant_usage')
          group by 1 order by 1 desc`),
      );
      const months = rows.map((r) => ({ month: r.month, current: r.month === current, paidNano: BigInt(r.paid), spentNano: BigInt(r.spent) }));
      if (!months.some((m) => m.current)) months.unshift({ month: current, current: true, paidNano: 0n, spentNano: 0n });
      return months;
    },

    /** The services of one month (not a month still to come: the caller checks). */
    async month(userId: string, month: string, now = new Date()): Promise<MonthFacts> {
      const start = sql`(${monthStart(month)}::date)::timestamp at time zone ${DOCUMENT_TIME_ZONE}`;
      const end = sql`(${nextMonthStart(month)}::date)::timestamp at time zone ${DOCUMENT_TIME_ZONE}`;
      const services = await db.execute(sql`
          select kind, (-sum(amount_nano))::text as amount,
            sum(coalesce(nullif(split_part(reference, ':', 2), ''), '0')::bigint)::text as requests
          from ledger_entries where user_id = ${userId} and kind in ('usage', 'assistant_usage') and created_at >= ${start} and created_at < ${end}
          group by kind order by kind desc`);
      const current = month === monthOf(now);
      return {
        month,
        current,
        from: monthStart(month),
        to: current ? moscowDay(now) : dayBefore(nextMonthStart(month)),
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
