// One turn of the agent's model for a client's message: the model is offered its agent's tools, each
// call it makes runs and its JSON result goes back to it, until it answers in text — or has been asked
// ASSISTANT_MAX_STEPS times, when the client gets a polite fallback (and a person, if the owner has a
// Telegram bot to receive them). Every call is billed to the agent's owner like a /v1 request, all under
// the turn's one request id, so the inbox shows the turn's cost as the sum of its calls.
//
// The owner's word is final (turn-guard.ts): before each model call, tool call and message the dialogue's
// mode is read again, and after a takeover the turn sends nothing and calls nothing more. What a tool did
// (a booking, an order) the system tells the client itself as soon as the tool returns (`announce`); the
// last allowed call is made with no tools offered, so the model has to answer in words.
import { and, desc, eq, isNull, ne, notInArray, or } from 'drizzle-orm';
import type { Agent } from '../agents';
import type { Database, Executor } from '../db/client';
import { dialogueMessages, dialogues } from '../dialogues/tables';
import type { ChatHandler, ChatRequest } from '../gateway';
import { AppError } from '../http/errors';
import type { Escalations } from '../integrations/messenger';
import type { OutboxWorker } from '../jobs/outbox';
import type { Logger } from '../logger';
import type { DialogueRow } from './flow';
import type { ReplyButtons } from './reply';
import { assistantTexts as t } from './texts';
import { runToolCall, type ToolRegistry } from './tools';
import { ESCALATE_TOOL } from './tools/escalation';
import { toolTexts } from './tools/texts';
import { clientContext, maskPhone } from './client-context';
import { createTurnGuard, keepTyping, toolArguments, UNSENT } from './turn-guard';
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
  /**
   * Says a text to the client (remembered and queued); `requestId` marks a text the model wrote. Given an
   * executor it writes in that transaction and the caller wakes the outbox.
   */
  say(dialogue: DialogueRow, text: string, requestId?: string, buttons?: ReplyButtons, executor?: Executor): Promise<void>;
  /** Shows the client that the assistant is typing (VK messages.setActivity); failures are the caller's to ignore. */
  typing?(dialogue: DialogueRow): Promise<void>;
  /** Config ASSISTANT_MAX_TOOL_CALLS: tool calls of one model answer that run; the rest are answered with an error. */
  maxToolCalls?: number;
  /** The owner's balance refused a model call: the dialogue stays with the bot (out-of-balance.ts). */
  outOfBalance(agent: Agent, dialogue: DialogueRow): Promise<string>;
  /** Whether the agent's owner has a Telegram bot to hand a client to. */
  hasMessenger(agentId: string): Promise<boolean>;
  /** Outside the agent's working hours: when a person answers («завтра с 10:00»); null within them. */
  whenClosed(agent: Agent): string | null;
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
  choices?: { message?: { content?: string | null; tool_calls?: { id?: string; type?: string; function?: { name?: unknown; arguments?: unknown } }[] } }[];
}

