// Agent records (an assistant of a user) and the ownership rule every agent-scoped route relies on.
import { and, count, desc, eq, getTableColumns } from 'drizzle-orm';
import { isUuid } from '../db/uuid';
import type { Config } from '../config';
import type { Database } from '../db/client';
import { users } from '../accounts/tables';
import { agents } from './tables';
import { AppError } from '../http/errors';
import { agentsMessages } from './texts';
import type { AgentType, AgentUnavailableReason, WorkingHours } from './fields';
import { PROMPT_TEMPLATES } from './templates';

export { AGENT_TYPES, AGENT_UNAVAILABLE_REASONS, type AgentType, type AgentUnavailableReason, type WorkingHours } from './fields';

export interface Agent {
  id: string;
  userId: string;
  name: string;
  type: AgentType;
  systemPrompt: string;
  model: string;
  /** Clients' photos go to the model as images. */
  acceptsImages: boolean;
  /** Voice messages without VK's transcript are transcribed (billed to the owner). */
  transcribeVoice: boolean;
  /** The model they are transcribed with; null: TRANSCRIPTION_MODEL. */
  transcriptionModel: string | null;
  /** When a person answers clients (null: not said). */
  workingHours: WorkingHours | null;
  /** Since when the owner's balance has not paid the assistant's model (null: it pays). */
  outOfBalanceAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** When an operator blocked the owner's account (null: not blocked): the assistant then answers no client. */
  ownerBlockedAt: Date | null;
}

/** The agent as the API shows it to its owner. */
export interface AgentView {
  id: string;
  name: string;
  type: AgentType;
  systemPrompt: string;
  model: string;
  acceptsImages: boolean;
  transcribeVoice: boolean;
  transcriptionModel: string | null;
  workingHours: WorkingHours | null;
  createdAt: string;
  updatedAt: string;
  unavailableReason: AgentUnavailableReason | null;
}

export interface NewAgent {
  name: string;
  type: AgentType;
  systemPrompt?: string;
  model?: string;
  acceptsImages?: boolean;
}

export interface AgentPatch {
  name?: string;
  type?: AgentType;
  systemPrompt?: string;
  model?: string;
  acceptsImages?: boolean;
  transcribeVoice?: boolean;
  transcriptionModel?: string | null;
  workingHours?: WorkingHours | null;
}

export function agentView(agent: Agent): AgentView {
  return {
    id: agent.id,
    name: agent.name,
    type: agent.type,
    systemPrompt: agent.systemPrompt,
    model: agent.model,
    acceptsImages: agent.acceptsImages,
    transcribeVoice: agent.transcribeVoice,
    transcriptionModel: agent.transcriptionModel,
    workingHours: agent.workingHours ?? null,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    unavailableReason: agent.ownerBlockedAt ? 'account_blocked' : agent.outOfBalanceAt ? 'out_of_balance' : null,
  };
}

/** An agent row with its owner's standing, which the assistant and the agent page both need. */
const agentColumns = { ...getTableColumns(agents), ownerBlockedAt: users.blockedAt };

export interface AgentServiceDeps {
  db: Database;
  config: Pick<Config, 'defaultAgentModel' | 'maxAgentsPerUser'>;
}

