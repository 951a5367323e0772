// /api/v1/agents/:agentId/knowledge… : an agent's knowledge base, for its owner (JWT). Every route checks
// that the agent is the caller's (unknown 404, another user's 403) before reading its input.
import { z } from 'zod';
import { agentProcedure } from '../trpc/agent-guard';
import { knowledgeMessages } from './texts';
import { router, inject } from '../trpc/init';
import { knowledgeHit, knowledgeInput, knowledgePatch, knowledgeView, MAX_KNOWLEDGE_IMPORT, MAX_KNOWLEDGE_IMPORT_CHARS } from './input';
import { knowledgeSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ knowledge: use(knowledgeSlot).knowledge }));

const agentId = z.string().max(100);
const entryId = z.string().max(100);
const TAG = 'knowledge';
const BASE = '/api/v1/agents/{agentId}/knowledge';

export const knowledgeRouter = router({
  list: agentProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'GET',
        path: BASE,
        tags: [TAG],
        summary: 'Записи базы знаний (постранично); с query — что найдёт ассистент по вопросу клиента (русская морфология, лучшие сначала, до 10, с rank)',
      },
    })
    .input(
      z.object({
        agentId,
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().max(300).optional(),
        query: z.string().trim().min(1, 'обязательное поле').max(500, 'не длиннее 500 символов').optional(),
      }),
    )
    .output(z.object({ entries: z.array(knowledgeView.extend({ rank: knowledgeHit.shape.rank.optional() })), nextCursor: z.string().nullable() }))
    .query(async ({ ctx, input }) => {
      if (input.query !== undefined) return { entries: await ctx.knowledge.search(ctx.agent.id, input.query, 10), nextCursor: null };
      return ctx.knowledge.list(ctx.agent.id, input);
    }),

  create: agentProcedure
    .use(own)
    .meta({ successStatus: 201, openapi: { method: 'POST', path: BASE, tags: [TAG], summary: 'Добавить запись', successDescription: 'Запись добавлена' } })
    .input(knowledgeInput.extend({ agentId }))
    .output(knowledgeView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...entry } = input;
      return ctx.knowledge.create(ctx.agent.id, entry);
    }),

  get: agentProcedure
    .use(own)
    .meta({ openapi: { method: 'GET', path: `${BASE}/{entryId}`, tags: [TAG], summary: 'Запись базы знаний' } })
    .input(z.object({ agentId, entryId }))
    .output(knowledgeView)
    .query(({ ctx, input }) => ctx.knowledge.get(ctx.agent.id, input.entryId)),

  update: agentProcedure
    .use(own)
    .meta({ openapi: { method: 'PATCH', path: `${BASE}/{entryId}`, tags: [TAG], summary: 'Изменить запись' } })
    .input(knowledgePatch.extend({ agentId, entryId }))
    .output(knowledgeView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, entryId: id, ...patch } = input;
      return ctx.knowledge.update(ctx.agent.id, id, patch);
    }),

  remove: agentProcedure
    .use(own)
    .meta({ openapi: { method: 'DELETE', path: `${BASE}/{entryId}`, tags: [TAG], summary: 'Удалить запись' } })
    .input(z.object({ agentId, entryId }))
    .output(z.object({ success: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.knowledge.remove(ctx.agent.id, input.entryId);
      return { success: true };
    }),

  import: agentProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'POST',
        path: `${BASE}/import`,
        tags: [TAG],
        summary: `Импорт из CSV (столбцы title, content) или текста (разделы через пустую строку, первая строка — заголовок), до ${MAX_KNOWLEDGE_IMPORT} записей: все или ни одной, с ошибками по записям`,
      },
    })
    .input(
      z
        .object({
          agentId,
          csv: z.string().max(MAX_KNOWLEDGE_IMPORT_CHARS, `не длиннее ${MAX_KNOWLEDGE_IMPORT_CHARS} символов`).optional(),
          text: z.string().max(MAX_KNOWLEDGE_IMPORT_CHARS, `не длиннее ${MAX_KNOWLEDGE_IMPORT_CHARS} символов`).optional(),
        })
        .refine((v) => (v.csv === undefined) !== (v.text === undefined), knowledgeMessages.knowledgeImportOneSource),
    )
    .output(z.object({ ok: z.boolean(), imported: z.number().int(), errors: z.array(z.object({ row: z.number().int(), message: z.string() })) }))
    .mutation(({ ctx, input }) => ctx.knowledge.import(ctx.agent.id, input)),
});
