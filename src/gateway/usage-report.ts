// The caller's usage records, newest first, paged by an opaque cursor, with totals over the filter; sums
// over periods come from the rollups (usage-rollups.ts).
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { rowsOf, type Database, type DatabaseHandle } from '../db/client';
import { users } from '../accounts/tables';
import { apiKeys } from '../keys/tables';
import { usageRecords } from './tables';
import { nanoToUnits } from '../money';
import { localDaySums, usageSpan } from './usage-rollups';

export interface UsageQuery {
  limit: number;
  cursor?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  keyId?: string | undefined;
  /** Only the keys this member created (an organisation's developer reads their own usage). */
  createdBy?: string | undefined;
  /** Only this model's requests (the id as the request named it). */
  model?: string | undefined;
  /** Only this /v1 endpoint's requests (chat, embeddings, responses, audio_transcriptions, messages). */
  endpoint?: string | undefined;
}

export interface UsageSummaryQuery {
  from: Date;
  to?: Date | undefined;
  keyId?: string | undefined;
  createdBy?: string | undefined;
  /** IANA time zone that decides where a day starts, e.g. Europe/Moscow. */
  timeZone: string;
}

/** The rows of the keys one member created (an organisation's developer reads only those). */
const createdByFilter = (memberId: string) =>
  inArray(usageRecords.apiKeyId, sql`(select ${apiKeys.id} from ${apiKeys} where ${apiKeys.createdBy} = ${memberId}::uuid)`);

/** The sums every usage figure shows, over a usage span (usage-rollups.ts) aliased `s`. */
const spanSums = sql.raw(`coalesce(sum(requests), 0)::text as "requests",
  coalesce(sum(prompt_tokens), 0)::text as "promptTokens",
  coalesce(sum(completion_tokens), 0)::text as "completionTokens",
  coalesce(sum(total_tokens), 0)::text as "totalTokens",
  coalesce(sum(cost_nano), 0)::text as "costNano",
  coalesce(sum(prompt_cost_nano), 0)::text as "promptCostNano",
  coalesce(sum(completion_cost_nano), 0)::text as "completionCostNano",
  coalesce(sum(unpaid_nano), 0)::text as "unpaidNano"`);

type SumRow = {
  requests: unknown;
  promptTokens: unknown;
  completionTokens: unknown;
  totalTokens: unknown;
  costNano: unknown;
  promptCostNano: unknown;
  completionCostNano: unknown;
  unpaidNano: unknown;
};
const money = (v: unknown) => nanoToUnits(BigInt(v as string | number));

/**
 * Sums come back as text (numbers as PGlite would give them are accepted too). `cost` is what was charged;
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
export type ExportedUsageRow = Omit<
  typeof usageRecords.$inferSelect,
  'promptTokens' | 'completionTokens' | 'totalTokens' | 'cachedTokens' | 'cacheWriteTokens' | 'reasoningTokens' | 'createdAt'
> & {
  /** ISO 8601 in UTC to the millisecond, as the file writes it. */
  createdAt: string;
  promptTokens: number | bigint;
  completionTokens: number | bigint;
  totalTokens: number | bigint;
  cachedTokens: number | bigint;
  cacheWriteTokens: number | bigint;
  reasoningTokens: number | bigint;
  keyName: string | null;
};