export function createAgentService({ db, config }: AgentServiceDeps) {
  async function find(agentId: string): Promise<Agent | undefined> {
    if (!isUuid(agentId)) return undefined;
    const [row] = await db.select(agentColumns).from(agents).innerJoin(users, eq(users.id, agents.userId)).where(eq(agents.id, agentId)).limit(1);
    return row as Agent | undefined;
  }

  /**
   * The one ownership guard: an agent that does not exist is 404, another user's agent is 403. The
   * 403 tells a caller that the id exists, which decisions.md asks for (unlike keys, which stay 404).
   */
  async function requireOwned(userId: string, agentId: string): Promise<Agent> {
    const agent = await find(agentId);
    if (!agent) throw new AppError('not_found', agentsMessages.agentNotFound);
    if (agent.userId !== userId) throw new AppError('forbidden', agentsMessages.agentForbidden);
    return agent;
  }

  return {
    find,
    requireOwned,

    async create(userId: string, input: NewAgent): Promise<AgentView> {
      const row = await db.transaction(async (tx) => {
        // Locking the owner's row serialises that user's creations, so parallel ones cannot pass the cap
        // together (NO KEY UPDATE, as for keys: it must not wait for the billing writer's foreign-key locks).
        await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
        const [{ value: existing } = { value: 0 }] = await tx.select({ value: count() }).from(agents).where(eq(agents.userId, userId));
        if (Number(existing) >= config.maxAgentsPerUser) {
          throw new AppError('invalid_request_error', agentsMessages.tooManyAgents(config.maxAgentsPerUser));
        }
        const [inserted] = await tx
          .insert(agents)
          .values({
            userId,
            name: input.name,
            type: input.type,
            // No prompt sent: the type's template, which the owner edits (an explicit empty one stays empty).
            systemPrompt: input.systemPrompt ?? PROMPT_TEMPLATES[input.type],
            model: input.model ?? config.defaultAgentModel,
            acceptsImages: input.acceptsImages ?? false,
          })
          .returning();
        return inserted;
      });
      // The caller has just been let in, which a blocked account is not.
      return agentView({ ...(row as Omit<Agent, 'ownerBlockedAt'>), ownerBlockedAt: null });
    },

    async list(userId: string): Promise<{ agents: AgentView[]; count: number }> {
      const rows = await db
        .select(agentColumns)
        .from(agents)
        .innerJoin(users, eq(users.id, agents.userId))
        .where(eq(agents.userId, userId))
        .orderBy(desc(agents.createdAt), desc(agents.id));
      const list = (rows as Agent[]).map(agentView);
      return { agents: list, count: list.length };
    },

    async get(userId: string, agentId: string): Promise<AgentView> {
      return agentView(await requireOwned(userId, agentId));
    },

    async update(userId: string, agentId: string, patch: AgentPatch): Promise<AgentView> {
      const agent = await requireOwned(userId, agentId);
      // Integrations (booking for Service agents) are set up per type, so the type stays what it was.
      if (patch.type !== undefined && patch.type !== agent.type) {
        throw new AppError('invalid_request_error', agentsMessages.agentTypeFixed);
      }
      const changes: Partial<typeof agents.$inferInsert> = {};
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.systemPrompt !== undefined) changes.systemPrompt = patch.systemPrompt;
      if (patch.model !== undefined) changes.model = patch.model;
      if (patch.acceptsImages !== undefined) changes.acceptsImages = patch.acceptsImages;
      if (patch.transcribeVoice !== undefined) changes.transcribeVoice = patch.transcribeVoice;
      if (patch.transcriptionModel !== undefined) changes.transcriptionModel = patch.transcriptionModel;
      if (patch.workingHours !== undefined) changes.workingHours = patch.workingHours;
      if (Object.keys(changes).length === 0) return agentView(agent);
      const [row] = await db
        .update(agents)
        .set({ ...changes, updatedAt: new Date() })
        .where(and(eq(agents.id, agent.id), eq(agents.userId, userId)))
        .returning();
      if (!row) throw new AppError('not_found', agentsMessages.agentNotFound);
      return agentView({ ...(row as Omit<Agent, 'ownerBlockedAt'>), ownerBlockedAt: agent.ownerBlockedAt });
    },

    /** Deletes the agent and, by cascade, its integration settings, dialogues and pending notifications. */
    async remove(userId: string, agentId: string): Promise<void> {
      const agent = await requireOwned(userId, agentId);
      await db.delete(agents).where(and(eq(agents.id, agent.id), eq(agents.userId, userId)));
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
