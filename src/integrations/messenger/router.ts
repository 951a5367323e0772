// /api/v1/messenger/:agentId/… : the Telegram bot of an agent, for its owner (JWT). The webhook that
// Telegram calls is a raw route (webhook.route.ts), verified by its secret header instead.
import { z } from 'zod';
import { agentProcedure } from '../../trpc/agent-guard';
import { router, inject } from '../../trpc/init';
import { messengerSettingsInput } from './settings-input';
import { messengerSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => use(messengerSlot));

const TAG = 'messenger';
const agentId = z.string().max(100);

const settingsView = z.object({
  configured: z.boolean(),
  botToken: z.string().nullable(),
  botTokenSet: z.boolean(),
  bot: z.object({ id: z.number().int(), username: z.string().nullable() }).nullable(),
  userId: z.string().nullable(),
  channelId: z.string().nullable(),
  webhookUrl: z.string(),
  webhook: z.object({ registered: z.boolean(), registeredAt: z.string().nullable(), error: z.string().nullable() }),
  problem: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

const notificationView = z.object({
  id: z.string(),
  kind: z.string(),
  text: z.string(),
  reference: z.string().nullable(),
  createdAt: z.string(),
  status: z.string(),
  deliveries: z.array(
    z.object({
      target: z.string(),
      recipient: z.string(),
      status: z.string(),
      attempts: z.number().int(),
      lastError: z.string().nullable(),
      sentAt: z.string().nullable(),
    }),
  ),
});

export const messengerRouter = router({
  getSettings: agentProcedure
    .use(own)
    .meta({
      info: 'messenger.settings',
      openapi: {
        method: 'GET',
        path: '/api/v1/messenger/{agentId}/settings',
        tags: [TAG],
        summary: 'Настройки Telegram-бота агента (токен скрыт)',
      },
    })
    .input(z.object({ agentId }))
    .output(settingsView)
    .query(({ ctx }) => ctx.messenger.settings.read(ctx.agent.id)),

  saveSettings: agentProcedure
    .use(own)
    .meta({
      info: 'messenger.settings',
      openapi: {
        method: 'PUT',
        path: '/api/v1/messenger/{agentId}/settings',
        tags: [TAG],
        summary: 'Сохранить настройки Telegram-бота: токен проверяется через getMe, вебхук регистрируется',
      },
    })
    .input(messengerSettingsInput.extend({ agentId }))
    .output(settingsView)
    .mutation(({ ctx, input }) =>
      ctx.messenger.settings.save(ctx.agent.id, {
        ...(input.botToken !== undefined && input.botToken !== '' ? { botToken: input.botToken } : {}),
        userId: input.userId,
        channelId: input.channelId,
      }),
    ),

  checkChannelAdmin: agentProcedure
    .use(own)
    .meta({
      info: 'messenger.checkChannelAdmin',
      openapi: {
        method: 'GET',
        path: '/api/v1/messenger/{agentId}/check-channel-admin',
        tags: [TAG],
        summary: 'Проверить, что бот — администратор канала с правом публиковать сообщения',
      },
    })
    .input(z.object({ agentId }))
    .output(z.object({ ok: z.boolean(), status: z.string().nullable(), canPostMessages: z.boolean(), reason: z.string().optional() }))
    .query(({ ctx }) => ctx.messenger.settings.checkChannel(ctx.agent.id)),

  notifications: agentProcedure
    .use(own)
    .meta({
      info: 'messenger.notifications',
      openapi: {
        method: 'GET',
        path: '/api/v1/messenger/{agentId}/notifications',
        tags: [TAG],
        summary: 'Последние уведомления агента и состояние их доставки',
      },
    })
    .input(z.object({ agentId, limit: z.coerce.number().int().min(1).max(100).default(20) }))
    .output(z.object({ notifications: z.array(notificationView), count: z.number().int() }))
    .query(({ ctx, input }) => ctx.messenger.notifier.list(ctx.db, ctx.agent.id, input.limit)),
});
