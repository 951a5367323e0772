// The agent's knowledge base for its model: the search_knowledge tool (every agent type), and the best
// entries put into the system prompt when they match the client's message well enough that the model
// should not have to ask for them.
import { z } from 'zod';
import type { Agent } from '../../agents';
import type { Knowledge } from '../../knowledge';
import { shopKnowledgeTexts } from './shop-knowledge-texts';
import type { AssistantTool, ToolProvider } from './types';

/** Entries one search gives the model. */
const SEARCH_LIMIT = 5;
/** Each entry's text as the model gets it: a long entry is cut, its opening is usually the answer. */
const ENTRY_CHARS = 2000;
/** Entries the prompt may carry, and their text in all. */
const PROMPT_ENTRIES = 3;
const PROMPT_CHARS = 4000;
/**
 * The score (the message's words' ts_rank summed; title weight 1.0, body 0.4) an entry must reach to go
 * into the prompt unasked: a word of the message in the entry's title («стрижка» in «Сколько стоит
 * стрижка?») scores ~0.67, a word only in its body ~0.1–0.25 — a passing word is left to search_knowledge.
 */
export const PROMPT_MIN_SCORE = 0.5;

const searchArgs = z.object({ query: z.string().trim().min(1).max(500) });

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function createKnowledgeTools(deps: { knowledge: Pick<Knowledge, 'search' | 'scoreAgainstMessage' | 'hasEntries'> }) {
  const searchKnowledge: AssistantTool = {
    name: 'search_knowledge',
    description: shopKnowledgeTexts.searchKnowledge,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: shopKnowledgeTexts.searchKnowledgeQuery } },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = searchArgs.safeParse(args);
      if (!parsed.success) {
        // Named by its field, so the model knows what to correct.
        const field = parsed.error.issues[0]?.path.join('.') || '';
        return {
          result: { ok: false, error: field ? shopKnowledgeTexts.badArgument(field) : shopKnowledgeTexts.badArguments },
          summary: shopKnowledgeTexts.summaryBadArgument(field),
        };
      }
      const hits = await deps.knowledge.search(ctx.agent.id, parsed.data.query, SEARCH_LIMIT);
      return {
        result: {
          entries: hits.map((h) => ({ title: h.title, content: clip(h.content, ENTRY_CHARS) })),
          ...(hits.length === 0 ? { note: shopKnowledgeTexts.knowledgeNothingFound } : {}),
        },
        summary: shopKnowledgeTexts.summaryKnowledge(parsed.data.query, hits.length),
      };
    },
  };

  const provider: ToolProvider = {
    async toolsFor(agent: Agent) {
      // Every agent type has a knowledge base; an empty one would only cost the owner a model call.
      if (await deps.knowledge.hasEntries(agent.id)) return { tools: [searchKnowledge], missing: [] };
      return { tools: [], missing: [{ name: 'search_knowledge', reason: shopKnowledgeTexts.missingKnowledge }] };
    },
  };

  return {
    provider,
    /**
     * The knowledge-base entries that answer the client's message well enough to go into the system prompt
     * (score ≥ PROMPT_MIN_SCORE, at most three), as one block of text; null when none does.
     */
    async knowledgeForPrompt(agentId: string, clientText: string): Promise<string | null> {
      const text = clientText.trim().slice(0, 500);
      if (!text) return null;
      const hits = (await deps.knowledge.scoreAgainstMessage(agentId, text, PROMPT_ENTRIES)).filter((h) => h.rank >= PROMPT_MIN_SCORE);
      if (hits.length === 0) return null;
      let room = PROMPT_CHARS;
      const blocks: string[] = [];
      for (const hit of hits) {
        const block = `### ${hit.title}\n${clip(hit.content, Math.min(ENTRY_CHARS, room))}`;
        if (room <= 100) break;
        blocks.push(block);
        room -= block.length;
      }
      return [shopKnowledgeTexts.promptKnowledgeHeader, ...blocks].join('\n\n');
    },
  };
}

export type KnowledgeTools = ReturnType<typeof createKnowledgeTools>;
