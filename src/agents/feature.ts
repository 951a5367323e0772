// Agents as they plug into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { agentsRouter } from './router';
import { agentsSlot, createAgentsApi } from './api';

export const agentsFeature = defineFeature({ slot: agentsSlot, create: createAgentsApi, routers: { agents: agentsRouter } });
