// Agent records and the ownership check every agent resource goes through.
import { type Base, defineSlot } from '../platform/feature';
import { createAgentService } from './service';

export function createAgentsApi({ db, config }: Base) {
  return { agents: createAgentService({ db, config }) };
}

export type AgentsApi = ReturnType<typeof createAgentsApi>;
export const agentsSlot = defineSlot<AgentsApi>('agents');
