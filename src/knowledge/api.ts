// The knowledge base an agent answers from.
import { type Base, defineSlot } from '../platform/feature';
import { createKnowledge } from './service';

export function createKnowledgeApi({ db }: Base) {
  return { knowledge: createKnowledge(db) };
}

export type KnowledgeApi = ReturnType<typeof createKnowledgeApi>;
export const knowledgeSlot = defineSlot<KnowledgeApi>('knowledge');
