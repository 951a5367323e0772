// One turn of the agent's model for a client's message: the model is offered its agent's tools, each
// call it makes runs and its JSON result goes back to it, until it answers in text — or has been asked
// ASSISTANT_MAX_STEPS times, when the client gets a polite fallback (and a person, if the owner has a
// Telegram bot to receive them). Every call is billed to the agent's owner like a /v1 request, all under
// the turn's one request id, so the inbox shows the turn's cost as the sum of its calls.
import { and, desc, eq, ne } from 'drizzle-orm';
import type { Agent } from '../agents/service';
import type { Database } from '../db/client';
import { dialogueMessages, dialogues } from '../db/schema';
import type { ChatHandler } from '../gateway/chat';
import type { ChatRequest } from '../gateway/request';
import { AppError } from '../http/errors';
import type { Escalations } from '../integrations/messenger/escalations';
import { SOCIAL_CHANNEL } from '../integrations/social/sender';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { DialogueRow } from './flow';
import { assistantTexts as t } from './texts';
import { runToolCall, type ToolRegistry } from './tools';
import { ESCALATE_TOOL } from './tools/escalation';
import { toolDeclaration, type ToolContext } from './tools/types';

/** Turns of the dialogue the model sees. */
const HISTORY_TURNS = 20;
const MAX_ANSWER_TOKENS = 1024;
const MAX_TURN = 8000;

const ASSISTANT_RULES = [
  'Ты отвечаешь клиентам в сообщениях сообщества ВКонтакте. Пиши по-русски, коротко и по делу, без разметки Markdown.',
  'Услуги, цены, свободное время, записи и другие данные бизнеса бери только из результатов функций; не придумывай их.',
  `Если ты не можешь ответить (нужны данные, которых у тебя нет, жалоба, нестандартная просьба) или клиент просит живого человека, вызови функцию ${ESCALATE_TOOL} с короткой причиной вместо ответа.`,
].join('\n');

export interface ModelTurnInput {
  /** The client's message that started the turn. */
  clientText: string;
  /** Image URLs of that message: sent as `image_url` parts of the last user message. */
  images?: string[];
  /** Where a button flow in progress stands (a question asked mid-flow), for the system prompt. */
  context?: string;
}

export interface ModelTurnDeps {
  db: Database;
  chat: Pick<ChatHandler, 'complete'>;
  escalations: Pick<Escalations, 'escalate'>;
  outbox: Pick<OutboxWorker, 'wake'>;
  tools: ToolRegistry;
  /** Says a text to the client (remembered and queued); `requestId` marks a text the model wrote. */
  say(dialogue: DialogueRow, text: string, requestId?: string): Promise<void>;
  /** The owner's balance refused a model call: the dialogue stays with the bot (out-of-balance.ts). */
  outOfBalance(agent: Agent, dialogue: DialogueRow): Promise<string>;
  /** Whether the agent's owner has a Telegram bot to hand a client to. */
  hasMessenger(agentId: string): Promise<boolean>;
  /** Config ASSISTANT_MAX_STEPS: model calls one client message may cost. */
  maxSteps: number;
  /** Where "today" is for the model (the salon's bookings are in local dates). */
  timeZone: string;
  /** The knowledge entries that match the client's message well, put into the turn's system prompt. */
  knowledgeForPrompt?: (agentId: string, clientText: string) => Promise<string | null>;
  logger: Logger;
}

type Message = Record<string, unknown> & { role: string };
interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
interface Completion {
  choices?: { message?: { content?: string | null; tool_calls?: { id?: string; type?: string; function?: { name?: string; arguments?: string } }[] } }[];
}

const WEEKDAYS = ['воскресенье', 'понедельник', 'вторник', 'среда', 'четверг', 'пятница', 'суббота'];

/** "Сегодня 2026-12-01, вторник." in the given zone: the model needs it for «завтра» and «в субботу». */
function todayLine(timeZone: string, now = new Date()): string {
  const date = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const weekday = WEEKDAYS[new Date(`${date}T12:00:00Z`).getUTCDay()];
  return `Сегодня ${date}, ${weekday} (время ${timeZone}).`;
}

