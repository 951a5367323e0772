// An agent's results over a period: how many clients it talked to and how, what it escalated, booked
// and sold (and how much of it the model did through its tools), and what its model answers cost the owner. Counted from the same rows the inbox shows, so
// the figures match the transcripts (turns older than their 90-day retention are no longer counted).
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { rowsOf, type Database } from '../db/client';
import { orders } from '../commerce/tables';
import { appointments } from '../integrations/booking/tables';
import { escalations } from '../integrations/messenger/tables';
import { dialogueMessages, dialogues } from './tables';
import { usageSpan } from '../gateway';
import { minorToDecimal } from '../commerce';
import { EARLIEST_INSTANT_MS } from '../http/date-input';
import { AppError } from '../http/errors';
import { dialoguesMessages } from './texts';
import { nanoToUnits } from '../money';
import type { z } from 'zod';
import type { resultsView } from './input';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;
/** Bookings and orders listed by name on the agent's page; the counts cover the whole period. */
const LIST_LIMIT = 20;

export type ResultsView = z.output<typeof resultsView>;

export function createResults({ db, currency }: { db: Database; currency: string }) {
  const count = sql<string>`count(*)::text`;
  const between = (column: Parameters<typeof gte>[0], from: Date, to: Date) => and(gte(column, from), lt(column, to));

  return {
    async of(agentId: string, period: { from?: Date | undefined; to?: Date | undefined }): Promise<ResultsView> {
      const to = period.to ?? new Date();
      const from = period.from ?? new Date(Math.max(to.getTime() - DEFAULT_DAYS * DAY_MS, EARLIEST_INSTANT_MS));
      if (from.getTime() >= to.getTime() || to.getTime() - from.getTime() > MAX_DAYS * DAY_MS) {
        throw new AppError('invalid_request_error', dialoguesMessages.resultsPeriodInvalid(MAX_DAYS));
      }
      const [turns] = await db
        .select({
          dialogues: sql<string>`count(distinct ${dialogueMessages.dialogueId})::text`,
          // Tool turns record what the model did, not a message anyone wrote.
          // Nor are the client's button presses: the counts are of messages written.
          // Nor the owner's internal notes, which no client got.
          total: sql<string>`count(*) filter (where ${dialogueMessages.role} not in ('tool', 'note') and ${dialogueMessages.kind} is null)::text`,
          client: sql<string>`count(*) filter (where ${dialogueMessages.role} = 'user' and ${dialogueMessages.kind} is null)::text`,
          // An answer kept unsent after a takeover (kind unsent) was never a message the client got.
          assistant: sql<string>`count(*) filter (where ${dialogueMessages.role} = 'assistant' and ${dialogueMessages.kind} is null)::text`,
          operator: sql<string>`count(*) filter (where ${dialogueMessages.role} = 'operator')::text`,
        })
        .from(dialogueMessages)
        .innerJoin(dialogues, eq(dialogues.id, dialogueMessages.dialogueId))
        .where(and(eq(dialogues.agentId, agentId), between(dialogueMessages.createdAt, from, to)));
      const [escalated] = await db
        .select({ n: count })
        .from(escalations)
        .where(and(eq(escalations.agentId, agentId), between(escalations.createdAt, from, to)));
      const [booked] = await db
        .select({
          n: count,
          model: sql<string>`count(*) filter (where ${appointments.source} = 'model')::text`,
          buttons: sql<string>`count(*) filter (where ${appointments.source} = 'button')::text`,
        })
        .from(appointments)
        .where(and(eq(appointments.agentId, agentId), eq(appointments.status, 'booked'), between(appointments.createdAt, from, to)));
      const [created] = await db
        .select({ n: count, byModel: sql<string>`count(*) filter (where ${orders.source} = 'model')::text` })
        .from(orders)
        .where(and(eq(orders.agentId, agentId), between(orders.createdAt, from, to)));
      const paid = await db
        .select({
          currency: orders.currency,
          n: count,
          byModel: sql<string>`count(*) filter (where ${orders.source} = 'model')::text`,
          totalMinor: sql<string>`sum(${orders.totalMinor})::text`,
        })
        .from(orders)
        .where(and(eq(orders.agentId, agentId), eq(orders.status, 'paid'), between(orders.paidAt, from, to)))
        .groupBy(orders.currency)
        .orderBy(orders.currency);
      // The bookings and orders themselves, newest first: who, what, when, and whether the model or the buttons made them.
      // Names come from the booking system's cached lists (stale names beat bare ids; none when never fetched).
      const cachedName = (key: string, field: string, id: SQL) => sql<string | null>`(select e->>${field}
        from booking_cache c, jsonb_array_elements(case when jsonb_typeof(c.value) = 'array' then c.value else '[]'::jsonb end) e
        where c.agent_id = ${agentId} and c.key = ${key} and e->>'id' = (${id})::text limit 1)`;
      const bookingRows = await db
        .select({
          row: appointments,
          specialistName: cachedName('staff', 'name', sql`${appointments.staffId}`),
          serviceTitle: cachedName('services', 'title', sql`${appointments.externalServiceId}`),
        })
        .from(appointments)
        .where(and(eq(appointments.agentId, agentId), eq(appointments.status, 'booked'), between(appointments.createdAt, from, to)))
        .orderBy(desc(appointments.createdAt), desc(appointments.id))
        .limit(LIST_LIMIT);
      const orderRows = await db
        .select()
        .from(orders)
        .where(and(eq(orders.agentId, agentId), between(orders.createdAt, from, to)))
        .orderBy(desc(orders.createdAt), desc(orders.id))
        .limit(LIST_LIMIT);
      // The agent's rollups over the whole days and quarter hours of the period, its rows over the cut ones.
      const [spend] = rowsOf<{ requests: string; tokens: string; costNano: string }>(
        await db.execute(sql`
          select coalesce(sum(s.requests), 0)::text as requests, coalesce(sum(s.total_tokens), 0)::text as tokens,
            coalesce(sum(s.cost_nano), 0)::text as "costNano"
          from ${usageSpan({ agentId, from, to, utcDays: true })} s`),
      );
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        dialogues: Number(turns?.dialogues ?? 0),
        messages: {
          total: Number(turns?.total ?? 0),
          client: Number(turns?.client ?? 0),
          assistant: Number(turns?.assistant ?? 0),
          operator: Number(turns?.operator ?? 0),
        },
        escalations: Number(escalated?.n ?? 0),
        bookings: Number(booked?.n ?? 0),
        bookingsByModel: Number(booked?.model ?? 0),
        bookingsByButtons: Number(booked?.buttons ?? 0),
        orders: {
          created: Number(created?.n ?? 0),
          paid: paid.reduce((sum, p) => sum + Number(p.n), 0),
          paidTotals: paid.map((p) => ({ currency: p.currency, amount: minorToDecimal(Number(p.totalMinor)) })),
        },
        ordersByModel: {
          created: Number(created?.byModel ?? 0),
          paid: paid.reduce((sum, p) => sum + Number(p.byModel), 0),
        },
        recentBookings: bookingRows.map(({ row, specialistName, serviceTitle }) => ({
          id: row.id,
          clientName: row.clientName,
          clientPhone: row.clientPhone,
          specialist: specialistName ?? row.specialistId,
          service: serviceTitle ?? row.serviceId,
          datetime: row.datetime,
          source: row.source,
          createdAt: row.createdAt.toISOString(),
        })),
        recentOrders: orderRows.map((o) => ({
          id: o.id,
          number: o.number,
          status: o.status,
          items: o.items.map((i) => ({ title: i.title, quantity: i.quantity })),
          total: minorToDecimal(o.totalMinor),
          currency: o.currency,
          clientPhone: o.clientPhone,
          source: o.source,
          createdAt: o.createdAt.toISOString(),
        })),
        modelSpend: {
          requests: Number(spend?.requests ?? 0),
          tokens: Number(spend?.tokens ?? 0),
          cost: nanoToUnits(BigInt(spend?.costNano ?? '0')),
          currency,
        },
      };
    },
  };
}

export type Results = ReturnType<typeof createResults>;
