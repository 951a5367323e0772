// /api/v1/agents/{agentId}/dialogues…: the owner's inbox of an agent's client dialogues, and
// /api/v1/agents/{agentId}/results: the agent's figures for a period. Owner's JWT, agent ownership checked.
import { z } from 'zod';
import { agentProcedure } from '../trpc/agent-guard';
import { router, userProcedure, inject } from '../trpc/init';
import { dialogueListInput, dialoguePath, dialogueView, inboxCounts, replyInput, resultsInput, resultsView, transcriptInput, turnView } from './input';
import { dialoguesSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => use(dialoguesSlot));

const TAG = 'dialogues';
const BASE = '/api/v1/agents/{agentId}/dialogues';
const ONE = `${BASE}/{dialogueId}`;

export const dialoguesRouter = router({
  counts: userProcedure
    .use(own)
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/v1/dialogues/counts',
        tags: [TAG],
        summary: 'Что ждёт владельца во всех его агентах: непрочитанные сообщения клиентов и диалоги, ждущие человека',
      },
    })
    .input(z.void())
    .output(inboxCounts)
    .query(({ ctx }) => ctx.dialogues.counts(ctx.principal.userId)),

  list: agentProcedure
    .use(own)
    .meta({
      info: { key: 'dialogues.list', query: '?state=bot|escalated|operator|closed&q=&limit=&cursor=' },
      openapi: {
        method: 'GET',
        path: BASE,
        tags: [TAG],
        summary: 'Диалоги агента с клиентами: сначала с последней активностью, фильтр по состоянию и поиск по тексту',
      },
    })
    .input(dialogueListInput)
    .output(z.object({ dialogues: z.array(dialogueView), nextCursor: z.string().nullable() }))
    .query(({ ctx, input }) => {
      const { agentId: _, ...query } = input;
      return ctx.dialogues.list(ctx.agent.id, ctx.principal.userId, query);
    }),

  get: agentProcedure
    .use(own)
    .meta({ info: 'dialogues.get', openapi: { method: 'GET', path: ONE, tags: [TAG], summary: 'Диалог: клиент, состояние, кто ведёт' } })
    .input(dialoguePath)
    .output(dialogueView)
    .query(({ ctx, input }) => ctx.dialogues.get(ctx.agent.id, input.dialogueId, ctx.principal.userId)),

  messages: agentProcedure
    .use(own)
    .meta({
      info: { key: 'dialogues.messages', query: '?limit=&cursor=&afterId=' },
      openapi: {
        method: 'GET',
        path: `${ONE}/messages`,
        tags: [TAG],
        summary: 'Переписка (новые реплики сначала): автор, время, у ответов ассистента — модель, токены и стоимость',
      },
    })
    .input(transcriptInput)
    .output(
      z.object({
        messages: z.array(turnView),
        nextCursor: z.string().nullable(),
        currency: z.string().meta({ description: 'Валюта стоимости ответов модели (валюта баланса)' }),
      }),
    )
    .query(({ ctx, input }) => {
      const { agentId: _, dialogueId, ...query } = input;
      return ctx.dialogues.transcript(ctx.agent.id, dialogueId, query);
    }),

  reply: agentProcedure
    .use(own)
    .meta({
      info: 'dialogues.reply',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: `${ONE}/messages`,
        tags: [TAG],
        summary: 'Ответить клиенту от оператора (диалог перехватывается); повтор с тем же clientMessageId не отправляет второй раз',
        successDescription: 'Ответ сохранён и поставлен в очередь отправки во ВКонтакте (repeated: true — он уже был отправлен раньше)',
      },
    })
    .input(replyInput)
    .output(z.object({ repeated: z.boolean(), message: turnView }))
    .mutation(async ({ ctx, input }) => {
      const { created, message } = await ctx.dialogues.reply(ctx.agent.id, input.dialogueId, ctx.principal.userId, input);
      return { repeated: !created, message };
    }),

  takeover: agentProcedure
    .use(own)
    .meta({
      info: 'dialogues.takeover',
      openapi: {
        method: 'POST',
        path: `${ONE}/takeover`,
        tags: [TAG],
        summary: 'Перехватить диалог: ассистент перестаёт отвечать клиенту, операторы в Telegram видят, кто его взял',
      },
    })
    .input(dialoguePath)
    .output(dialogueView)
    .mutation(({ ctx, input }) => ctx.dialogues.takeOver(ctx.agent.id, input.dialogueId, ctx.principal.userId)),

  release: agentProcedure
    .use(own)
    .meta({ info: 'dialogues.release', openapi: { method: 'POST', path: `${ONE}/release`, tags: [TAG], summary: 'Вернуть диалог ассистенту' } })
    .input(dialoguePath)
    .output(dialogueView)
    .mutation(({ ctx, input }) => ctx.dialogues.release(ctx.agent.id, input.dialogueId, ctx.principal.userId)),

  read: agentProcedure
    .use(own)
    .meta({ info: 'dialogues.read', openapi: { method: 'POST', path: `${ONE}/read`, tags: [TAG], summary: 'Отметить переписку прочитанной' } })
    .input(dialoguePath)
    .output(dialogueView)
    .mutation(({ ctx, input }) => ctx.dialogues.markRead(ctx.agent.id, input.dialogueId, ctx.principal.userId)),

  remove: agentProcedure
    .use(own)
    .meta({
      info: 'dialogues.delete',
      openapi: {
        method: 'DELETE',
        path: ONE,
        tags: [TAG],
        summary: 'Удалить диалог клиента по его просьбе: реплики, эскалации и события клиента',
      },
    })
    .input(dialoguePath)
    .output(z.object({ success: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.dialogues.remove(ctx.agent.id, input.dialogueId);
      return { success: true };
    }),

  results: agentProcedure
    .use(own)
    .meta({
      info: { key: 'dialogues.results', query: '?from=&to=' },
      openapi: {
        method: 'GET',
        path: '/api/v1/agents/{agentId}/results',
        tags: [TAG],
        summary: 'Итоги агента за период (по умолчанию 30 дней): диалоги, сообщения, эскалации, записи, заказы и оплаты, расходы на модель',
      },
    })
    .input(resultsInput)
    .output(resultsView)
    .query(({ ctx, input }) => ctx.dialogueResults.of(ctx.agent.id, input)),
});
