// The settlement journal's lines and their replay at start. Every settlement is appended to the journal
// (journal.ts) before the answer's last byte leaves: a plain settlement's line is its batch row
// (rows.ts serialize), one that outgrew its lease has a line of its own (overageLine), since its figures
// are known only when it is written. An instance that starts on a DATA_DIR writes the settlements that
// instances which died there had journaled and the database does not have, before anything else.
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/client';
import { encodeRow, openJournal, recoverJournal, type Journal } from '../journal';
import type { BillingContext } from './context';
import { rowObject, storableText, type Pending } from './rows';
import type { UsageFacts, UsageStatus } from './types';

/**
 * The journal line of a settlement that outgrew its lease: everything but the callbacks, amounts as
 * tagged strings ("125n"). A plain settlement's line is its database row (Pending.json).
 */
export function overageLine(row: Pending): string {
  const { overage, segment: _segment, json: _json, ...rest } = row;
  const tag = (n: bigint) => `${n}n`;
  // The cost price was used up in providerCostNano; its BigInts would only make the line tagged twice over.
  const { providerPrice: _price, ...facts } = row.facts;
  return encodeRow({
    ...rest,
    facts,
    providerCostNano: row.providerCostNano === null ? null : tag(row.providerCostNano),
    promptCostNano: tag(row.promptCostNano),
    completionCostNano: tag(row.completionCostNano),
    costNano: tag(row.costNano),
    overage: overage
      ? {
          keyId: overage.keyId,
          fromBalanceNano: tag(overage.fromBalanceNano),
          keyLeaseCostNano: tag(overage.keyLeaseCostNano),
          fromKeyBudgetNano: tag(overage.fromKeyBudgetNano),
          member: overage.member,
          memberLeaseCostNano: tag(overage.memberLeaseCostNano),
          fromMemberBudgetNano: tag(overage.fromMemberBudgetNano),
        }
      : null,
  });
}

