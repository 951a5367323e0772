// The knowledge base as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createKnowledgeApi, knowledgeSlot } from './api';
import { knowledgeRouter } from './router';

export const knowledgeFeature = defineFeature({ slot: knowledgeSlot, create: createKnowledgeApi, routers: { knowledge: knowledgeRouter } });
