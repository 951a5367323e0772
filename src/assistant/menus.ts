// The main menu per agent type: callback buttons whose payload `action` the dialogue routes on.
import type { AgentType } from '../agents/service';
import { callbackButton, keyboard, type VkButton, type VkKeyboard } from '../integrations/social/keyboards';
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