/** Model calls of a turn that may fail in a row before the client is handed to a person (or told to retry). */
const MODEL_ATTEMPTS = 2;
const DEFAULT_MAX_TOOL_CALLS = 8;

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
      // What was kept unsent after a takeover never reached the client: the model does not see it either.
      // Nor the owner's internal notes: written for the staff, never for the client.
      .where(
        and(
          eq(dialogueMessages.dialogueId, dialogue.id),
          notInArray(dialogueMessages.role, ['tool', 'note']),
          or(isNull(dialogueMessages.kind), ne(dialogueMessages.kind, UNSENT)),
        ),
      )
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

  const guard = createTurnGuard(db);

  /**
   * Hands the client to a person without asking for a phone first (the model cannot, or must not, go on);
   * a dialogue a person already holds is left as it is.
   */
  async function handOver(agent: Agent, dialogue: DialogueRow, text: string, reason: string) {
    const done = await guard.whileOurs(dialogue.id, async (tx) => {
      await deps.escalations.escalate({ agentId: agent.id, channel: dialogue.channel, peerId: dialogue.peerId, clientPhone: dialogue.clientPhone, reason }, tx);
      await deps.say(dialogue, text, undefined, undefined, tx);
    });
    if (done) deps.outbox.wake();
  }

  return async function runModelTurn(agent: Agent, dialogue: DialogueRow, requestId: string, input: ModelTurnInput): Promise<string> {
    const typing = keepTyping(deps.typing ? () => deps.typing!(dialogue) : null, logger);
    try {
      return await turn(agent, dialogue, requestId, input, typing);
    } finally {
      typing.stop();
    }
  };

  async function turn(agent: Agent, dialogue: DialogueRow, requestId: string, input: ModelTurnInput, typing: ReturnType<typeof keepTyping>): Promise<string> {
    if (!(await guard.ours(dialogue.id))) return 'taken_over';
    const offered = await deps.tools.toolsFor(agent);
    // A knowledge base that cannot be read costs the turn its hints, not its answer: search_knowledge remains.
    const knowledge = await deps.knowledgeForPrompt?.(agent.id, input.clientText).catch((error: unknown) => {
      logger.warn('knowledge for the prompt failed', { agentId: agent.id, requestId, error });
      return null;
    });
    // What the dialogue knows of the client: a returning client is not asked again for their name or phone.
    const facts = await deps.tools.clientFacts(agent, dialogue);
    const client = clientContext(dialogue, facts);
    if (client)
      logger.debug('the model is told what the dialogue knows of the client', {
        agentId: agent.id,
        requestId,
        phone: dialogue.clientPhone ? maskPhone(dialogue.clientPhone) : null,
        facts: facts.length,
      });
    const system = [agent.systemPrompt.trim(), knowledge, ASSISTANT_RULES, client, todayLine(deps.timeZone), input.context].filter(Boolean).join('\n\n');
    const messages: Message[] = [{ role: 'system', content: system }, ...(await history(dialogue, input))];
    const declarations = offered.tools.map(toolDeclaration);
    const ctx: ToolContext = { agent, dialogue, requestId, clientText: input.clientText };
    const maxToolCalls = deps.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    /** Whether the system told the client of an act (a booking, an order): no apology follows it. */
    let announced = false;

    /** Says `text` unless a person holds the dialogue now; then it is kept unsent and false says the turn is over. */
    async function tell(text: string, options: { byModel?: boolean; buttons?: ReplyButtons } = {}): Promise<boolean> {
      typing.stop();
      const id = options.byModel ? requestId : undefined;
      const sent = await guard.whileOurs(dialogue.id, (tx) => deps.say(ctx.dialogue, text, id, options.buttons, tx));
      if (sent) {
        deps.outbox.wake();
        return true;
      }
      await guard.keepUnsent(dialogue.id, text, id);
      logger.info('the dialogue is no longer the assistant’s (taken over, or messages denied); the answer is kept unsent', { agentId: agent.id, requestId });
      return false;
    }

    async function complete(body: Record<string, unknown>): Promise<Completion> {
      typing.pulse();
      const response = await deps.chat.complete({ userId: agent.userId, apiKeyId: null, agentId: agent.id }, body as unknown as ChatRequest, null, requestId, null);
      return (await response.json()) as Completion;
    }

    /** The turn could not be finished by the model: a person takes the client when one can be reached. */
    async function giveUp(outcome: string, alone: string, escalated: { open: string; closed: (when: string) => string }, reason: string): Promise<string> {
      if (announced) return `${outcome}_after_act`;
      if (await deps.hasMessenger(agent.id)) {
        typing.stop();
        const when = deps.whenClosed(agent);
        await handOver(agent, ctx.dialogue, when ? escalated.closed(when) : escalated.open, reason);
        return `${outcome}_escalated`;
      }
      return (await tell(alone)) ? outcome : 'taken_over';
    }

    let failures = 0;
    for (let step = 0; step < deps.maxSteps; step++) {
      if (!(await guard.ours(dialogue.id))) return 'taken_over';
      // The last allowed call offers no tools: the model must answer the client in words.
      const lastStep = step === deps.maxSteps - 1;
      const withTools = declarations.length > 0 && !lastStep;
      let completion: Completion;
      try {
        const body = { model: agent.model, messages, max_tokens: MAX_ANSWER_TOKENS, ...(withTools ? { tools: declarations } : {}) };
        completion = await complete(body);
        failures = 0;
      } catch (error) {
        if (error instanceof AppError && error.type === 'insufficient_balance') {
          logger.warn('agent owner is out of balance; the client is told the assistant is unavailable', { agentId: agent.id });
          typing.stop();
          return deps.outOfBalance(agent, ctx.dialogue);
        }
        failures += 1;
        logger.warn('model answer failed', { agentId: agent.id, requestId, step, failures, error });
        // One failure is tried again at once (the same step); a second in a row ends the turn.
        if (failures < MODEL_ATTEMPTS) {
          step -= 1;
          continue;
        }
        return giveUp('model_failed', t.modelUnavailable, { open: t.modelFailedEscalated, closed: t.modelFailedEscalatedClosed }, t.escalationReasonModelFailed);
      }
      const message = completion.choices?.[0]?.message;
      const text = typeof message?.content === 'string' ? message.content.trim() : '';
      // A call without a name stays a call: it is answered as an error, so the model can correct it.
      const calls: ToolCall[] = (Array.isArray(message?.tool_calls) ? message.tool_calls : []).map((c, i) => ({
        // A host that leaves out the id still needs one: the tool message answers the call by it.
        id: typeof c.id === 'string' && c.id !== '' ? c.id : `call_${step}_${i}`,
        type: 'function',
        function: { name: typeof c.function?.name === 'string' ? c.function.name.trim() : '', arguments: toolArguments(c.function?.arguments) },
      }));
      if (calls.length === 0 || !withTools) {
        // Tools asked for on a step that offered none are not run: only the words count.
        if (!text) {
          if (calls.length > 0) {
            logger.warn('model used up its steps without answering', { agentId: agent.id, requestId, maxSteps: deps.maxSteps });
            return giveUp('steps_exhausted', t.stepsExhausted, { open: t.stepsExhaustedEscalated, closed: t.stepsExhaustedEscalatedClosed }, t.escalationReasonSteps);
          }
          if (announced) return 'model_empty_after_act';
          return (await tell(t.modelUnavailable)) ? 'model_empty' : 'taken_over';
        }
        return (await tell(text, { byModel: true })) ? 'model_answer' : 'taken_over';
      }
      // «Секунду, проверяю…» beside the calls is said before they run.
      if (text && !(await tell(text, { byModel: true }))) return 'taken_over';
      messages.push({ role: 'assistant', content: typeof message?.content === 'string' ? message.content : null, tool_calls: calls });
      if (calls.length > maxToolCalls) {
        logger.warn('model asked for more tool calls than allowed in one answer', { agentId: agent.id, requestId, calls: calls.length, maxToolCalls });
      }
      // In the order the model gave them: a booking and then a cancellation must not swap.
      for (const [index, call] of calls.entries()) {
        if (index >= maxToolCalls) {
          messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify({ error: toolTexts.tooManyCalls(maxToolCalls) }) });
          continue;
        }
        // The owner's word is final: after a takeover no tool runs (no booking is made behind their back).
        if (!(await guard.ours(dialogue.id))) return 'taken_over';
        typing.pulse();
        const summarise = await recordTool(dialogue.id, call.function.name || toolTexts.namelessToolName, requestId);
        const done = await runToolCall(offered.tools, call.function, ctx, logger);
        await summarise(done.summary);
        if (done.announce) {
          // What the tool did is told by the system now, whatever the model writes next.
          announced = true;
          if (!(await tell(done.announce.text, { buttons: done.announce.buttons }))) return 'taken_over';
        }
        if (done.outcome) return done.outcome;
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(done.result ?? null) });
        // A tool may have learnt the client's name or phone: the next ones (and a hand-over) see it.
        ctx.dialogue = await reload(ctx.dialogue);
      }
    }

    // Only a model that keeps failing in a way retried above gets here (maxSteps spent on retries).
    logger.warn('model used up its steps without answering', { agentId: agent.id, requestId, maxSteps: deps.maxSteps });
    return giveUp('steps_exhausted', t.stepsExhausted, { open: t.stepsExhaustedEscalated, closed: t.stepsExhaustedEscalatedClosed }, t.escalationReasonSteps);
  }
}

export type RunModelTurn = ReturnType<typeof createModelTurn>;