export function createModelTurn(deps: ModelTurnDeps) {
  const { db, logger } = deps;

  async function history(dialogue: DialogueRow, input: ModelTurnInput): Promise<Message[]> {
    const turns = await db
      .select({ role: dialogueMessages.role, content: dialogueMessages.content })
      .from(dialogueMessages)
      // Tool turns are the owner's record of what the model did; the model gets the results live, in the turn.
      .where(and(eq(dialogueMessages.dialogueId, dialogue.id), ne(dialogueMessages.role, 'tool')))
      .orderBy(desc(dialogueMessages.id))
      .limit(HISTORY_TURNS);
    const messages: Message[] = turns.reverse().map((m) => ({ role: m.role === 'user' ? 'user' : 'assistant', content: m.content }));
    const images = (input.images ?? []).filter((url) => url.trim() !== '');
    if (images.length === 0) return messages;
    const imageParts = images.map((url) => ({ type: 'image_url', image_url: { url } }));
    const last = messages.at(-1);
    // The client's message is normally the last turn already; a photo without text left no turn behind.
    if (last?.role === 'user' && last.content === input.clientText) {
      last.content = [{ type: 'text', text: input.clientText }, ...imageParts];
    } else {
      messages.push({ role: 'user', content: [...(input.clientText.trim() ? [{ type: 'text', text: input.clientText }] : []), ...imageParts] });
    }
    return messages;
  }

  /**
   * The call goes into the transcript before it runs and gets its summary after: what a tool says to the
   * client (escalation asks for a phone) then follows the call in the owner's view, as it happened.
   */
  async function recordTool(dialogueId: string, name: string, requestId: string): Promise<(summary: string) => Promise<void>> {
    const [row] = await db
      .insert(dialogueMessages)
      .values({ dialogueId, role: 'tool', toolName: name, content: name, requestId })
      .returning({ id: dialogueMessages.id });
    return async (summary) => {
      await db
        .update(dialogueMessages)
        .set({ content: summary.slice(0, MAX_TURN) || name })
        .where(eq(dialogueMessages.id, row!.id));
    };
  }

  async function reload(dialogue: DialogueRow): Promise<DialogueRow> {
    const [row] = await db.select().from(dialogues).where(eq(dialogues.id, dialogue.id)).limit(1);
    return row ?? dialogue;
  }

  /** Hands the client to a person without asking for a phone first (the model cannot, or must not, go on). */
  async function handOver(agent: Agent, dialogue: DialogueRow, text: string, reason: string) {
    await db.transaction(async (tx) => {
      await deps.escalations.escalate(
        { agentId: agent.id, channel: SOCIAL_CHANNEL, peerId: dialogue.peerId, clientPhone: dialogue.clientPhone, reason },
        tx,
      );
    });
    await deps.say(dialogue, text);
    deps.outbox.wake();
  }

  return async function runModelTurn(agent: Agent, dialogue: DialogueRow, requestId: string, input: ModelTurnInput): Promise<string> {
    const offered = await deps.tools.toolsFor(agent);
    // A knowledge base that cannot be read costs the turn its hints, not its answer: search_knowledge remains.
    const knowledge = await deps.knowledgeForPrompt?.(agent.id, input.clientText).catch((error: unknown) => {
      logger.warn('knowledge for the prompt failed', { agentId: agent.id, requestId, error });
      return null;
    });
    const system = [agent.systemPrompt.trim(), knowledge, ASSISTANT_RULES, todayLine(deps.timeZone), input.context].filter(Boolean).join('\n\n');
    const messages: Message[] = [{ role: 'system', content: system }, ...(await history(dialogue, input))];
    const declarations = offered.tools.map(toolDeclaration);
    const ctx: ToolContext = { agent, dialogue, requestId, clientText: input.clientText };

    for (let step = 0; step < deps.maxSteps; step++) {
      let completion: Completion;
      try {
        const body = { model: agent.model, messages, max_tokens: MAX_ANSWER_TOKENS, ...(declarations.length > 0 ? { tools: declarations } : {}) };
        const response = await deps.chat.complete({ userId: agent.userId, apiKeyId: null, agentId: agent.id }, body as ChatRequest, null, requestId, null);
        completion = (await response.json()) as Completion;
      } catch (error) {
        if (error instanceof AppError && error.type === 'insufficient_balance') {
          logger.warn('agent owner is out of balance; the client is told the assistant is unavailable', { agentId: agent.id });
          return deps.outOfBalance(agent, ctx.dialogue);
        }
        logger.warn('model answer failed', { agentId: agent.id, requestId, step, error });
        await deps.say(ctx.dialogue, t.modelUnavailable);
        return 'model_failed';
      }
      const message = completion.choices?.[0]?.message;
      const calls: ToolCall[] = (message?.tool_calls ?? [])
        .filter((c) => typeof c.function?.name === 'string')
        .map((c, i) => ({
          // A host that leaves out the id still needs one: the tool message answers the call by it.
          id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${step}_${i}`,
          type: 'function',
          function: { name: c.function!.name!, arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : '{}' },
        }));
      if (calls.length === 0) {
        const text = typeof message?.content === 'string' ? message.content.trim() : '';
        if (!text) {
          await deps.say(ctx.dialogue, t.modelUnavailable);
          return 'model_empty';
        }
        await deps.say(ctx.dialogue, text, requestId);
        return 'model_answer';
      }
      messages.push({ role: 'assistant', content: typeof message?.content === 'string' ? message.content : null, tool_calls: calls });
      // In the order the model gave them: a booking and then a cancellation must not swap.
      for (const call of calls) {
        const summarise = await recordTool(dialogue.id, call.function.name, requestId);
        const done = await runToolCall(offered.tools, call.function, ctx, logger);
        await summarise(done.summary);
        if (done.outcome) return done.outcome;
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(done.result ?? null) });
        // A tool may have learnt the client's name or phone: the next ones (and a hand-over) see it.
        ctx.dialogue = await reload(ctx.dialogue);
      }
    }

    logger.warn('model used up its steps without answering', { agentId: agent.id, requestId, maxSteps: deps.maxSteps });
    if (await deps.hasMessenger(agent.id)) {
      await handOver(agent, ctx.dialogue, t.stepsExhaustedEscalated, t.escalationReasonSteps);
      return 'steps_exhausted_escalated';
    }
    await deps.say(ctx.dialogue, t.stepsExhausted);
    return 'steps_exhausted';
  };
}

export type RunModelTurn = ReturnType<typeof createModelTurn>;
