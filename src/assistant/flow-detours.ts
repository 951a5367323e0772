// The ordinary turns of a client in the middle of a button flow (booking, check-out, the hand-over's phone
// request): «Подтвердить» / «Изменить» under a summary, «Отмена», «Пропустить», a refusal to give a phone,
// and a question, which the model answers knowing where the flow stands before the flow's question is
// asked again. The dialogue calls in here; the flows keep their own steps.
import { and, desc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Agent } from '../agents';
import type { Database, Executor } from '../db/client';
import { dialogueMessages, dialogues } from '../dialogues/tables';
import { normalisePhone } from '../phone';
import type { BookingFlow } from './booking-flow';
import type { DialogueRow, Flow, Say, SetFlow } from './flow';
import { flowPlace, flowTexts as ft } from './flow-texts';
import { ACTIONS, handoffPhoneKeyboard, mainMenu } from './menus';
import type { ButtonPayload } from './reply';
import type { ShopFlow } from './shop-flow';
import { isCancel, isQuestion, refusesPhone } from './turn-intent';

/** The dialogue's hand-over: `phone` null with `askPhone` false hands over without one. */
export type HandOver = (agent: Agent, dialogue: DialogueRow, reason: string, phone?: string | null, askPhone?: boolean) => Promise<'asked_phone' | 'escalated'>;

export interface FlowDetoursDeps {
  db: Database;
  say: Say;
  setFlow: SetFlow;
  escalate: HandOver;
  bookingFlow: BookingFlow;
  shopFlow: ShopFlow;
}

/**
 * Whether a model answer about to be sent is late: a keyboard was sent (a button's reply) after the client's
 * newest typed message, which the answer is for. Such an answer must not take that keyboard's place as the
 * one whose labels act when typed («➕ Плед» after a catalog page is still the button).
 */
export async function keyboardAnsweredLater(db: Executor, dialogueId: string): Promise<boolean> {
  const newest = (where: ReturnType<typeof and>) =>
    db.select({ id: dialogueMessages.id }).from(dialogueMessages).where(where).orderBy(desc(dialogueMessages.id)).limit(1);
  const [typed] = await newest(and(eq(dialogueMessages.dialogueId, dialogueId), eq(dialogueMessages.role, 'user'), isNull(dialogueMessages.kind)));
  const [keyboard] = await newest(and(eq(dialogueMessages.dialogueId, dialogueId), eq(dialogueMessages.role, 'assistant'), isNotNull(dialogueMessages.buttons)));
  return Boolean(typed && keyboard && Number(keyboard.id) > Number(typed.id));
}

const sameFlow = (a: Flow | null, b: Flow | null) => JSON.stringify(a) === JSON.stringify(b);

export function createFlowDetours(deps: FlowDetoursDeps) {
  const { say, setFlow } = deps;
  const tools = { say, setFlow };

  /** «Отмена» (typed or pressed): the flow ends, the client gets the menu and is told what was not done. */
  async function cancel(agent: Agent, dialogue: DialogueRow): Promise<string> {
    const flow = dialogue.flow as Flow | null;
    await setFlow(deps.db, dialogue.id, null);
    const text = !flow
      ? ft.flowCanceled
      : flow.step === 'phone'
        ? ft.handoffCanceled
        : flow.step.startsWith('checkout')
          ? ft.checkoutCanceled
          : flow.step === 'reschedule_confirm'
            ? ft.rescheduleCanceled
            : ft.bookingCanceled;
    await say(dialogue, text, mainMenu(agent.type));
    return flow?.step === 'phone' ? 'handoff_canceled' : 'flow_canceled';
  }

  return {
    /** The flows' own buttons; null when `payload` is none of them. */
    async act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload): Promise<string | null> {
      const flow = dialogue.flow as Flow | null;
      switch (payload.action) {
        case ACTIONS.cancelFlow:
          return cancel(agent, dialogue);
        case ACTIONS.skipPhone:
          if (flow?.step === 'phone') return deps.escalate(agent, dialogue, flow.reason, null, false);
          break;
        case ACTIONS.confirm:
        case ACTIONS.change: {
          const confirmed = payload.action === ACTIONS.confirm;
          const answered =
            (agent.type === 'ecommerce' ? await deps.shopFlow.answerSummary(agent, dialogue, confirmed, tools) : null) ??
            (await deps.bookingFlow.answerSummary(agent, dialogue, confirmed, tools));
          if (answered) return answered;
          break;
        }
        default:
          return null;
      }
      // A button of a summary or a request no longer open (pressed twice, or after «Отмена»).
      await say(dialogue, ft.staleButton, mainMenu(agent.type));
      return 'stale_button';
    },

    /**
     * A typed answer to the hand-over's phone request: a phone hands over with it; «Пропустить» or a refusal
     * («Не хочу давать номер, ответьте тут») hands over without one; «Отмена» keeps the client with the bot;
     * a question returns null for the model, and the request is made again after its answer.
     */
    async continueHandoff(agent: Agent, dialogue: DialogueRow, flow: Extract<Flow, { step: 'phone' }>, text: string): Promise<string | null> {
      const phone = normalisePhone(text);
      if (phone) return deps.escalate(agent, dialogue, flow.reason, phone);
      if (refusesPhone(text)) return deps.escalate(agent, dialogue, flow.reason, null, false);
      if (isCancel(text)) return cancel(agent, dialogue);
      if (isQuestion(text) || /\p{L}/u.test(text)) return null;
      await say(dialogue, ft.handoffPhoneNotUnderstood, handoffPhoneKeyboard());
      return 'phone_not_understood';
    },

    /** What the model is told of a flow in progress (null: none). */
    modelContext(dialogue: DialogueRow): string | undefined {
      const flow = dialogue.flow as Flow | null;
      return flow ? ft.modelContext(flowPlace(flow)) : undefined;
    },

    /**
     * After the model answered a question asked mid-flow: the flow's question again, when the flow is still
     * where it was (the model did not hand the client over, the owner did not take the dialogue).
     */
    async resume(agent: Agent, dialogueId: string, before: Flow | null): Promise<void> {
      if (!before) return;
      const [now] = await deps.db.select().from(dialogues).where(eq(dialogues.id, dialogueId)).limit(1);
      if (!now || now.mode === 'operator' || !sameFlow(now.flow as Flow | null, before)) return;
      if (before.step === 'phone') {
        await say(now, ft.askHandoffPhone, handoffPhoneKeyboard());
        return;
      }
      if (before.step.startsWith('checkout')) await deps.shopFlow.resume(agent, now, before, tools);
      else await deps.bookingFlow.resume(agent, now, before, tools);
    },
  };
}

export type FlowDetours = ReturnType<typeof createFlowDetours>;
