// The caller's usage records, newest first, paged by an opaque cursor, with totals over the filter.
import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import type { Database, DatabaseHandle } from '../db/client';
import { apiKeys, usageRecords, users } from '../db/schema';
import { nanoToUnits } from '../money';

export interface UsageQuery {
  limit: number;
  cursor?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  keyId?: string | undefined;
  /** Only this model's requests (the id as the request named it). */
  model?: string | undefined;
}

export interface UsageSummaryQuery {
  from: Date;
  to?: Date | undefined;
  keyId?: string | undefined;
  /** IANA time zone that decides where a day starts, e.g. Europe/Moscow. */
  timeZone: string;
}

const sums = {
  requests: sql<string>`count(*)`,
  promptTokens: sql<string>`coalesce(sum(${usageRecords.promptTokens}), 0)`,
  completionTokens: sql<string>`coalesce(sum(${usageRecords.completionTokens}), 0)`,
  totalTokens: sql<string>`coalesce(sum(${usageRecords.totalTokens}), 0)`,
  costNano: sql<string>`coalesce(sum(${usageRecords.costNano}), 0)`,
  promptCostNano: sql<string>`coalesce(sum(${usageRecords.promptCostNano}), 0)`,
  completionCostNano: sql<string>`coalesce(sum(${usageRecords.completionCostNano}), 0)`,
  unpaidNano: sql<string>`coalesce(sum(${usageRecords.unpaidNano}), 0)`,
};

type SumRow = { [K in keyof typeof sums]: unknown };
const money = (v: unknown) => nanoToUnits(BigInt(v as string | number));

/**
 * Counts come back as strings on postgres.js and numbers on PGlite. `cost` is what was charged;
 * promptCost + completionCost is the price, which exceeds it by `unpaid` only when the balance ran out.
 */
function summed(row: SumRow) {
  return {
    requests: Number(row.requests),
    promptTokens: Number(row.promptTokens),
    completionTokens: Number(row.completionTokens),
    totalTokens: Number(row.totalTokens),
    cost: money(row.costNano),
    promptCost: money(row.promptCostNano),
    completionCost: money(row.completionCostNano),
    unpaid: money(row.unpaidNano),
  };
}

/**
 * One usage record as the CSV export writes it: the record, and the name its key has now. Token counts
 * are numbers from drizzle's keyset pages and bigints from the PostgreSQL cursor (its raw int8); the
 * instant is text, made by PostgreSQL on the cursor (drizzle's postgres.js driver reads timestamps as text).
 */
export type ExportedUsageRow = Omit<typeof usageRecords.$inferSelect, 'promptTokens' | 'completionTokens' | 'totalTokens' | 'createdAt'> & {
  /** ISO 8601 in UTC to the millisecond, as the file writes it. */
  createdAt: string;
  promptTokens: number | bigint;
  completionTokens: number | bigint;
  totalTokens: number | bigint;
  keyName: string | null;
};

/** Column aliases of the cursor's query: the fields of ExportedUsageRow. */
const EXPORT_COLUMNS = `r.id, r.user_id as "userId", r.api_key_id as "apiKeyId", r.agent_id as "agentId",
  r.request_id as "requestId", r.model, r.stream, r.prompt_tokens as "promptTokens",
  r.completion_tokens as "completionTokens", r.total_tokens as "totalTokens", r.cost_nano as "costNano",
  r.prompt_cost_nano as "promptCostNano", r.completion_cost_nano as "completionCostNano",
  r.unpaid_nano as "unpaidNano", r.endpoint, r.status, r.usage_source as "usageSource",
  r.upstream_status as "upstreamStatus", r.error, r.duration_ms as "durationMs", r.provider_id as "providerId",
  r.attempts, r.provider_cost_nano as "providerCostNano",
  to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt", k.name as "keyName"`;

export interface UsageReportOptions {
  /** DatabaseHandle.cursor: set on PostgreSQL, where the export reads through one server-side cursor. */
  cursor?: DatabaseHandle['cursor'];
}

/**
 * Exports reading through a cursor at once. Each holds one of the pool's 10 connections for as long as its
 * client takes to download: beyond this many, an export reads keyset pages instead (a connection only
 * while a page is read), so downloads never starve the settlement writer and the dashboard.
 */
const MAX_CURSOR_EXPORTS = 3;

