// Ownership guard for every agent-scoped route: the caller's JWT, then the agent must be theirs
// (unknown → 404 not_found, another user's → 403 forbidden), checked by agents/service.ts's requireOwned.
// A tRPC procedure builder, so it lives with tRPC: the agents feature below it knows nothing of routes.
import { agentsSlot } from '../agents/api';
import { userProcedure } from './init';

/**
 * A procedure whose input names an agent in `field` (a path parameter such as `{agentId}`); handlers get
 * `ctx.agent`, already checked. The input is read raw so the check runs before the input schema, and a
 * request for someone else's agent is refused the same way whatever else it carries.
 */
export function procedureForOwnedAgent(field: string) {
  return userProcedure.use(async ({ ctx, getRawInput, next }) => {
    const raw = (await getRawInput()) as Record<string, unknown> | undefined;
    const id = raw && typeof raw === 'object' ? raw[field] : undefined;
    const agent = await ctx.use(agentsSlot).agents.requireOwned(ctx.principal.userId, typeof id === 'string' ? id : '');
    return next({ ctx: { agent } });
  });
}

/** Agent-scoped routes under /api/v1/<integration>/{agentId}/…. */
export const agentProcedure = procedureForOwnedAgent('agentId');