/** A journal line back into a queued settlement: a database row (plain settlements) or an overage line. */
function fromJournal(entry: unknown): Pending {
  const row = (Array.isArray(entry) ? rowObject(entry) : entry) as Record<string, unknown>;
  if (typeof row.user_id !== 'string') {
    // An overage line: its amounts are tagged strings ("125n"), untagged here by name.
    const line = entry as Omit<Pending, 'overage'> & { overage: Record<string, unknown> | null };
    const amount = (v: unknown) => BigInt(String(v).replace(/n$/, ''));
    const o = line.overage;
    return {
      facts: line.facts,
      promptCostNano: amount(line.promptCostNano),
      completionCostNano: amount(line.completionCostNano),
      costNano: amount(line.costNano),
      providerCostNano: line.providerCostNano === null || line.providerCostNano === undefined ? null : amount(line.providerCostNano),
      leaseId: line.leaseId ?? null,
      keyLeaseId: line.keyLeaseId ?? null,
      memberLeaseId: line.memberLeaseId ?? null,
      member: line.member ?? null,
      overage: o
        ? {
            keyId: typeof o.keyId === 'string' ? o.keyId : null,
            fromBalanceNano: amount(o.fromBalanceNano),
            keyLeaseCostNano: amount(o.keyLeaseCostNano),
            fromKeyBudgetNano: amount(o.fromKeyBudgetNano),
            // Lines journaled before member limits have none of these.
            member: (o.member as { organizationId: string; memberId: string } | undefined) ?? null,
            memberLeaseCostNano: o.memberLeaseCostNano === undefined ? 0n : amount(o.memberLeaseCostNano),
            fromMemberBudgetNano: o.fromMemberBudgetNano === undefined ? 0n : amount(o.fromMemberBudgetNano),
            done: () => {},
          }
        : null,
      createdAt: new Date(line.createdAt),
      json: undefined,
      segment: null,
    };
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const facts: UsageFacts = {
    userId: row.user_id,
    apiKeyId: text(row.api_key_id),
    agentId: text(row.agent_id),
    requestId: text(row.request_id) ?? '',
    endpoint: (text(row.endpoint) ?? 'chat') as UsageFacts['endpoint'],
    model: text(row.model) ?? '',
    stream: row.stream === true,
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    totalTokens: Number(row.total_tokens),
    status: row.status as UsageStatus,
    usageSource: row.usage_source as UsageFacts['usageSource'],
    upstreamStatus: typeof row.upstream_status === 'number' ? row.upstream_status : null,
    error: text(row.error),
    durationMs: Number(row.duration_ms),
    providerId: text(row.provider_id),
    attempts: typeof row.attempts === 'number' ? row.attempts : null,
    audioMs: typeof row.audio_ms === 'number' ? row.audio_ms : null,
    // Lines journaled before issue 45 have none of these: no cache tokens, no reasoning.
    cachedTokens: Number(row.cached_tokens ?? 0),
    cacheWriteTokens: Number(row.cache_write_tokens ?? 0),
    reasoningTokens: Number(row.reasoning_tokens ?? 0),
  };
  return {
    facts,
    promptCostNano: BigInt(String(row.prompt_cost_nano)),
    completionCostNano: BigInt(String(row.completion_cost_nano)),
    costNano: BigInt(String(row.cost_nano)),
    // Null on lines journaled before cost prices.
    providerCostNano: row.provider_cost_nano === null || row.provider_cost_nano === undefined ? null : BigInt(String(row.provider_cost_nano)),
    leaseId: text(row.lease_id),
    keyLeaseId: text(row.key_lease_id),
    memberLeaseId: text(row.member_lease_id),
    member: null,
    overage: null,
    createdAt: new Date(String(row.created_at)),
    json: undefined,
    segment: null,
  };
}

/**
 * Which of these settlements already have their usage row (a batch may have committed just before the
 * crash, its journal lines not yet released), by their positions in `rows`. Matched by user, request id
 * and settlement time, through the (user_id, created_at) index: the request id alone is the client's own
 * X-Request-Id when it sent one, and may repeat (the same id on every request would have skipped them all).
 */
async function settlementsWritten(ctx: BillingContext, rows: Pending[]): Promise<Set<number>> {
  const written = new Set<number>();
  for (let from = 0; from < rows.length; from += 1000) {
    const slice = JSON.stringify(rows.slice(from, from + 1000).map((r, i) => [from + i, r.facts.userId, storableText(r.facts.requestId), r.createdAt.toISOString()]));
    const found = rowsOf<{ i: number }>(
      await ctx.db.execute(sql`
          select (e->>0)::int as i from jsonb_array_elements(${slice}::jsonb) e
          where exists (
            select 1 from usage_records u
            where u.user_id = (e->>1)::uuid and u.created_at = (e->>3)::timestamptz
              and u.request_id is not distinct from e->>2)`),
    );
    for (const row of found) written.add(Number(row.i));
  }
  return written;
}

/** The settlement writer (writer.ts), as far as the replay uses it. */
export interface ReplayTarget {
  journal: Journal | null;
  enqueue(row: Pending): void;
  flush(): Promise<void>;
  readonly backlog: number;
}

/**
 * Opens this instance's journal in `dir` and writes the settlements of instances that died before the
 * database had them, first of all. They are appended to this instance's own journal as they are queued,
 * so their old files can go.
 */
export async function replayJournal(ctx: BillingContext, dir: string, writer: ReplayTarget): Promise<void> {
  const recovered = recoverJournal(dir, ctx.instanceId);
  writer.journal = openJournal(dir, ctx.instanceId);
  if (recovered.rows.length === 0) return;
  const rows = recovered.rows.map(fromJournal);
  const written = await settlementsWritten(ctx, rows);
  let replayed = 0;
  // A segment reused or left full may hold a row twice across files: one settlement, one row.
  const seen = new Set<string>();
  for (const [index, row] of rows.entries()) {
    if (written.has(index)) continue;
    const identity = `${row.facts.userId}|${row.facts.requestId}|${row.createdAt.getTime()}`;
    if (seen.has(identity)) continue;
    seen.add(identity);
    writer.enqueue(row);
    replayed += 1;
  }
  recovered.done();
  await writer.flush();
  ctx.logger.warn('wrote settlements an earlier instance had journaled but not written', {
    journaled: rows.length,
    replayed,
    unwritten: writer.backlog,
  });
}
