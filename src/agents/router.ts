import { z } from 'zod';
import { agentPatchInput, agentType, createAgentInput } from './fields';
import { AGENT_UNAVAILABLE_REASONS, agentView } from './service';
import { procedureForOwnedAgent } from '../trpc/agent-guard';
import { agentsMessages } from './texts';
import { router, userProcedure, inject } from '../trpc/init';
import { agentsSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ agents: use(agentsSlot).agents }));

const agentOutput = z.object({
  id: z.string(),
  name: z.string(),
  type: agentType,
  systemPrompt: z.string(),
  model: z.string(),
  acceptsImages: z.boolean().describe('Фото клиентов передаются модели как изображения'),
  transcribeVoice: z.boolean().describe('Голосовые сообщения без расшифровки ВК расшифровываются за счёт владельца'),
  transcriptionModel: z.string().nullable().describe('Модель распознавания речи; null — модель по умолчанию сервиса (TRANSCRIPTION_MODEL)'),
  workingHours: z
    .object({ days: z.array(z.number().int()), from: z.string(), to: z.string(), timeZone: z.string().optional() })
    .nullable()
    .describe('Рабочее время, когда клиентам отвечает человек (null — не задано): клиенту говорят, когда ему ответят'),
  createdAt: z.string(),
  updatedAt: z.string(),
  unavailableReason: z
    .enum(AGENT_UNAVAILABLE_REASONS)
    .nullable()
    .describe(
      'Почему ассистент агента сейчас не отвечает клиентам: account_blocked — аккаунт владельца заблокирован; out_of_balance — на балансе не хватило средств на ответ модели (до первого оплаченного ответа); null — отвечает',
    ),
});

const agentId = z.string().max(100);
const ownedAgentProcedure = procedureForOwnedAgent('id').use(own);

export const agentsRouter = router({
  list: userProcedure
    .use(own)
    .meta({ info: 'agents.list', openapi: { method: 'GET', path: '/api/agents', tags: ['agents'], summary: 'Агенты пользователя' } })
    .input(z.void())
    .output(z.object({ agents: z.array(agentOutput), count: z.number().int() }))
    .query(({ ctx }) => ctx.agents.list(ctx.principal.userId)),

  create: userProcedure
    .use(own)
    .meta({
      info: 'agents.create',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/agents',
        tags: ['agents'],
        summary: 'Создать агента',
        description: 'У пользователя не больше MAX_AGENTS_PER_USER агентов (по умолчанию 20): следующий — 400 invalid_request_error, пока одного не удалят.',
        successDescription: 'Агент создан',
      },
    })
    .input(createAgentInput)
    .output(agentOutput)
    .mutation(({ ctx, input }) => ctx.agents.create(ctx.principal.userId, input)),

  get: ownedAgentProcedure
    .meta({ info: 'agents.get', openapi: { method: 'GET', path: '/api/agents/{id}', tags: ['agents'], summary: 'Агент' } })
    .input(z.object({ id: agentId }))
    .output(agentOutput)
    .query(({ ctx }) => agentView(ctx.agent)),

  update: ownedAgentProcedure
    .meta({ info: 'agents.update', openapi: { method: 'PATCH', path: '/api/agents/{id}', tags: ['agents'], summary: 'Изменить агента (тип не меняется)' } })
    .input(z.object({ id: agentId, ...agentPatchInput.shape }))
    .output(agentOutput)
    .mutation(({ ctx, input }) => {
      const { id: _, ...patch } = input;
      return ctx.agents.update(ctx.principal.userId, ctx.agent.id, patch);
    }),

  remove: ownedAgentProcedure
    .meta({ info: 'agents.delete', openapi: { method: 'DELETE', path: '/api/agents/{id}', tags: ['agents'], summary: 'Удалить агента и его интеграции' } })
    .input(z.object({ id: agentId }))
    .output(z.object({ success: z.boolean(), message: z.string() }))
    .mutation(async ({ ctx }) => {
      await ctx.agents.remove(ctx.principal.userId, ctx.agent.id);
      return { success: true, message: agentsMessages.agentDeleted };
    }),
});
