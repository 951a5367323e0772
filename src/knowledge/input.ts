// A knowledge base entry as its owner sends and reads it: zod only, so the dashboard's editor checks its
// form with the schema the API applies.
import { z } from 'zod';

export const MAX_KNOWLEDGE_ENTRIES = 2000;
export const MAX_KNOWLEDGE_IMPORT = 500;
export const MAX_KNOWLEDGE_IMPORT_CHARS = 2_000_000;

export const knowledgeFields = {
  title: z.string({ error: 'обязательное поле' }).trim().min(1, 'обязательное поле').max(200, 'не длиннее 200 символов'),
  content: z.string({ error: 'обязательное поле' }).trim().min(1, 'обязательное поле').max(10_000, 'не длиннее 10 000 символов'),
};

export const knowledgeInput = z.object({ title: knowledgeFields.title, content: knowledgeFields.content });
export const knowledgePatch = knowledgeInput.partial();
export type KnowledgeInput = z.infer<typeof knowledgeInput>;

export const knowledgeView = z.object({
  id: z.string(),
  title: z.string(),
  content: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type KnowledgeView = z.infer<typeof knowledgeView>;

/** A found entry: `rank` is PostgreSQL's ts_rank, higher is closer. */
export const knowledgeHit = knowledgeView.extend({ rank: z.number() });
export type KnowledgeHit = z.infer<typeof knowledgeHit>;
