// The product catalog of an E-commerce agent: paged listing, CRUD, and a bulk import that either takes
// every row or none, reporting each bad row.
import { and, asc, eq, sql } from 'drizzle-orm';
import { parse as parseCsv } from 'csv-parse/sync';
import type { z } from 'zod';
import type { Database, Executor } from '../db/client';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { products } from './tables';
import { AppError, describeZodError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { commerceMessages } from './texts';
import { csvProductInput, MAX_IMPORT_ROWS, productInput, type productPatch, type ProductInput, type ProductView } from './catalog-input';

export { MAX_IMPORT_ROWS, productFields, productInput, productPatch, productView } from './catalog-input';
export type { ProductInput, ProductView } from './catalog-input';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = typeof products.$inferSelect;

function view(row: Row): ProductView {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    priceMinor: row.priceMinor,
    currency: row.currency,
    available: row.available,
    attributes: row.attributes,
    stock: row.stock,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface ImportRowError {
  /** 1-based: the data row (a CSV header is not counted), or the array index + 1 for JSON. */
  row: number;
  message: string;
}

export interface ImportReport {
  ok: boolean;
  imported: number;
  errors: ImportRowError[];
}

/** Rows of a CSV with a header line (title, description, price or priceMinor, currency, available, stock, any attribute columns); `;` or `,`. */
function csvRows(text: string): Record<string, unknown>[] {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  try {
    const rows = parseCsv(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim()),
      delimiter,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
    }) as Record<string, unknown>[];
    // An empty cell is an absent value: the field's default applies.
    for (const row of rows) for (const key of Object.keys(row)) if (row[key] === '') delete row[key];
    return rows;
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError('invalid_request_error', errorMessages.csvUnreadable(line ?? null));
  }
}

export function createCatalog(db: Database) {
  return {
    async list(agentId: string, query: { limit: number; cursor?: string | undefined; availableOnly?: boolean }) {
      const filters = [eq(products.agentId, agentId)];
      if (query.availableOnly) filters.push(eq(products.available, true));
      if (query.cursor) filters.push(afterCursor(products.createdAt, products.id, decodeCursor(query.cursor, UUID), 'asc'));
      const rows = await db
        .select({ product: products, cursorAt: cursorTime(products.createdAt) })
        .from(products)
        .where(and(...filters))
        .orderBy(asc(products.createdAt), asc(products.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.product.id);
      return { products: page.map((r) => view(r.product)), nextCursor };
    },

    /** A page of available products by position, for the dialogue (offset paging is fine at that size). */
    async page(agentId: string, page: number, size: number): Promise<{ items: ProductView[]; hasMore: boolean }> {
      const rows = await db
        .select()
        .from(products)
        .where(and(eq(products.agentId, agentId), eq(products.available, true)))
        .orderBy(asc(products.createdAt), asc(products.id))
        .limit(size + 1)
        .offset(page * size);
      return { items: rows.slice(0, size).map(view), hasMore: rows.length > size };
    },

    /**
     * Products on sale that match a client's words, best first: Russian full-text search (stemmed, so
     * «красные платья» finds «Платье красное») over the title, the description and the attribute values.
     * Every word must match; when no product has them all, products matching any of them are ranked
     * instead, so a question with one word the catalog lacks («платье на выпускной») still finds dresses.
     */
    async search(agentId: string, query: string, limit: number): Promise<{ products: ProductView[]; matched: 'all' | 'any' | 'none' }> {
      const all = sql`websearch_to_tsquery('russian', ${query})`;
      // The same lexemes joined by OR: plainto_tsquery's text is quoted lexemes between '&'.
      const any = sql`replace(plainto_tsquery('russian', ${query})::text, '&', '|')::tsquery`;
      for (const [matched, tsquery] of [
        ['all', all],
        ['any', any],
      ] as const) {
        const rows = await db
          .select()
          .from(products)
          .where(and(eq(products.agentId, agentId), eq(products.available, true), sql`${products.search} @@ ${tsquery}`))
          .orderBy(sql`ts_rank(${products.search}, ${tsquery}) desc`, asc(products.createdAt), asc(products.id))
          .limit(limit);
        if (rows.length > 0) return { products: rows.map(view), matched };
      }
      return { products: [], matched: 'none' };
    },

    /** Whether the agent has any product on sale: its shop tools need one. */
    async hasProducts(agentId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: products.id })
        .from(products)
        .where(and(eq(products.agentId, agentId), eq(products.available, true)))
        .limit(1);
      return !!row;
    },

    async get(agentId: string, productId: string, executor: Executor = db): Promise<ProductView> {
      if (!UUID.test(productId)) throw new AppError('not_found', commerceMessages.productNotFound);
      const [row] = await executor
        .select()
        .from(products)
        .where(and(eq(products.agentId, agentId), eq(products.id, productId)));
      if (!row) throw new AppError('not_found', commerceMessages.productNotFound);
      return view(row);
    },

    async create(agentId: string, input: ProductInput): Promise<ProductView> {
      const [row] = await db
        .insert(products)
        .values({ agentId, ...input })
        .returning();
      return view(row!);
    },

    async update(agentId: string, productId: string, patch: z.infer<typeof productPatch>): Promise<ProductView> {
      await this.get(agentId, productId);
      const [row] = await db
        .update(products)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(products.agentId, agentId), eq(products.id, productId)))
        .returning();
      return view(row!);
    },

    async remove(agentId: string, productId: string): Promise<void> {
      await this.get(agentId, productId);
      await db.delete(products).where(and(eq(products.agentId, agentId), eq(products.id, productId)));
    },

    /**
     * Imports products from CSV text or a JSON array. Every row is checked first; with any bad row nothing
     * is written and every bad row is reported. Otherwise all rows go in one transaction.
     */
    async import(agentId: string, source: { csv?: string | undefined; products?: unknown[] | undefined }): Promise<ImportReport> {
      const raw = source.csv !== undefined ? csvRows(source.csv) : (source.products ?? []);
      if (raw.length === 0) throw new AppError('invalid_request_error', commerceMessages.importEmpty);
      if (raw.length > MAX_IMPORT_ROWS) throw new AppError('invalid_request_error', commerceMessages.importTooLarge(MAX_IMPORT_ROWS));
      const schema = source.csv !== undefined ? csvProductInput : productInput;
      const valid: ProductInput[] = [];
      const errors: ImportRowError[] = [];
      raw.forEach((item, index) => {
        const parsed = schema.safeParse(item);
        if (parsed.success) valid.push(parsed.data);
        else errors.push({ row: index + 1, message: describeZodError(parsed.error) });
      });
      if (errors.length > 0) return { ok: false, imported: 0, errors };
      await db.transaction(async (tx) => {
        for (let i = 0; i < valid.length; i += 500) {
          await tx.insert(products).values(valid.slice(i, i + 500).map((p) => ({ agentId, ...p })));
        }
      });
      return { ok: true, imported: valid.length, errors: [] };
    },
  };
}

export type Catalog = ReturnType<typeof createCatalog>;
