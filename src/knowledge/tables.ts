// An agent's knowledge base.
import { sql } from 'drizzle-orm';
import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt, tsvector } from '../db/columns';
import { agents } from '../agents/tables';

/**
 * An agent's knowledge base: what its owner wrote down (prices, hours, delivery, FAQ) for the assistant's
 * search_knowledge and for the system prompt when an entry matches the client's message well.
 */
export const knowledgeEntries = pgTable(
  'knowledge_entries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    /** Russian full-text document: the title weighs more than the body. */
    search: tsvector('search').generatedAlwaysAs(sql`setweight(to_tsvector('russian', title), 'A') || setweight(to_tsvector('russian', content), 'B')`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('knowledge_entries_agent_idx').on(t.agentId, t.createdAt, t.id), index('knowledge_entries_search_idx').using('gin', t.search)],
);
