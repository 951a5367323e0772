// Typed text equal to a button's label acts as that button (decisions.md, third round): «Записаться»,
// «Корзина», «Оформить заказ» typed do what pressing does. Compared as the text triggers are (case, ё,
// punctuation and emoji around the words ignored). The main menu's labels of the agent's type count always;
// the labels of the keyboard on the assistant's last message (a specialist's name, a time, «➕ Платье»)
// only while it is the last one, since «Анна» typed later may mean anything.
import type { AgentType } from '../agents';
import type { ShownButtons } from './channel';
import { ACTIONS, typedMenuButtons } from './menus';
import type { ButtonPayload } from './reply';
import { normaliseText } from './triggers';

/**
 * The cart's ➕/➖ buttons carry a product's name: a client typing that name in front of the cart means the
 * product, not "one less of it". A text answer the model offered (offer_choices) typed is what it stands
 * for anyway: the typed text goes to the model as it is.
 */
const NOT_BY_TYPING: ReadonlySet<string> = new Set([ACTIONS.cartInc, ACTIONS.cartDec, ACTIONS.choiceText]);

function keyboardButtons(shown: ShownButtons): { label: string; payload: ButtonPayload }[] {
  const out: { label: string; payload: ButtonPayload }[] = [];
  for (const button of shown.flat()) {
    try {
      const payload = JSON.parse(button.payload) as ButtonPayload;
      if (typeof payload?.action === 'string' && !NOT_BY_TYPING.has(payload.action)) out.push({ label: button.label, payload });
    } catch {
      // A link (no payload) or a payload we did not write: not a button to press by typing.
    }
  }
  return out;
}

/**
 * The press a typed text stands for, or null (no label matches, or it matches buttons that differ).
 * `lastButtons`: those of the client's last message, as the channel showed them.
 */
export function buttonForTypedText(text: string, type: AgentType, lastButtons: ShownButtons): ButtonPayload | null {
  const typed = normaliseText(text);
  if (typed === '') return null;
  const matches = new Map<string, ButtonPayload>();
  for (const button of [...typedMenuButtons(type), ...keyboardButtons(lastButtons)]) {
    if (normaliseText(button.label) === typed) matches.set(JSON.stringify(button.payload), button.payload);
  }
  return matches.size === 1 ? [...matches.values()][0]! : null;
}

/**
 * The label of the callback button a client pressed (a press carries only its payload): looked up on the
 * keyboards recently sent in the dialogue (newest first), then the main menu; null when none has it.
 */
export function labelOfPress(payload: ButtonPayload, type: AgentType, recent: ShownButtons[]): string | null {
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
