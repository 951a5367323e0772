// Typed text equal to a button's label acts as that button (decisions.md, third round): «Записаться»,
// «Корзина», «Оформить заказ» typed do what pressing does. Compared as the text triggers are (case, ё,
// punctuation and emoji around the words ignored). The main menu's labels of the agent's type count always;
// the labels of the keyboard on the assistant's last message (a specialist's name, a time, «➕ Платье»)
// only while it is the last one, since «Анна» typed later may mean anything.
import type { AgentType } from '../agents/service';
import type { ButtonPayload, VkKeyboard } from '../integrations/social/keyboards';
import { ACTIONS, typedMenuButtons } from './menus';
import { normaliseText } from './triggers';

/**
 * The cart's ➕/➖ buttons carry a product's name: a client typing that name in front of the cart means the
 * product, not "one less of it".
 */
const NOT_BY_TYPING: ReadonlySet<string> = new Set([ACTIONS.cartInc, ACTIONS.cartDec]);

function keyboardButtons(keyboard: unknown): { label: string; payload: ButtonPayload }[] {
  const rows = (keyboard as VkKeyboard | null)?.buttons;
  if (!Array.isArray(rows)) return [];
  const out: { label: string; payload: ButtonPayload }[] = [];
  for (const button of rows.flat()) {
    const action = button?.action;
    if (!action || typeof action.label !== 'string' || typeof action.payload !== 'string') continue;
    try {
      const payload = JSON.parse(action.payload) as ButtonPayload;
      if (typeof payload?.action === 'string' && !NOT_BY_TYPING.has(payload.action)) out.push({ label: action.label, payload });
    } catch {
      // A payload we did not write: not a button of ours.
    }
  }
  return out;
}

/** The press a typed text stands for, or null (no label matches, or it matches buttons that differ). */
export function buttonForTypedText(text: string, type: AgentType, lastKeyboard: unknown): ButtonPayload | null {
  const typed = normaliseText(text);
  if (typed === '') return null;
  const matches = new Map<string, ButtonPayload>();
  for (const button of [...typedMenuButtons(type), ...keyboardButtons(lastKeyboard)]) {
    if (normaliseText(button.label) === typed) matches.set(JSON.stringify(button.payload), button.payload);
  }
  return matches.size === 1 ? [...matches.values()][0]! : null;
}

/** A keyboard's buttons by row as the transcript keeps them: the label the client saw, the payload a press brings back. */
export type RecordedButtons = { label: string; payload: string }[][];

export function recordedButtons(keyboard: VkKeyboard): RecordedButtons {
  // A link button brings nothing back: it is recorded with an empty payload.
  return keyboard.buttons.map((row) => row.map((button) => ({ label: button.action.label, payload: button.action.payload ?? '' })));
}

/**
 * The label of the callback button a client pressed (a press carries only its payload): looked up on the
 * keyboards recently sent in the dialogue (newest first), then the main menu; null when none has it.
 */
export function labelOfPress(payload: ButtonPayload, type: AgentType, recent: RecordedButtons[]): string | null {
  const wanted = canonical(payload);
  const sameButton = (stored: string) => {
    try {
      return canonical(JSON.parse(stored)) === wanted;
    } catch {
      return false;
    }
  };
  for (const rows of recent) {
    const found = rows.flat().find((b) => sameButton(b.payload));
    if (found) return found.label;
  }
  return typedMenuButtons(type).find((b) => canonical(b.payload) === wanted)?.label ?? null;
}

/** A payload's JSON with its keys sorted: a press read back from jsonb has its keys in jsonb's order, not ours. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
