// /api/v1/agents/{agentId}/dialogues…: the owner's inbox of an agent's client dialogues, and
// /api/v1/agents/{agentId}/results: the agent's figures for a period. Owner's JWT, agent ownership checked.
import { z } from 'zod';
import { agentProcedure } from '../trpc/agent-guard';
import { router, userProcedure, inject } from '../trpc/init';
import { agentsSlot } from '../agents';
import {
  dialogueListInput,
  dialoguePath,
  funnelInput,
  funnelView,
  dialogueView,
  inboxCounts,
  inboxInput,
  inboxItemView,
  noteInput,
  quickReplyInput,
  quickReplyPatch,
  quickReplyView,
  releasePreview,
  replyInput,
  resultsInput,
  resultsView,
  transcriptInput,
  turnView,
} from './input';
import { dialoguesSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => use(dialoguesSlot));
const withAgents = inject((use) => ({ agents: use(agentsSlot).agents }));

const TAG = 'dialogues';
const BASE = '/api/v1/agents/{agentId}/dialogues';
const ONE = `${BASE}/{dialogueId}`;
const QUICK = '/api/v1/quick-replies';
const quickReplyId = z.object({ id: z.string().max(100) });

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

  inbox: userProcedure
    .use(own)
    .use(withAgents)
    .meta({
      info: { key: 'dialogues.inbox', query: '?agentId=&state=bot|escalated|operator|closed&q=&limit=&cursor=' },
      openapi: {
        method: 'GET',
        path: '/api/v1/dialogues',
        tags: [TAG],
        summary:
          'Все диалоги всех ваших агентов в одном списке: ждущие человека — в waiting (дольше всех ждущие первыми), остальные — в dialogues по последней активности; фильтр по агенту и состоянию, поиск',
      },
    })
    .input(inboxInput)
    .output(z.object({ waiting: z.array(inboxItemView), dialogues: z.array(inboxItemView), nextCursor: z.string().nullable() }))
    .query(async ({ ctx, input }) => {
      const { agentId, ...query } = input;
      const userId = ctx.principal.userId;
      const owned = agentId !== undefined ? [await ctx.agents.requireOwned(userId, agentId)] : (await ctx.agents.list(userId)).agents;
      return ctx.dialogues.inbox(
        owned.map((a) => ({ id: a.id, name: a.name })),
        userId,
        query,
      );
    }),

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

  note: agentProcedure
    .use(own)
    .meta({
      info: 'dialogues.note',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: `${ONE}/notes`,
        tags: [TAG],
        summary: 'Внутренняя заметка в переписке: видна в панели, клиенту и ассистенту не отправляется',
        successDescription: 'Заметка сохранена',
      },
    })
    .input(noteInput)
    .output(turnView)
    .mutation(({ ctx, input }) => ctx.dialogues.addNote(ctx.agent.id, input.dialogueId, ctx.principal.userId, input.text)),

  releasePreview: agentProcedure
    .use(own)
    .meta({
      info: 'dialogues.releasePreview',
      openapi: {
        method: 'GET',
        path: `${ONE}/release`,
        tags: [TAG],
        summary: 'Что получит клиент, если вернуть диалог ассистенту сейчас (тот же текст, что отправит POST …/release)',
      },
    })
    .input(dialoguePath)
    .output(releasePreview)
    .query(({ ctx, input }) => ctx.dialogues.releasePreview(ctx.agent.id, input.dialogueId)),

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

  quickReplies: userProcedure
    .use(own)
    .meta({
      info: 'dialogues.quickReplies',
      openapi: { method: 'GET', path: QUICK, tags: [TAG], summary: 'Ваши быстрые ответы (для диалогов любого вашего агента)' },
    })
    .input(z.void())
    .output(z.object({ quickReplies: z.array(quickReplyView) }))
    .query(async ({ ctx }) => ({ quickReplies: await ctx.quickReplies.list(ctx.principal.userId) })),

  createQuickReply: userProcedure
    .use(own)
    .meta({
      info: 'dialogues.createQuickReply',
      successStatus: 201,
      openapi: { method: 'POST', path: QUICK, tags: [TAG], summary: 'Сохранить быстрый ответ', successDescription: 'Быстрый ответ сохранён' },
    })
    .input(quickReplyInput)
    .output(quickReplyView)
    .mutation(({ ctx, input }) => ctx.quickReplies.create(ctx.principal.userId, input)),

  updateQuickReply: userProcedure
    .use(own)
    .meta({ info: 'dialogues.updateQuickReply', openapi: { method: 'PATCH', path: `${QUICK}/{id}`, tags: [TAG], summary: 'Изменить быстрый ответ' } })
    .input(quickReplyPatch)
    .output(quickReplyView)
    .mutation(({ ctx, input }) => {
      const { id, ...patch } = input;
      return ctx.quickReplies.update(ctx.principal.userId, id, patch);
    }),

  removeQuickReply: userProcedure
    .use(own)
    .meta({ info: 'dialogues.removeQuickReply', openapi: { method: 'DELETE', path: `${QUICK}/{id}`, tags: [TAG], summary: 'Удалить быстрый ответ' } })
    .input(quickReplyId)
    .output(z.object({ success: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      await ctx.quickReplies.remove(ctx.principal.userId, input.id);
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

  funnel: agentProcedure
    .use(own)
    .meta({
      info: { key: 'dialogues.funnel', query: '?weeks=' },
      openapi: {
        method: 'GET',
        path: '/api/v1/agents/{agentId}/funnel',
        tags: [TAG],
        summary:
          'Воронка агента по неделям первого сообщения клиента: диалоги → записи → визиты (Сервис) или диалоги → заказы → оплаты (Магазин), с конверсией каждого шага',
      },
    })
    .input(funnelInput)
    .output(funnelView)
    .query(({ ctx, input }) => ctx.funnel.of(ctx.agent, input.weeks)),
});
