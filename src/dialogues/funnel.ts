// The agent's funnel on its results page, per week: the clients whose first message fell in that week (the
// week's cohort of dialogues), how many of them booked (Service) or ordered (E-commerce) in their dialogue,
// how many of those came to the visit or paid, and (Service) how many scored the visit after it — with each
// step's conversion from the one before, and the week's average score.
//
// A visit is a booking that was not cancelled and whose time has passed, unless YCLIENTS said the client did
// not come (attendance -1, read by the after-visit sync); a review is a score the client gave. Weeks start on Monday in the agent's time zone (its working hours', else YCLIENTS_TIME_ZONE),
// and go back at most 12 weeks: a dialogue's turns are kept 90 days, so an older first message is unknown.
import { sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Agent } from '../agents';
import { rowsOf, type Database } from '../db/client';
import type { funnelView } from './input';

export type FunnelView = z.output<typeof funnelView>;
type StepKey = 'dialogues' | 'bookings' | 'visits' | 'reviews' | 'orders' | 'payments';

/** The steps of an agent's funnel, by its type: a Creator agent neither books nor sells. */
const STEPS: Record<Agent['type'], StepKey[]> = {
  service: ['dialogues', 'bookings', 'visits', 'reviews'],
  ecommerce: ['dialogues', 'orders', 'payments'],
  creator: ['dialogues'],
};

const ratio = (count: number, previous: number) => (previous > 0 ? Math.round((count / previous) * 1000) / 1000 : null);

export function createFunnel({ db, defaultTimeZone }: { db: Database; defaultTimeZone: string }) {
  return {
    async of(agent: Pick<Agent, 'id' | 'type' | 'workingHours'>, weeks: number): Promise<FunnelView> {
      const timeZone = agent.workingHours?.timeZone ?? defaultTimeZone;
      const rows = rowsOf<Record<StepKey, string> & { week: string; score_sum: string | null; scored: string }>(
        await db.execute(sql`
          with weeks as (
            select generate_series(date_trunc('week', now() at time zone ${timeZone}) - make_interval(weeks => ${weeks - 1}),
                                   date_trunc('week', now() at time zone ${timeZone}), interval '1 week') as week
          ), starts as (
            select d.id, date_trunc('week', min(m.created_at) at time zone ${timeZone}) as week
              from dialogues d
              join dialogue_messages m on m.dialogue_id = d.id and m.role = 'user'
             where d.agent_id = ${agent.id}
             group by d.id
          ), scores as (
            select s.week, sum(r.score)::text as score_sum, count(*) as scored
              from starts s join visit_reviews r on r.dialogue_id = s.id
             group by s.week
          )
          select to_char(w.week, 'YYYY-MM-DD') as week,
                 count(s.id)::text as dialogues,
                 count(s.id) filter (where exists (select 1 from appointments a
                   where a.dialogue_id = s.id and a.status = 'booked'))::text as bookings,
                 count(s.id) filter (where exists (select 1 from appointments a
                   where a.dialogue_id = s.id and a.status = 'booked' and a.starts_at <= now() and coalesce(a.attendance, 0) <> -1))::text as visits,
                 count(s.id) filter (where exists (select 1 from visit_reviews r where r.dialogue_id = s.id))::text as reviews,
                 max(sc.score_sum) as score_sum, coalesce(max(sc.scored), 0)::text as scored,
                 count(s.id) filter (where exists (select 1 from orders o where o.dialogue_id = s.id))::text as orders,
                 count(s.id) filter (where exists (select 1 from orders o
                   where o.dialogue_id = s.id and o.status = 'paid'))::text as payments
            from weeks w left join starts s on s.week = w.week left join scores sc on sc.week = w.week
           group by w.week
           order by w.week`),
      );
      const keys = STEPS[agent.type];
      const stepsOf = (counts: Record<StepKey, number>) =>
        keys.map((key, i) => ({ key, count: counts[key], conversion: i === 0 ? null : ratio(counts[key], counts[keys[i - 1]!]) }));
      const total: Record<StepKey, number> = { dialogues: 0, bookings: 0, visits: 0, reviews: 0, orders: 0, payments: 0 };
      const average = (sum: number, n: number) => (n > 0 ? Math.round((sum / n) * 10) / 10 : null);
      let scoreSum = 0;
      let scored = 0;
      const perWeek = rows.map((r) => {
        const counts = Object.fromEntries(keys.map((k) => [k, Number(r[k])])) as Record<StepKey, number>;
        for (const k of keys) total[k] += counts[k];
        scoreSum += Number(r.score_sum ?? 0);
        scored += Number(r.scored);
        return {
          weekStart: r.week,
          steps: stepsOf(counts),
          ...(agent.type === 'service' ? { averageScore: average(Number(r.score_sum ?? 0), Number(r.scored)) } : {}),
        };
      });
      return {
        timeZone,
        steps: keys,
        weeks: perWeek,
        total: stepsOf(total),
        ...(agent.type === 'service' ? { averageScore: average(scoreSum, scored) } : {}),
      };
    },
  };
}

export type Funnel = ReturnType<typeof createFunnel>;
