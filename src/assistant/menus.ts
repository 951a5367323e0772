// The main menu per agent type: callback buttons whose payload `action` the dialogue routes on.
import type { AgentType } from '../agents';
import { flowTexts as ft } from './flow-texts';
import { myBookingsTexts } from './my-bookings-texts';
import { callbackButton, type ButtonPayload, type ReplyButtons } from './reply';
import { assistantTexts as t } from './texts';

/** Every payload action the assistant understands. */
export const ACTIONS = {
  menu: 'menu',
  help: 'help',
  catalog: 'catalog',
  cart: 'cart',
  book: 'book',
  specialists: 'specialists',
  pickSpecialist: 'pick_specialist',
  pickService: 'pick_service',
  pickSlot: 'pick_slot',
  cartAdd: 'cart_add',
  cartInc: 'cart_inc',
  cartDec: 'cart_dec',
  cartClear: 'cart_clear',
  checkout: 'checkout',
  deliveryMethod: 'delivery_method',
  // A flow's summary and its way out (assistant/flow-texts.ts).
  confirm: 'confirm',
  change: 'change',
  cancelFlow: 'cancel_flow',
  skipPhone: 'skip_phone',
  reschedule: 'reschedule',
  // Choices the model attached to its answer (tools/choices.ts): a free time, a service, a text answer.
  choiceSlot: 'choice_slot',
  choiceService: 'choice_service',
  choiceText: 'choice_text',
  myBookings: 'my_bookings',
} as const;

export function mainMenu(type: AgentType): ReplyButtons {
  const rows: ReplyButtons = [];
  if (type === 'service') {
    rows.push([callbackButton(t.buttonBook, { action: ACTIONS.book }, 'positive'), callbackButton(t.buttonSpecialists, { action: ACTIONS.specialists }, 'primary')]);
    rows.push([callbackButton(myBookingsTexts.buttonMine, { action: ACTIONS.myBookings }, 'primary')]);
  }
  if (type === 'ecommerce') {
    rows.push([callbackButton(t.buttonCatalog, { action: ACTIONS.catalog }, 'positive'), callbackButton(t.buttonCart, { action: ACTIONS.cart }, 'primary')]);
  }
  rows.push([callbackButton(t.buttonMenu, { action: ACTIONS.menu }, 'secondary'), callbackButton(t.buttonHelp, { action: ACTIONS.help }, 'secondary')]);
  return rows;
}

/**
 * Labels a client may type instead of pressing, whatever was sent last: the main menu's buttons of the
 * agent's type, «Меню» (which the welcome tells them to type), and for a shop «Оформить заказ» (the cart's
 * button, which a client types from memory).
 */
export function typedMenuButtons(type: AgentType): { label: string; payload: ButtonPayload }[] {
  const buttons = mainMenu(type)
    .flat()
    .flatMap((b) => (b.kind === 'callback' ? [{ label: b.label, payload: b.payload }] : []));
  buttons.push({ label: t.typedMenu, payload: { action: ACTIONS.menu } });
  if (type === 'ecommerce') buttons.push({ label: t.buttonCheckout, payload: { action: ACTIONS.checkout } });
  return buttons;
}

/** The one way out of a flow's step that waits for typed text. */
export function cancelKeyboard(): ReplyButtons {
  return [[callbackButton(ft.buttonCancel, { action: ACTIONS.cancelFlow }, 'negative')]];
}

/** Under a summary (a booking, an order): confirm, change, or leave. */
export function confirmKeyboard(): ReplyButtons {
  return [
    [callbackButton(ft.buttonConfirm, { action: ACTIONS.confirm }, 'positive'), callbackButton(ft.buttonChange, { action: ACTIONS.change }, 'secondary')],
    [callbackButton(ft.buttonCancel, { action: ACTIONS.cancelFlow }, 'negative')],
  ];
}

/** The hand-over's phone request: skip it (the person answers in the chat) or stay with the bot. */
export function handoffPhoneKeyboard(): ReplyButtons {
  return [[callbackButton(ft.buttonSkip, { action: ACTIONS.skipPhone }, 'primary'), callbackButton(ft.buttonCancel, { action: ACTIONS.cancelFlow }, 'negative')]];
}
