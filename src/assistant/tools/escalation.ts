// escalate_to_human, offered to every agent: the model hands the client to a person. The hand-over itself
// is the dialogue's (it asks for a phone when none is known), so the tool only calls it and ends the turn.
import type { Agent } from '../../agents';
import type { DialogueRow } from '../flow';
import { assistantTexts } from '../texts';
import { toolTexts } from './texts';
import type { ToolProvider } from './types';

export const ESCALATE_TOOL = 'escalate_to_human';
const DEFAULT_REASON = 'вопрос вне компетенции ассистента';

/** The dialogue's hand-over: asks the client for a phone first when none is known. */
export type Escalate = (agent: Agent, dialogue: DialogueRow, reason: string) => Promise<'asked_phone' | 'escalated'>;

export function createEscalationTools(escalate: Escalate): ToolProvider {
  return {
    async toolsFor() {
      return {
        missing: [],
        tools: [
          {
            name: ESCALATE_TOOL,
            description:
              'Передать диалог живому сотруднику, когда ассистент не может помочь сам (нет нужных данных, жалоба, нестандартная просьба) или клиент просит человека. После вызова ассистент больше не отвечает: клиенту сообщат, что вопрос передан.',
            parameters: {
              type: 'object',
              properties: { reason: { type: 'string', description: 'Коротко: почему нужен человек' } },
              required: ['reason'],
            },
            async run(args, ctx) {
              const given = typeof args.reason === 'string' ? args.reason.trim().slice(0, 300) : '';
              const reason = given || DEFAULT_REASON;
              const outcome = await escalate(ctx.agent, ctx.dialogue, assistantTexts.escalationReasonModel(reason));
              return {
                result: { status: outcome },
                summary: outcome === 'escalated' ? toolTexts.summaryEscalated(reason) : toolTexts.summaryAskedPhone(reason),
                outcome,
              };
            },
          },
        ],
      };
    },
  };
}