/** Column aliases of the cursor's query: the fields of ExportedUsageRow. */
const EXPORT_COLUMNS = `r.id, r.user_id as "userId", r.api_key_id as "apiKeyId", r.agent_id as "agentId",
  r.request_id as "requestId", r.model, r.stream, r.prompt_tokens as "promptTokens",
  r.completion_tokens as "completionTokens", r.total_tokens as "totalTokens", r.cost_nano as "costNano",
  r.prompt_cost_nano as "promptCostNano", r.completion_cost_nano as "completionCostNano",
  r.unpaid_nano as "unpaidNano", r.endpoint, r.status, r.usage_source as "usageSource",
  r.upstream_status as "upstreamStatus", r.error, r.duration_ms as "durationMs", r.provider_id as "providerId",
  r.attempts, r.provider_cost_nano as "providerCostNano", r.audio_ms as "audioMs",
  r.cached_tokens as "cachedTokens", r.cache_write_tokens as "cacheWriteTokens", r.reasoning_tokens as "reasoningTokens",
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
        if (query.createdBy) where.push(`k.created_by = $${params.push(query.createdBy)}::uuid`);
        if (query.model) where.push(`r.model = $${params.push(query.model)}`);
        if (query.endpoint) where.push(`r.endpoint = $${params.push(query.endpoint)}`);
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
      if (query.createdBy) filters.push(createdByFilter(query.createdBy));
      if (query.model) filters.push(eq(usageRecords.model, query.model));
      if (query.endpoint) filters.push(eq(usageRecords.endpoint, query.endpoint));
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
     * Sums per day (in the caller's time zone) and model, per model, and in all, from the rollups (plus the
     * rows of the quarter hours `from` and `to` cut): a chart over months of heavy use reads a few
     * thousand sums, not every record. One pass: summed per day and model first (the day computed per
     * row as a cheap truncation, formatted once per group), then the three levels as grouping sets.
     */
    async summary(userId: string, query: UsageSummaryQuery) {
      const span = localDaySums({ userId, keyId: query.keyId, createdBy: query.createdBy, from: query.from, to: query.to }, query.timeZone);
      const rows = rowsOf<SumRow & { day: string | null; model: string | null; level: unknown }>(
        await db.execute(sql`
          select to_char(day, 'YYYY-MM-DD') as day, model, grouping(day, model) as level, ${spanSums}
          from (
            select s.day, s.model, sum(s.requests) as requests,
              sum(s.prompt_tokens) as prompt_tokens, sum(s.completion_tokens) as completion_tokens,
              sum(s.total_tokens) as total_tokens, sum(s.cost_nano) as cost_nano, sum(s.prompt_cost_nano) as prompt_cost_nano,
              sum(s.completion_cost_nano) as completion_cost_nano, sum(s.unpaid_nano) as unpaid_nano
            from ${span} s group by 1, 2
            -- A day whose every request was moved to its neighbour (localDaySums) is no day of the summary.
            having sum(s.requests) <> 0
          ) d
          group by grouping sets ((day, model), (model), ())
          order by d.day, model`),
      );
      const days = rows.filter((r) => Number(r.level) === 0);
      const models = rows.filter((r) => Number(r.level) === 2);
      const all = rows.find((r) => Number(r.level) === 3);
      return {
        timeZone: query.timeZone,
        days: days.map((r) => ({ day: r.day!, model: r.model!, ...summed(r) })),
        models: models.map((r) => ({ model: r.model!, ...summed(r) })).sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens),
        totals: summed(all!),
      };
    },

    async list(userId: string, query: UsageQuery) {
      const filters: SQL[] = [eq(usageRecords.userId, userId)];
      if (query.from) filters.push(gte(usageRecords.createdAt, query.from));
      if (query.to) filters.push(lt(usageRecords.createdAt, query.to));
      if (query.keyId) filters.push(eq(usageRecords.apiKeyId, query.keyId));
      if (query.createdBy) filters.push(createdByFilter(query.createdBy));
      if (query.model) filters.push(eq(usageRecords.model, query.model));
      if (query.endpoint) filters.push(eq(usageRecords.endpoint, query.endpoint));
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
      // Over the whole filter, not the page: from the rollups and the rows of the cut quarter hours.
      const [totals] = rowsOf<SumRow>(
        await db.execute(
          sql`select ${spanSums} from ${usageSpan({ userId, keyId: query.keyId, createdBy: query.createdBy, model: query.model, endpoint: query.endpoint, from: query.from, to: query.to, utcDays: true, coarse: true })} s`,
        ),
      );

      const { page: pageRows, nextCursor } = keysetPage(rows, query.limit, (r) => r.record.id);
      return {
        data: pageRows.map(({ record: r }) => ({
          id: r.id.toString(),
          createdAt: r.createdAt.toISOString(),
          model: r.model,
          endpoint: r.endpoint,
          keyId: r.apiKeyId,
          agentId: r.agentId,
          stream: r.stream,
          promptTokens: r.promptTokens,
          completionTokens: r.completionTokens,
          totalTokens: r.totalTokens,
          cachedTokens: r.cachedTokens,
          cacheWriteTokens: r.cacheWriteTokens,
          reasoningTokens: r.reasoningTokens,
          cost: nanoToUnits(r.costNano),
          promptCost: nanoToUnits(r.promptCostNano),
          completionCost: nanoToUnits(r.completionCostNano),
          unpaid: nanoToUnits(r.unpaidNano),
          status: r.status,
          usageSource: r.usageSource,
          durationMs: r.durationMs,
          audioSeconds: r.audioMs === null ? null : r.audioMs / 1000,
        })),
        nextCursor,
        totals: summed(totals!),
      };
    },
  };
}

export type UsageReport = ReturnType<typeof createUsageReport>;
