// Operators' side of the price table: list, set, remove, and import from the upstream's own prices.
// Each change and its audit row are one transaction that also announces the change to every instance
// (NOTIFY, delivered at commit); after the commit this instance reloads its copy at once rather than
// waiting for its own notification, so the operator's next request already sees the change.
//
// The rows are written here rather than through PriceBook.upsert/remove with the transaction: those
// reload the book through the pool before returning, i.e. while the caller's transaction is still open,
// and on PGlite (one connection, queries wait for the open transaction) that wait never ends.
import { eq, inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client';
import { modelPrices } from '../pricing/tables';
import type { ModelCatalog } from '../gateway';
import { AppError } from '../http/errors';
import { adminMessages } from './texts';
import { nanoToDecimalString, nanoToUnits } from '../money';
import { PRICES_CHANGED_CHANNEL, type PriceBook, type PriceRow, type PriceWrite } from '../pricing/prices';
import { recordAudit, type AuditActor, type JsonObject } from './audit';
import { decimalOfNumber, planImport, type ImportCandidate } from './price-import';

/** A price as the console writes it: the price table's row (pricing/prices.ts). */
export type PriceInput = PriceWrite;

export interface AdminPricesDeps {
  db: Database;
  prices: PriceBook;
  models: Pick<ModelCatalog, 'list'>;
}

/** A price row as the console shows it, in currency units: the price table's and a price group's own alike. */
export function priceRowView(row: Pick<PriceRow, 'pattern' | 'kind' | 'promptNanoPerMillion' | 'completionNanoPerMillion' | 'perSecondNano' | 'updatedAt'>) {
  return {
    pattern: row.pattern,
    kind: row.kind === 'per_second' ? ('per_second' as const) : ('per_token' as const),
    promptPerMillion: nanoToUnits(row.promptNanoPerMillion),
    completionPerMillion: nanoToUnits(row.completionNanoPerMillion),
    perSecond: nanoToUnits(row.perSecondNano),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function priceView(row: PriceRow) {
  return {
    ...priceRowView(row),
    // The row's own cache prices; null: derived from the prompt price by the configured ratio.
    cachedPromptPerMillion: row.cachedPromptNanoPerMillion === null ? null : nanoToUnits(row.cachedPromptNanoPerMillion),
    cacheWritePerMillion: row.cacheWriteNanoPerMillion === null ? null : nanoToUnits(row.cacheWriteNanoPerMillion),
  };
}

/** A price as the audit log keeps it: exact decimal strings in currency units per 1M tokens. */
function audited(row: {
  pattern: string;
  promptNanoPerMillion: bigint;
  completionNanoPerMillion: bigint;
  kind?: string;
  perSecondNano?: bigint;
  cachedPromptNanoPerMillion?: bigint | null;
  cacheWriteNanoPerMillion?: bigint | null;
}): JsonObject {
  return {
    pattern: row.pattern,
    promptPerMillion: nanoToDecimalString(row.promptNanoPerMillion),
    completionPerMillion: nanoToDecimalString(row.completionNanoPerMillion),
    // Only per-second rows say so: the audit of token prices reads as it did.
    ...(row.kind === 'per_second' ? { kind: 'per_second', perSecond: nanoToDecimalString(row.perSecondNano ?? 0n) } : {}),
    // Only rows with cache prices of their own name them (the others derive them from the prompt price).
    ...(row.cachedPromptNanoPerMillion != null ? { cachedPromptPerMillion: nanoToDecimalString(row.cachedPromptNanoPerMillion) } : {}),
    ...(row.cacheWriteNanoPerMillion != null ? { cacheWritePerMillion: nanoToDecimalString(row.cacheWriteNanoPerMillion) } : {}),
  };
}

async function rowsFor(executor: Executor, patterns: string[]): Promise<PriceRow[]> {
  if (patterns.length === 0) return [];
  return executor.select().from(modelPrices).where(inArray(modelPrices.pattern, patterns));
}

/** Creates or replaces rows with `tx` and announces the change at its commit. */
async function writePrices(tx: Executor, rows: PriceInput[]): Promise<void> {
  for (const row of rows) {
    await tx
      .insert(modelPrices)
      .values({
        ...row,
        kind: row.kind ?? 'per_token',
        perSecondNano: row.perSecondNano ?? 0n,
        cachedPromptNanoPerMillion: row.cachedPromptNanoPerMillion ?? null,
        cacheWriteNanoPerMillion: row.cacheWriteNanoPerMillion ?? null,
        updatedAt: sql`now()`,
      })
      .onConflictDoUpdate({
        target: modelPrices.pattern,
        set: {
          promptNanoPerMillion: row.promptNanoPerMillion,
          completionNanoPerMillion: row.completionNanoPerMillion,
          kind: row.kind ?? 'per_token',
          perSecondNano: row.perSecondNano ?? 0n,
          // A price written again without cache prices derives them again (a PUT replaces the whole row).
          cachedPromptNanoPerMillion: row.cachedPromptNanoPerMillion ?? null,
          cacheWriteNanoPerMillion: row.cacheWriteNanoPerMillion ?? null,
          updatedAt: sql`now()`,
        },
      });
  }
  await tx.execute(sql`select pg_notify(${PRICES_CHANGED_CHANNEL}, '')`);
}

export function createAdminPrices({ db, prices, models }: AdminPricesDeps) {
  /** The upstream's list priced with `multiplier` (a JSON number, read as the decimal it was written as). */
  async function plan(multiplier: number, select: { filter?: string | undefined } | { models: string[] }) {
    const factor = decimalOfNumber(multiplier);
    if (!factor) throw new AppError('invalid_request_error', adminMessages.priceMultiplierInvalid);
    const list = await models.list();
    return planImport(list.data, factor, select);
  }

  /** The price in force for a model now: the matching row, or null when TOKEN_PRICE applies. */
  function current(model: string) {
    const price = prices.listPriceOf(model);
    if (price.pattern === null) return null;
    return {
      pattern: price.pattern,
      promptPerMillion: nanoToUnits(price.promptNanoPerMillion),
      completionPerMillion: nanoToUnits(price.completionNanoPerMillion),
    };
  }

  const candidateView = (c: ImportCandidate) => ({
    model: c.model,
    upstreamPrompt: c.upstreamPrompt,
    upstreamCompletion: c.upstreamCompletion,
    promptPerMillion: nanoToUnits(c.promptNanoPerMillion),
    completionPerMillion: nanoToUnits(c.completionNanoPerMillion),
  });

  return {
    async list() {
      const rows = await prices.list();
      return {
        prices: rows.map(priceView),
        default: {
          promptPerMillion: nanoToUnits(prices.fallback.promptNanoPerMillion),
          completionPerMillion: nanoToUnits(prices.fallback.completionNanoPerMillion),
          // What a row without cache prices of its own charges, as shares of its prompt price.
          cacheReadRatio: nanoToUnits(prices.cacheRatios.readNano),
          cacheWriteRatio: nanoToUnits(prices.cacheRatios.writeNano),
        },
      };
    },

    async put(actor: AuditActor, input: PriceInput) {
      const saved = await db.transaction(async (tx) => {
        const [before] = await rowsFor(tx, [input.pattern]);
        await writePrices(tx, [input]);
        const [after] = await rowsFor(tx, [input.pattern]);
        await recordAudit(tx, actor, {
          action: 'price.upsert',
          targetType: 'price',
          targetId: input.pattern,
          before: before ? audited(before) : null,
          after: audited(after!),
        });
        return after!;
      });
      await prices.reload();
      return priceView(saved);
    },

    async remove(actor: AuditActor, pattern: string) {
      await db.transaction(async (tx) => {
        const [before] = await tx.delete(modelPrices).where(eq(modelPrices.pattern, pattern)).returning();
        if (!before) throw new AppError('not_found', adminMessages.priceNotFound);
        await tx.execute(sql`select pg_notify(${PRICES_CHANGED_CHANNEL}, '')`);
        await recordAudit(tx, actor, {
          action: 'price.delete',
          targetType: 'price',
          targetId: pattern,
          before: audited(before),
          after: null,
        });
      });
      await prices.reload();
    },

    /** What an import would write, beside the price each model has now; nothing is saved. */
    async preview(multiplier: number, filter: string | undefined) {
      const { rows, skipped } = await plan(multiplier, { filter });
      return { rows: rows.map((c) => ({ ...candidateView(c), current: current(c.model) })), skipped };
    },

    /** Saves the upstream's prices × multiplier for the models named, as exact-id rows, in one transaction. */
    async import(actor: AuditActor, multiplier: number, modelIds: string[]) {
      const { rows, skipped } = await plan(multiplier, { models: modelIds });
      if (rows.length > 0) {
        const writes = rows.map((c) => ({
          pattern: c.model,
          promptNanoPerMillion: c.promptNanoPerMillion,
          completionNanoPerMillion: c.completionNanoPerMillion,
          cachedPromptNanoPerMillion: c.cachedPromptNanoPerMillion,
          cacheWriteNanoPerMillion: c.cacheWriteNanoPerMillion,
        }));
        await db.transaction(async (tx) => {
          const before = await rowsFor(
            tx,
            writes.map((w) => w.pattern),
          );
          await writePrices(tx, writes);
          await recordAudit(tx, actor, {
            action: 'price.import',
            targetType: 'price',
            targetId: null,
            before: { prices: before.map(audited) },
            after: { multiplier: String(multiplier), prices: writes.map(audited) },
          });
        });
        await prices.reload();
      }
      return { imported: rows.map(candidateView), skipped };
    },
  };
}

export type AdminPrices = ReturnType<typeof createAdminPrices>;
