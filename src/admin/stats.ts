// Daily figures for operators, per UTC day:
//   revenue   money paid in: Σ ledger 'topup' (payments the provider confirmed)
//   credits   money operators added or took away: Σ ledger 'admin_credit', negative corrections included;
//             kept apart from revenue because nobody paid for it
//   spend     what usage was charged: Σ usage_records.cost_nano (the unpaid remainder is not spend)
//             (every usage figure here is read from the rollups: the whole service's daily sums,
//             usage_rollups_operator_daily, a few hundred rows for a month however many accounts there are)
//   requests  model requests recorded that day, failed ones included
//   providerCost  what the providers charge us for that usage: Σ usage_records.provider_cost_nano, at the
//             cost prices operators gave route targets; requests whose target has none are left out
//   margin    spend − providerCost over the requests that have a provider cost
// Every day of the range is present, with zeros where nothing happened, so a chart needs no gap filling.
// `byModelProvider` has spend, provider cost and margin per day, model and provider (null cost and margin
// for requests of a target without a cost price, and provider null for rows older than routing).
import { and, gte, inArray, lt, sql } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import { ledgerEntries } from '../gateway/tables';
import { type Billing, usageSpan } from '../gateway';
import { nanoToUnits } from '../money';

const DAY_MS = 86_400_000;

type MarginRow = { day: string; model: string; provider: string | null; priced: boolean; requests: string; spendNano: string; providerCostNano: string };

export interface DailyStatsQuery {
  /** First day, YYYY-MM-DD (UTC). */
  from: string;
  /** Last day, YYYY-MM-DD (UTC), included. */
  to: string;
}

/** The UTC days from `from` to `to`, both included, as YYYY-MM-DD. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

export function createAdminStats({ db, billing }: { db: Database; billing: Pick<Billing, 'flush'> }) {
  /** The figures in exact nano-units: the JSON view rounds them to numbers, the CSV writes every digit. */
  async function dailyExact(query: DailyStatsQuery) {
    // This instance's settlements still waiting for the batch writer belong in today's figures.
    await billing.flush();
    const start = new Date(`${query.from}T00:00:00Z`);
    const end = new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
    const ledgerDay = sql<string>`to_char(${ledgerEntries.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
    // Whole UTC days: the service's daily rollups alone, each group split into the requests that had a
    // provider cost and those that had none.
    const [margins, money] = await Promise.all([
      db.execute(sql`
        select to_char(g.day, 'YYYY-MM-DD') as day, g.model, g.provider, v.priced, v.requests::text as requests, v.spend::text as "spendNano",
          v.provider_cost::text as "providerCostNano"
        from (
          select date_trunc('day', s.at at time zone 'UTC') as day, s.model, s.provider_id as provider,
            sum(s.requests) as requests, sum(s.cost_nano) as spend, sum(s.priced_requests) as priced_requests,
            sum(s.priced_cost_nano) as priced_spend, sum(s.provider_cost_nano) as provider_cost
          from ${usageSpan({ from: start, to: end, utcDays: true, coarse: true })} s
          group by 1, 2, 3
        ) g
        cross join lateral (values
          (false, g.requests - g.priced_requests, g.spend - g.priced_spend, 0::numeric),
          (true, g.priced_requests, g.priced_spend, g.provider_cost)
        ) v(priced, requests, spend, provider_cost)
        where v.requests > 0
        order by 1, 2, 3, 4`),
      db
        .select({
          day: ledgerDay,
          revenueNano: sql<string>`coalesce(sum(${ledgerEntries.amountNano}) filter (where ${ledgerEntries.kind} = 'topup'), 0)::text`,
          creditsNano: sql<string>`coalesce(sum(${ledgerEntries.amountNano}) filter (where ${ledgerEntries.kind} = 'admin_credit'), 0)::text`,
        })
        .from(ledgerEntries)
        .where(and(inArray(ledgerEntries.kind, ['topup', 'admin_credit']), gte(ledgerEntries.createdAt, start), lt(ledgerEntries.createdAt, end)))
        .groupBy(sql`1`),
    ]);
    // A day's requests and spend are the sum of its groups.
    const usageByDay = new Map<string, { requests: number; spendNano: bigint }>();
    const costByDay = new Map<string, { providerCostNano: bigint; marginNano: bigint }>();
    const byModelProvider = rowsOf<MarginRow>(margins).map((m) => {
      const spendNano = BigInt(m.spendNano);
      const dayUsage = usageByDay.get(m.day) ?? { requests: 0, spendNano: 0n };
      dayUsage.requests += Number(m.requests);
      dayUsage.spendNano += spendNano;
      usageByDay.set(m.day, dayUsage);
      if (!m.priced) {
        return { day: m.day, model: m.model, provider: m.provider, requests: Number(m.requests), spend: nanoToUnits(spendNano), providerCost: null, margin: null };
      }
      const providerCostNano = BigInt(m.providerCostNano);
      const day = costByDay.get(m.day) ?? { providerCostNano: 0n, marginNano: 0n };
      day.providerCostNano += providerCostNano;
      day.marginNano += spendNano - providerCostNano;
      costByDay.set(m.day, day);
      return {
        day: m.day,
        model: m.model,
        provider: m.provider,
        requests: Number(m.requests),
        spend: nanoToUnits(spendNano),
        providerCost: nanoToUnits(providerCostNano),
        margin: nanoToUnits(spendNano - providerCostNano),
      };
    });

    const moneyByDay = new Map(money.map((m) => [m.day, m]));
    const totals = { revenueNano: 0n, creditsNano: 0n, spendNano: 0n, providerCostNano: 0n, marginNano: 0n, requests: 0 };
    const days = daysBetween(query.from, query.to).map((day) => {
      const u = usageByDay.get(day);
      const m = moneyByDay.get(day);
      const row = {
        revenueNano: BigInt(m?.revenueNano ?? 0),
        creditsNano: BigInt(m?.creditsNano ?? 0),
        spendNano: BigInt(u?.spendNano ?? 0),
        providerCostNano: costByDay.get(day)?.providerCostNano ?? 0n,
        marginNano: costByDay.get(day)?.marginNano ?? 0n,
        requests: Number(u?.requests ?? 0),
      };
      totals.revenueNano += row.revenueNano;
      totals.creditsNano += row.creditsNano;
      totals.spendNano += row.spendNano;
      totals.providerCostNano += row.providerCostNano;
      totals.marginNano += row.marginNano;
      totals.requests += row.requests;
      return { day, ...row };
    });
    return { from: query.from, to: query.to, days, totals, byModelProvider };
  }

  return {
    dailyExact,
    async daily(query: DailyStatsQuery) {
      const exact = await dailyExact(query);
      return { ...exact, days: exact.days.map(({ day, ...row }) => ({ day, ...shown(row) })), totals: shown(exact.totals) };
    },
  };
}

export type DayFiguresNano = { revenueNano: bigint; creditsNano: bigint; spendNano: bigint; providerCostNano: bigint; marginNano: bigint; requests: number };

function shown(row: DayFiguresNano) {
  return {
    revenue: nanoToUnits(row.revenueNano),
    credits: nanoToUnits(row.creditsNano),
    spend: nanoToUnits(row.spendNano),
    providerCost: nanoToUnits(row.providerCostNano),
    margin: nanoToUnits(row.marginNano),
    requests: row.requests,
  };
}

export type AdminStats = ReturnType<typeof createAdminStats>;
