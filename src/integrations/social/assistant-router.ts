// /api/v1/agents/:agentId/tools : which tools the agent's model gets now, and which it would get once
// the owner adds what is missing («Подключите YCLIENTS», «Добавьте товары в каталог»), for the agent page.
import { z } from 'zod';
import { agentProcedure } from '../../trpc/agent-guard';
import { router, inject } from '../../trpc/init';
import { socialSlot } from './api';

/** What these procedures use of the features. */
const own = inject((use) => ({ social: use(socialSlot).social }));

export const assistantRouter = router({
  tools: agentProcedure
    .use(own)
    .meta({
      openapi: { method: 'GET', path: '/api/v1/agents/{agentId}/tools', tags: ['agents'], summary: 'Инструменты модели агента и чего не хватает для остальных' },
    })
    .input(z.object({ agentId: z.string().max(100) }))
    .output(
      z.object({
        tools: z.array(z.object({ name: z.string(), description: z.string() })),
        missing: z.array(z.object({ name: z.string(), reason: z.string() })),
      }),
    )
    // The assistant's own registry: escalation and every family, exactly what a turn would offer.
    .query(async ({ ctx }) => {
      const { tools, missing } = await ctx.social.assistant.toolsFor(ctx.agent);
      return { tools: tools.map((t) => ({ name: t.name, description: t.description })), missing };
    }),
});
