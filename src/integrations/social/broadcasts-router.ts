// /api/v1/agents/{agentId}/broadcasts…: the owner's broadcasts to the agent's VK clients who allow messages —
// a preview (the exact text and how many clients get it), sending, and each one's delivered/failed counts.
// Owner's JWT, agent ownership checked by the agent guard.
import { agentProcedure } from '../../trpc/agent-guard';
import { inject, router } from '../../trpc/init';
import { socialSlot } from './api';
import {
  broadcastCreateInput,
  broadcastListInput,
  broadcastListView,
  broadcastPath,
  broadcastPreviewInput,
  broadcastPreviewView,
  broadcastView,
} from './broadcast-input';

/** What these procedures use of the features. */
const own = inject((use) => ({ broadcasts: use(socialSlot).social.broadcasts }));

const TAG = 'broadcasts';
const BASE = '/api/v1/agents/{agentId}/broadcasts';

export const broadcastsRouter = router({
  list: agentProcedure
    .use(own)
    .meta({
      info: 'broadcasts.list',
      openapi: {
        method: 'GET',
        path: BASE,
        tags: [TAG],
        summary: 'Рассылки агента (новые сначала) с числом доставленных и недоставленных, и сколько клиентов получили бы рассылку сейчас',
      },
    })
    .input(broadcastListInput)
    .output(broadcastListView)
    .query(({ ctx }) => ctx.broadcasts.list(ctx.agent.id)),

  preview: agentProcedure
    .use(own)
    .meta({
      info: 'broadcasts.preview',
      openapi: {
        method: 'POST',
        path: `${BASE}/preview`,
        tags: [TAG],
        summary: 'Предпросмотр рассылки: текст ровно так, как его получат клиенты, кнопка «Отписаться» и число получателей; ничего не отправляет',
      },
    })
    .input(broadcastPreviewInput)
    .output(broadcastPreviewView)
    .mutation(({ ctx, input }) => ctx.broadcasts.preview(ctx.agent.id, input.text)),

  send: agentProcedure
    .use(own)
    .meta({
      info: 'broadcasts.send',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: BASE,
        tags: [TAG],
        summary:
          'Отправить рассылку клиентам сообщества, которые разрешили сообщения и не отписались: каждому один раз, через очередь с ограничением скорости ВКонтакте; повтор с тем же requestId не создаёт вторую',
      },
    })
    .input(broadcastCreateInput)
    .output(broadcastView)
    .mutation(({ ctx, input }) => ctx.broadcasts.send(ctx.agent.id, { text: input.text, requestId: input.requestId })),

  get: agentProcedure
    .use(own)
    .meta({
      info: 'broadcasts.get',
      openapi: { method: 'GET', path: `${BASE}/{broadcastId}`, tags: [TAG], summary: 'Рассылка: текст, получатели, доставлено, не доставлено, в очереди' },
    })
    .input(broadcastPath)
    .output(broadcastView)
    .query(({ ctx, input }) => ctx.broadcasts.get(ctx.agent.id, input.broadcastId)),
});
