// An agent's knowledge base: entries its owner writes or imports, searched in Russian full text (stemmed:
// «стрижки» finds «Стрижка») for the assistant's search_knowledge tool and for the system prompt.
import { and, asc, count, eq, sql, type SQL } from 'drizzle-orm';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Database } from '../db/client';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { knowledgeEntries } from './tables';
import { AppError, describeZodError } from '../http/errors';
import { errorMessages } from '../http/messages';
import { knowledgeMessages } from './texts';
import {
  knowledgeInput,
  MAX_KNOWLEDGE_ENTRIES,
  MAX_KNOWLEDGE_IMPORT,
  type KnowledgeHit,
  type KnowledgeInput,
  type knowledgePatch,
  type KnowledgeView,
} from './input';
import type { z } from 'zod';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A title made from a section's first line when it has only one: this many characters at most. */
const DERIVED_TITLE_CHARS = 80;
const TITLE_COLUMNS = ['title', 'заголовок', 'вопрос', 'question'];
const CONTENT_COLUMNS = ['content', 'текст', 'ответ', 'answer', 'text'];

type Row = typeof knowledgeEntries.$inferSelect;

function view(row: Pick<Row, 'id' | 'title' | 'content' | 'createdAt' | 'updatedAt'>): KnowledgeView {
  return { id: row.id, title: row.title, content: row.content, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

export interface KnowledgeImportReport {
  ok: boolean;
  imported: number;
  errors: { row: number; message: string }[];
}

/** Rows of a CSV with a title and a content column (English or Russian header names); `;` or `,`. */
function csvEntries(text: string): Record<string, unknown>[] {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  let rows: Record<string, string>[];
  try {
    rows = parseCsv(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      delimiter,
      skip_empty_lines: true,
      trim: true,
    }) as Record<string, string>[];
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError('invalid_request_error', errorMessages.csvUnreadable(line ?? null));
  }
  const header = Object.keys(rows[0] ?? {});
  const titleKey = TITLE_COLUMNS.find((c) => header.includes(c));
  const contentKey = CONTENT_COLUMNS.find((c) => header.includes(c));
  if (rows.length > 0 && (!titleKey || !contentKey)) throw new AppError('invalid_request_error', knowledgeMessages.knowledgeCsvColumns);
  return rows.map((r) => ({ title: r[titleKey!], content: r[contentKey!] }));
}

/**
 * Plain text split into entries at blank lines: a section's first line is its title and the rest its
 * content; a one-line section is its own content, titled by its opening words.
 */
export function textEntries(text: string): KnowledgeInput[] {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((section) => section.trim())
    .filter(Boolean)
    .map((section) => {
      const [first = '', ...rest] = section.split('\n');
      const body = rest.join('\n').trim();
      if (body) return { title: first.trim().replace(/^#+\s*/, ''), content: body };
      const title = first.length > DERIVED_TITLE_CHARS ? `${first.slice(0, DERIVED_TITLE_CHARS - 1).trimEnd()}…` : first;
      return { title, content: first };
    });
}

export function createKnowledge(db: Database) {
  async function ensureRoom(agentId: string, adding: number) {
    const [row] = await db.select({ n: count() }).from(knowledgeEntries).where(eq(knowledgeEntries.agentId, agentId));
    if ((row?.n ?? 0) + adding > MAX_KNOWLEDGE_ENTRIES) throw new AppError('invalid_request_error', knowledgeMessages.knowledgeTooMany(MAX_KNOWLEDGE_ENTRIES));
  }

  /**
   * Entries matching the words, best first. Every word must match; when none has them all, entries
   * matching any word are ranked instead (a question is mostly words no entry holds: «сколько стоит
   * стрижка» should still find «Стрижка»).
   */
  async function search(agentId: string, query: string, limit: number): Promise<KnowledgeHit[]> {
    const all = sql`websearch_to_tsquery('russian', ${query})`;
    // The same lexemes joined by OR: plainto_tsquery's text is quoted lexemes between '&'.
    const any = sql`replace(plainto_tsquery('russian', ${query})::text, '&', '|')::tsquery`;
    for (const tsquery of [all, any]) {
      const rank: SQL<number> = sql<number>`ts_rank(${knowledgeEntries.search}, ${tsquery})::float8`;
      const rows = await db
        .select({
          id: knowledgeEntries.id,
          title: knowledgeEntries.title,
          content: knowledgeEntries.content,
          createdAt: knowledgeEntries.createdAt,
          updatedAt: knowledgeEntries.updatedAt,
          rank,
        })
        .from(knowledgeEntries)
        .where(and(eq(knowledgeEntries.agentId, agentId), sql`${knowledgeEntries.search} @@ ${tsquery}`))
        .orderBy(sql`${rank} desc`, asc(knowledgeEntries.createdAt), asc(knowledgeEntries.id))
        .limit(limit);
      if (rows.length > 0) return rows.map((r) => ({ ...view(r), rank: Number(r.rank) }));
    }
    return [];
  }

  /**
   * Entries scored against any word of a client's message: the sum of each word's ts_rank (title 1.0,
   * body 0.4 of a match's weight). ts_rank of an OR query is that sum divided by the number of words, which
   * would let a message's filler words («сколько», «стоит») drown the one word that matters.
   */
  async function scoreAgainstMessage(agentId: string, message: string, limit: number): Promise<KnowledgeHit[]> {
    const any = sql`replace(plainto_tsquery('russian', ${message})::text, '&', '|')::tsquery`;
    // An OR chain of n words has 2n − 1 nodes.
    const score: SQL<number> = sql<number>`(ts_rank(${knowledgeEntries.search}, ${any}) * (numnode(${any}) + 1) / 2)::float8`;
    const rows = await db
      .select({
        id: knowledgeEntries.id,
        title: knowledgeEntries.title,
        content: knowledgeEntries.content,
        createdAt: knowledgeEntries.createdAt,
        updatedAt: knowledgeEntries.updatedAt,
        score,
      })
      .from(knowledgeEntries)
      .where(and(eq(knowledgeEntries.agentId, agentId), sql`${knowledgeEntries.search} @@ ${any}`))
      .orderBy(sql`${score} desc`, asc(knowledgeEntries.createdAt), asc(knowledgeEntries.id))
      .limit(limit);
    return rows.map((r) => ({ ...view(r), rank: Number(r.score) }));
  }

  return {
    search,
    scoreAgainstMessage,

    async list(agentId: string, query: { limit: number; cursor?: string | undefined }) {
      const filters = [eq(knowledgeEntries.agentId, agentId)];
      if (query.cursor) filters.push(afterCursor(knowledgeEntries.createdAt, knowledgeEntries.id, decodeCursor(query.cursor, UUID), 'asc'));
      const rows = await db
        .select({
          id: knowledgeEntries.id,
          title: knowledgeEntries.title,
          content: knowledgeEntries.content,
          createdAt: knowledgeEntries.createdAt,
          updatedAt: knowledgeEntries.updatedAt,
          cursorAt: cursorTime(knowledgeEntries.createdAt),
        })
        .from(knowledgeEntries)
        .where(and(...filters))
        .orderBy(asc(knowledgeEntries.createdAt), asc(knowledgeEntries.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.id);
      return { entries: page.map(view), nextCursor };
    },

    async hasEntries(agentId: string): Promise<boolean> {
      const [row] = await db.select({ id: knowledgeEntries.id }).from(knowledgeEntries).where(eq(knowledgeEntries.agentId, agentId)).limit(1);
      return !!row;
    },

    async get(agentId: string, entryId: string): Promise<KnowledgeView> {
      if (!UUID.test(entryId)) throw new AppError('not_found', knowledgeMessages.knowledgeEntryNotFound);
      const [row] = await db
        .select()
        .from(knowledgeEntries)
        .where(and(eq(knowledgeEntries.agentId, agentId), eq(knowledgeEntries.id, entryId)));
      if (!row) throw new AppError('not_found', knowledgeMessages.knowledgeEntryNotFound);
      return view(row);
    },

    async create(agentId: string, input: KnowledgeInput): Promise<KnowledgeView> {
      await ensureRoom(agentId, 1);
      const [row] = await db
        .insert(knowledgeEntries)
        .values({ agentId, ...input })
        .returning();
      return view(row!);
    },

    async update(agentId: string, entryId: string, patch: z.infer<typeof knowledgePatch>): Promise<KnowledgeView> {
      await this.get(agentId, entryId);
      const [row] = await db
        .update(knowledgeEntries)
        .set({ ...patch, updatedAt: new Date() })
        .where(and(eq(knowledgeEntries.agentId, agentId), eq(knowledgeEntries.id, entryId)))
        .returning();
      return view(row!);
    },

    async remove(agentId: string, entryId: string): Promise<void> {
      await this.get(agentId, entryId);
      await db.delete(knowledgeEntries).where(and(eq(knowledgeEntries.agentId, agentId), eq(knowledgeEntries.id, entryId)));
    },

    /** CSV (title, content) or plain text in sections: every entry checked first, then all or none written. */
    async import(agentId: string, source: { csv?: string | undefined; text?: string | undefined }): Promise<KnowledgeImportReport> {
      const raw: unknown[] = source.csv !== undefined ? csvEntries(source.csv) : textEntries(source.text ?? '');
      if (raw.length === 0) throw new AppError('invalid_request_error', knowledgeMessages.knowledgeImportEmpty);
      if (raw.length > MAX_KNOWLEDGE_IMPORT) throw new AppError('invalid_request_error', knowledgeMessages.knowledgeImportTooLarge(MAX_KNOWLEDGE_IMPORT));
      const valid: KnowledgeInput[] = [];
      const errors: KnowledgeImportReport['errors'] = [];
      raw.forEach((item, index) => {
        const parsed = knowledgeInput.safeParse(item);
        if (parsed.success) valid.push(parsed.data);
        else errors.push({ row: index + 1, message: describeZodError(parsed.error) });
      });
      if (errors.length > 0) return { ok: false, imported: 0, errors };
      await ensureRoom(agentId, valid.length);
      // A millisecond apart: the list (oldest first) keeps the file's order, not the random ids'.
      const start = Date.now();
      await db.transaction(async (tx) => {
        for (let i = 0; i < valid.length; i += 200) {
          await tx
            .insert(knowledgeEntries)
            .values(valid.slice(i, i + 200).map((e, j) => ({ agentId, ...e, createdAt: new Date(start + i + j), updatedAt: new Date(start + i + j) })));
        }
      });
      return { ok: true, imported: valid.length, errors: [] };
    },
  };
}

export type Knowledge = ReturnType<typeof createKnowledge>;