export function createUsageReport(db: Database, options: UsageReportOptions = {}) {
  let cursorsOpen = 0;
  return {
    /** Whether an account exists: an operator's export of an unknown one is a 404, not an empty file. */
    async accountExists(userId: string): Promise<boolean> {
      const [found] = await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1);
      return found !== undefined;
    },

    /**
     * Every record the filter selects, newest first, `pageSize` at a time, each page read only when the
     * consumer asks for the next, so an export of any length holds one page in memory. Stopping early
     * (`return()`) ends the read: on PostgreSQL the cursor is closed and its connection given back.
     * On PostgreSQL one query through a server-side cursor: one plan and one pass over the index, where
     * each keyset page is a query of its own, planned and started again (issue 30 measured ~1.6 s a page
     * at 670 k rows, unpartitioned). On PGlite, keyset pages by (created_at, id): in this process there is no
     * cursor that does not hold the database's one session for the whole read. Either way rows written
     * after the export began are not in it: the cursor reads one snapshot, the keyset pages only go back
     * in time from the first page.
     */
    async *pages(userId: string, query: Omit<UsageQuery, 'limit' | 'cursor'>, pageSize = 1000): AsyncGenerator<ExportedUsageRow[]> {
      if (options.cursor && cursorsOpen < MAX_CURSOR_EXPORTS) {
        const params: unknown[] = [userId];
        const where = ['r.user_id = $1'];
        if (query.from) where.push(`r.created_at >= $${params.push(query.from.toISOString())}::timestamptz`);
        if (query.to) where.push(`r.created_at < $${params.push(query.to.toISOString())}::timestamptz`);
        if (query.keyId) where.push(`r.api_key_id = $${params.push(query.keyId)}::uuid`);
        const text = `select ${EXPORT_COLUMNS} from usage_records r left join api_keys k on k.id = r.api_key_id
          where ${where.join(' and ')} order by r.created_at desc, r.id desc`;
        cursorsOpen += 1;
        try {
          yield* options.cursor<ExportedUsageRow>(text, params, pageSize);
        } finally {
          cursorsOpen -= 1;
        }
        return;
      }
      const filters: SQL[] = [eq(usageRecords.userId, userId)];
      if (query.from) filters.push(gte(usageRecords.createdAt, query.from));
      if (query.to) filters.push(lt(usageRecords.createdAt, query.to));
      if (query.keyId) filters.push(eq(usageRecords.apiKeyId, query.keyId));
      let after: SQL | undefined;
      for (;;) {
        const rows = await db
          .select({ record: usageRecords, keyName: apiKeys.name, cursorAt: cursorTime(usageRecords.createdAt) })
          .from(usageRecords)
          .leftJoin(apiKeys, eq(apiKeys.id, usageRecords.apiKeyId))
          .where(and(...filters, ...(after ? [after] : [])))
          .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
          .limit(pageSize + 1);
        const { page, nextCursor } = keysetPage(rows, pageSize, (r) => r.record.id);
        if (page.length > 0) yield page.map((r) => ({ ...r.record, createdAt: r.record.createdAt.toISOString(), keyName: r.keyName }));
        if (!nextCursor) return;
        const last = decodeCursor(nextCursor, /^\d{1,19}$/);
        // A row comparison, which the (user_id, created_at, id) index takes as its bound; the OR of
        // afterCursor is only a filter there (~3× slower a page on PGlite).
        after = sql`(${usageRecords.createdAt}, ${usageRecords.id}) < (${last.createdAt}::timestamptz, ${last.id}::bigint)`;
      }
    },

    /**
     * Sums per day (in the caller's time zone) and model, per model, and in all, computed by the database:
     * a chart over months of heavy use needs neither every record nor a page limit.
     */
    async summary(userId: string, query: UsageSummaryQuery) {
      const filters: SQL[] = [eq(usageRecords.userId, userId), gte(usageRecords.createdAt, query.from)];
      if (query.to) filters.push(lt(usageRecords.createdAt, query.to));
      if (query.keyId) filters.push(eq(usageRecords.apiKeyId, query.keyId));
      const where = and(...filters)!;
      const day = sql<string>`to_char(${usageRecords.createdAt} at time zone ${query.timeZone}, 'YYYY-MM-DD')`;
      const [byDay, byModel, [all]] = await Promise.all([
        // By position: the day expression carries the time zone as a parameter, and two parameters are two
        // expressions to PostgreSQL even when they hold the same value.
        db.select({ day, model: usageRecords.model, ...sums }).from(usageRecords).where(where).groupBy(sql`1`, sql`2`).orderBy(sql`1`, sql`2`),
        db.select({ model: usageRecords.model, ...sums }).from(usageRecords).where(where).groupBy(usageRecords.model).orderBy(usageRecords.model),
        db.select(sums).from(usageRecords).where(where),
      ]);
      return {
        timeZone: query.timeZone,
        days: byDay.map((r) => ({ day: r.day, model: r.model, ...summed(r) })),
        models: byModel.map((r) => ({ model: r.model, ...summed(r) })).sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens),
        totals: summed(all!),
      };
    },

    async list(userId: string, query: UsageQuery) {
      const filters: SQL[] = [eq(usageRecords.userId, userId)];
      if (query.from) filters.push(gte(usageRecords.createdAt, query.from));
      if (query.to) filters.push(lt(usageRecords.createdAt, query.to));
      if (query.keyId) filters.push(eq(usageRecords.apiKeyId, query.keyId));
      if (query.model) filters.push(eq(usageRecords.model, query.model));
      const where = and(...filters)!;

      const page = [...filters];
      if (query.cursor) {
        page.push(afterCursor(usageRecords.createdAt, usageRecords.id, decodeCursor(query.cursor, /^\d{1,19}$/), 'desc'));
      }
      const rows = await db
        .select({
          record: usageRecords,
          cursorAt: cursorTime(usageRecords.createdAt),
        })
        .from(usageRecords)
        .where(and(...page))
        .orderBy(desc(usageRecords.createdAt), desc(usageRecords.id))
        .limit(query.limit + 1);
      const [totals] = await db.select(sums).from(usageRecords).where(where);

      const { page: pageRows, nextCursor } = keysetPage(rows, query.limit, (r) => r.record.id);
      return {
        data: pageRows.map(({ record: r }) => ({
          id: r.id.toString(),
          createdAt: r.createdAt.toISOString(),
          model: r.model,
          keyId: r.apiKeyId,
          agentId: r.agentId,
          stream: r.stream,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          totalTokens: r.totalTokens,
          cost: nanoToUnits(r.costNano),
          promptCost: nanoToUnits(r.promptCostNano),
          completionCost: nanoToUnits(r.completionCostNano),
          unpaid: nanoToUnits(r.unpaidNano),
          status: r.status,
          usageSource: r.usageSource,
          durationMs: r.durationMs,
        })),
        nextCursor,
        totals: summed(totals!),
      };
    },
  };
}

export type UsageReport = ReturnType<typeof createUsageReport>;
