// /api/v1/social/… : an agent's VK community, for the agent's owner (JWT). The callback endpoint VK
// itself calls is a raw route (webhook.ts).
import { z } from 'zod';
import { agentProcedure } from '../../trpc/agent-guard';
import { router, userProcedure, inject } from '../../trpc/init';
import { checkConnectionInput, socialSettingsInput, socialSettingsView } from './settings';
import { agentsSlot } from '../../agents';
import { socialSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ agents: use(agentsSlot).agents, social: use(socialSlot).social }));

const agentId = z.string().max(100);
const TAG = 'social';

export const socialRouter = router({
  getSettings: agentProcedure
    .use(own)
    .meta({
      info: 'social.settings',
      openapi: { method: 'GET', path: '/api/v1/social/{agentId}/settings', tags: [TAG], summary: 'Настройки сообщества ВКонтакте (ключ замаскирован)' },
    })
    .input(z.object({ agentId }))
    .output(socialSettingsView)
    .query(({ ctx }) => ctx.social.settings.read(ctx.agent.id)),

  putSettings: agentProcedure
    .use(own)
    .meta({
      info: 'social.settings',
      openapi: { method: 'PUT', path: '/api/v1/social/{agentId}/settings', tags: [TAG], summary: 'Сохранить настройки сообщества ВКонтакте' },
    })
    .input(socialSettingsInput.extend({ agentId }))
    .output(socialSettingsView)
    .mutation(({ ctx, input }) => {
      const { agentId: _, ...settings } = input;
      return ctx.social.settings.save(ctx.agent.id, settings);
    }),

  checkConnection: userProcedure
    .use(own)
    .meta({
      info: 'social.checkConnection',
      openapi: {
        method: 'POST',
        path: '/api/v1/social/check-connection',
        tags: [TAG],
        summary: 'Проверить подключение к сообществу: введённый ключ доступа или сохранённый ключ агента (agentId)',
      },
    })
    .input(checkConnectionInput)
    .output(z.object({ ok: z.boolean(), groupName: z.string().optional(), reason: z.string().optional() }))
    .mutation(async ({ ctx, input }) => {
      const { settings } = ctx.social;
      // A typed token is tried as typed; without one, the saved token of the caller's own agent.
      if (input.accessToken !== undefined && input.groupId !== undefined) {
        return settings.checkConnection({ groupId: input.groupId, accessToken: input.accessToken });
      }
      const agent = await ctx.agents.requireOwned(ctx.principal.userId, input.agentId ?? '');
      return settings.checkSaved(agent.id, input.groupId);
    }),

  confirmationCode: agentProcedure
    .use(own)
    .meta({
      info: 'social.confirmationCode',
      openapi: {
        method: 'GET',
        path: '/api/v1/social/{agentId}/confirmation-code',
        tags: [TAG],
        summary: 'Код подтверждения сервера (запрашивается у ВКонтакте, если ещё не известен)',
      },
    })
    .input(z.object({ agentId }))
    .output(z.object({ confirmationCode: z.string() }))
    .query(async ({ ctx }) => ({ confirmationCode: await ctx.social.settings.confirmationCode(ctx.agent.id) })),

  registerWebhook: agentProcedure
    .use(own)
    .meta({
      info: 'social.registerWebhook',
      openapi: {
        method: 'POST',
        path: '/api/v1/social/{agentId}/webhook',
        tags: [TAG],
        summary: 'Подключить webhook как сервер Callback API сообщества',
      },
    })
    .input(z.object({ agentId }))
    .output(z.object({ serverId: z.number().int(), url: z.string(), status: z.string() }))
    .mutation(({ ctx }) => ctx.social.settings.registerWebhook(ctx.agent.id)),
});
