// The main menu per agent type: callback buttons whose payload `action` the dialogue routes on.
import type { AgentType } from '../agents/service';
import { callbackButton, keyboard, type ButtonPayload, type VkButton, type VkKeyboard } from '../integrations/social/keyboards';
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
} as const;

export function mainMenu(type: AgentType): VkKeyboard {
  const rows: VkButton[][] = [];
  if (type === 'service') {
    rows.push([callbackButton(t.buttonBook, { action: ACTIONS.book }, 'positive'), callbackButton(t.buttonSpecialists, { action: ACTIONS.specialists }, 'primary')]);
  }
  if (type === 'ecommerce') {
    rows.push([callbackButton(t.buttonCatalog, { action: ACTIONS.catalog }, 'positive'), callbackButton(t.buttonCart, { action: ACTIONS.cart }, 'primary')]);
  }
  rows.push([callbackButton(t.buttonMenu, { action: ACTIONS.menu }, 'secondary'), callbackButton(t.buttonHelp, { action: ACTIONS.help }, 'secondary')]);
  return keyboard(rows, { inline: true });
}

/**
 * Labels a client may type instead of pressing, whatever was sent last: the main menu's buttons of the
 * agent's type, «Меню» (which the welcome tells them to type), and for a shop «Оформить заказ» (the cart's
 * button, which a client types from memory).
 */
export function typedMenuButtons(type: AgentType): { label: string; payload: ButtonPayload }[] {
  const buttons = mainMenu(type)
    .buttons.flat()
    .flatMap((b) => (b.action.payload ? [{ label: b.action.label, payload: JSON.parse(b.action.payload) as ButtonPayload }] : []));
  buttons.push({ label: t.typedMenu, payload: { action: ACTIONS.menu } });
  if (type === 'ecommerce') buttons.push({ label: t.buttonCheckout, payload: { action: ACTIONS.checkout } });
  return buttons;
}
