// The E-commerce agent's shop in the dialogue: the catalog page by page with "add" buttons, the cart with
// quantity buttons, clearing and check-out; check-out asks for a phone when none is known and answers
// with the order number and its payment link (YooKassa's payment page when the shop has its own account,
// otherwise — or when YooKassa fails — the shop's template link).
import type { Agent } from '../agents';
import {
  type Catalog,
  type ProductView,
  type OrderPayments,
  minorToDecimal,
  type OrderSource,
  type Orders,
  type OrderView,
  type CommerceSettings,
  deliveryAddress,
  recipientName,
  type DeliveryMethod,
  type OrderDelivery,
} from '../commerce';
import type { Database, Executor } from '../db/client';
import { AppError } from '../http/errors';
import type { Logger } from '../logger';
import { normalisePhone } from '../phone';
import { formatAmount } from '../integrations/messenger';
import type { DialogueRow, Flow, Say, SetFlow } from './flow';
import { flowTexts as ft, showPhone } from './flow-texts';
import { ACTIONS, cancelKeyboard, confirmKeyboard, mainMenu } from './menus';
import { callbackButton, dataLabel, type ButtonPayload, type ReplyButton, type ReplyButtons } from './reply';
import { assistantTexts as t } from './texts';
import { intentOf, isNo, isYes, nameOf, refusesPhone } from './turn-intent';

/** Inline keyboards: 6 rows, 10 buttons. Five products, then one row of navigation. */
const PAGE_SIZE = 5;
/** Lines of the cart with +/- buttons (two each), then one row of actions. */
const CART_BUTTON_LINES = 4;

export interface ShopTools {
  say: Say;
  setFlow: SetFlow;
}

export const price = (minor: number, currency: string) => formatAmount(minorToDecimal(minor), currency);

/** The delivery's lines (the summary's, and the model's order announcement): the method and its price, then where and to whom. */
export function deliveryLines(delivery: OrderDelivery | null | undefined, currency: string): string[] {
  if (!delivery) return [];
  const lines = [ft.deliveryLine(ft.deliveryName[delivery.method], delivery.priceMinor > 0 ? price(delivery.priceMinor, currency) : null)];
  if (delivery.method === 'pickup') lines.push(ft.pickupLine(delivery.address));
  else lines.push(ft.addressLine(delivery.address));
  if (delivery.recipientName) lines.push(ft.recipientLine(delivery.recipientName));
  return lines;
}

/** How a check-out ended (the buttons say it to the client, the checkout tool tells the model). */
export type PlacedOrder =
  | { status: 'created'; order: OrderView }
  | { status: 'payments_unavailable' }
  | { status: 'nothing_to_order' }
  | { status: 'refused'; message: string };

export function createShopFlow(deps: {
  flowDb: Database;
  catalog: Catalog;
  orders: Orders;
  settings: Pick<CommerceSettings, 'paymentSetup' | 'paymentLinkTemplate' | 'deliveryOptions'>;
  orderPayments: Pick<OrderPayments, 'create'>;
  outbox: { wake(): void };
  logger: Logger;
}) {
  const { catalog, orders, logger } = deps;

  async function showCatalog(agent: Agent, dialogue: DialogueRow, tools: ShopTools, page: number): Promise<string> {
    const { items, hasMore } = await catalog.page(agent.id, page, PAGE_SIZE);
    if (items.length === 0 && page === 0) {
      await tools.say(dialogue, t.catalogUnavailable, mainMenu(agent.type));
      return 'catalog_empty';
    }
    if (items.length === 0) return showCatalog(agent, dialogue, tools, 0);
    const lines = items.map((p: ProductView, i) => t.catalogLine(page * PAGE_SIZE + i + 1, p.title, price(p.priceMinor, p.currency), p.description, p.stock !== 0));
    // Out of stock: listed as such, with no button to add it.
    const rows: ReplyButtons = items
      .filter((p) => p.stock !== 0)
      .map((p) => [callbackButton(dataLabel(`➕ ${p.title}`), { action: ACTIONS.cartAdd, id: p.id }, 'positive')]);
    const nav: ReplyButton[] = [];
    if (page > 0) nav.push(callbackButton(t.buttonPrev, { action: ACTIONS.catalog, p: page - 1 }, 'secondary'));
    nav.push(callbackButton(t.buttonCart, { action: ACTIONS.cart }, 'primary'));
    if (hasMore) nav.push(callbackButton(t.buttonNext, { action: ACTIONS.catalog, p: page + 1 }, 'secondary'));
    nav.push(callbackButton(t.buttonMenu, { action: ACTIONS.menu }, 'secondary'));
    rows.push(nav);
    await tools.say(dialogue, t.catalogPage(lines, page), rows);
    return 'catalog';
  }

  async function showCart(_agent: Agent, dialogue: DialogueRow, tools: ShopTools): Promise<string> {
    const lines = await orders.cart(dialogue.id);
    if (lines.length === 0) {
      await tools.say(dialogue, t.cartEmpty, [
        [callbackButton(t.buttonCatalog, { action: ACTIONS.catalog }, 'positive'), callbackButton(t.buttonMenu, { action: ACTIONS.menu }, 'secondary')],
      ]);
      return 'cart_empty';
    }
    const orderable = lines.filter((l) => l.available);
    const currency = (orderable[0] ?? lines[0])!.currency;
    const total = orderable.filter((l) => l.currency === currency).reduce((sum, l) => sum + l.priceMinor * l.quantity, 0);
    const text = t.cartContents(
      lines.map((l) => t.cartLine(l.title, l.quantity, price(l.priceMinor * l.quantity, l.currency), l.available)),
      price(total, currency),
    );
    const rows: ReplyButtons = lines
      .slice(0, CART_BUTTON_LINES)
      .map((l) => [
        callbackButton(dataLabel(`➖ ${l.title}`), { action: ACTIONS.cartDec, id: l.productId }, 'secondary'),
        callbackButton('➕', { action: ACTIONS.cartInc, id: l.productId }, 'secondary'),
      ]);
    rows.push([callbackButton(t.buttonClear, { action: ACTIONS.cartClear }, 'negative'), callbackButton(t.buttonCheckout, { action: ACTIONS.checkout }, 'positive')]);
    await tools.say(dialogue, text, rows);
    return 'cart';
  }

  /**
   * The one check-out path, for the buttons and the assistant's checkout tool: the cart becomes an order
   * (with the phone remembered on the dialogue) in one transaction, then the shop's YooKassa payment is
   * created outside it. `announce` writes the client's message in the transaction that makes the link
   * final, so an order is never left without its message.
   */
  async function placeOrder(
    agent: Agent,
    dialogue: DialogueRow,
    phone: string,
    options: {
      source: OrderSource;
      /** The delivery chosen at check-out; its price is added to the order's total. */
      delivery?: OrderDelivery | null;
      rememberPhone: (tx: Executor, phone: string) => Promise<void>;
      announce?: (tx: Executor, order: OrderView, paymentLink: string) => Promise<void>;
    },
  ): Promise<PlacedOrder> {
    const setup = await paymentSetup(agent);
    if (!setup) return { status: 'payments_unavailable' };
    if ((await orders.cart(dialogue.id)).filter((l) => l.available).length === 0) return { status: 'nothing_to_order' };
    try {
      const created = await deps.flowDb.transaction(async (tx) => {
        await options.rememberPhone(tx, phone);
        const order = await orders.checkout(tx, {
          agentId: agent.id,
          dialogueId: dialogue.id,
          clientPhone: phone,
          paymentLinkTemplate: setup.template,
          source: options.source,
          delivery: options.delivery ?? null,
        });
        if (!order) return null;
        if (!setup.yookassa) await options.announce?.(tx, order, order.paymentLink);
        return order;
      });
      if (!created) return { status: 'nothing_to_order' };
      let paymentLink = created.paymentLink;
      if (setup.yookassa) {
        // Outside the order's transaction: an HTTP call must not hold the day's order counter (nor PGlite's
        // one connection). The payment link and the message then commit together; should the process stop
        // in between, the order stays listed for the owner with its template link.
        const payment = await deps.orderPayments.create(agent.id, created, setup.yookassa, setup.receipts);
        paymentLink = payment?.paymentLink ?? created.paymentLink;
        await deps.flowDb.transaction(async (tx) => {
          if (payment) await orders.attachPayment(tx, created.id, payment);
          await options.announce?.(tx, created, paymentLink);
        });
      }
      deps.outbox.wake();
      logger.info('order created', { agentId: agent.id, orderId: created.id, number: created.number, source: options.source });
      return { status: 'created', order: { ...created, paymentLink } };
    } catch (error) {
      if (error instanceof AppError && error.type === 'invalid_request_error') return { status: 'refused', message: error.message };
      throw error;
    }
  }

  async function paymentSetup(agent: Agent) {
    return deps.settings.paymentSetup(agent.id).catch(async (error: unknown) => {
      // A YooKassa key that cannot be opened is the owner's to fix; the template still takes payments.
      if (!(error instanceof AppError)) throw error;
      logger.warn('shop YooKassa account unusable; the template link is used', { agentId: agent.id, error });
      const template = await deps.settings.paymentLinkTemplate(agent.id);
      return template ? { template, yookassa: null, receipts: null } : null;
    });
  }

  /** The delivery methods as buttons (each with its price), and «Отмена». */
  async function askDelivery(agent: Agent, dialogue: DialogueRow, tools: ShopTools, text: string = ft.askDelivery): Promise<string> {
    const options = await deps.settings.deliveryOptions(agent.id);
    const currency = (await orders.cart(dialogue.id)).find((l) => l.available)?.currency ?? 'RUB';
    const rows: ReplyButtons = options.map((o) => [
      callbackButton(
        ft.deliveryButton(ft.deliveryName[o.method], o.priceMinor > 0 ? price(o.priceMinor, currency) : null),
        { action: ACTIONS.deliveryMethod, m: o.method },
        'primary',
      ),
    ]);
    rows.push(...cancelKeyboard());
    await tools.setFlow(deps.flowDb, dialogue.id, { step: 'checkout_delivery' });
    await tools.say(dialogue, text, rows);
    return 'ask_delivery';
  }

  /**
   * «Оформить заказ»: the delivery method (when the shop offers delivery), the address and the recipient for
   * courier or post, a phone when none is known, then the order's summary with the delivery and the total
   * including it, with «Подтвердить» / «Изменить»; nothing is ordered before the client confirms.
   */
  async function checkout(agent: Agent, dialogue: DialogueRow, tools: ShopTools, phone: string | null, delivery?: OrderDelivery): Promise<string> {
    // Asked only when there is something to order and a way to pay for it.
    if (!(await paymentSetup(agent))) {
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      await tools.say(dialogue, t.paymentsUnavailable, mainMenu(agent.type));
      return 'payments_unavailable';
    }
    const lines = (await orders.cart(dialogue.id)).filter((l) => l.available);
    if (lines.length === 0) {
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      await tools.say(dialogue, t.nothingToOrder, mainMenu(agent.type));
      return 'nothing_to_order';
    }
    if (!delivery && (await deps.settings.deliveryOptions(agent.id)).length > 0) return askDelivery(agent, dialogue, tools);
    if (!phone) {
      await tools.setFlow(deps.flowDb, dialogue.id, { step: 'checkout_phone', ...(delivery ? { delivery } : {}) });
      await tools.say(dialogue, ft.askCheckoutPhone, cancelKeyboard());
      return 'ask_phone';
    }
    const currency = lines[0]!.currency;
    const goods = lines.filter((l) => l.currency === currency).reduce((sum, l) => sum + l.priceMinor * l.quantity, 0);
    const total = goods + (delivery?.priceMinor ?? 0);
    await tools.setFlow(deps.flowDb, dialogue.id, { step: 'checkout_confirm', clientPhone: phone, ...(delivery ? { delivery } : {}) });
    await tools.say(
      dialogue,
      ft.orderSummary(
        lines.map((l) => t.cartLine(l.title, l.quantity, price(l.priceMinor * l.quantity, l.currency), true)),
        price(total, currency),
        showPhone(phone),
        deliveryLines(delivery, currency),
      ),
      confirmKeyboard(),
    );
    return 'order_summary';
  }

  /** A delivery button: pickup goes on to the phone or the summary; courier and post ask the address. */
  async function chooseDelivery(agent: Agent, dialogue: DialogueRow, tools: ShopTools, method: unknown): Promise<string> {
    const flow = dialogue.flow as Flow | null;
    if (flow?.step !== 'checkout_delivery') {
      await tools.say(dialogue, ft.staleButton, mainMenu(agent.type));
      return 'stale_button';
    }
    // The price and the pickup address as the shop has them now.
    const chosen = (await deps.settings.deliveryOptions(agent.id)).find((o) => o.method === method);
    if (!chosen) return askDelivery(agent, dialogue, tools, ft.deliveryUnavailable);
    if (chosen.method === 'pickup') {
      return checkout(agent, dialogue, tools, dialogue.clientPhone, {
        method: 'pickup',
        priceMinor: chosen.priceMinor,
        address: chosen.address ?? '',
        recipientName: null,
      });
    }
    await tools.setFlow(deps.flowDb, dialogue.id, { step: 'checkout_address', method: chosen.method, priceMinor: chosen.priceMinor });
    await tools.say(dialogue, ft.askAddress(chosen.method), cancelKeyboard());
    return 'ask_address';
  }

  /** The confirmed order: placed, and its number and payment link told to the client. */
  async function place(agent: Agent, dialogue: DialogueRow, tools: ShopTools, phone: string, delivery?: OrderDelivery): Promise<string> {
    const placed = await placeOrder(agent, dialogue, phone, {
      source: 'buttons',
      delivery: delivery ?? null,
      rememberPhone: (tx, clientPhone) => tools.setFlow(tx, dialogue.id, null, { clientPhone }),
      announce: (tx, order, link) => tools.say(dialogue, t.orderCreated(order.number, price(order.totalMinor, order.currency), link), mainMenu(agent.type), tx),
    });
    if (placed.status !== 'created') await tools.setFlow(deps.flowDb, dialogue.id, null);
    switch (placed.status) {
      case 'payments_unavailable':
        await tools.say(dialogue, t.paymentsUnavailable, mainMenu(agent.type));
        return 'payments_unavailable';
      case 'nothing_to_order':
        await tools.say(dialogue, t.nothingToOrder, mainMenu(agent.type));
        return 'nothing_to_order';
      case 'refused':
        await tools.say(dialogue, placed.message, mainMenu(agent.type));
        return 'checkout_refused';
      case 'created':
        return 'order_created';
    }
  }

  async function canceled(agent: Agent, dialogue: DialogueRow, tools: ShopTools): Promise<string> {
    await tools.setFlow(deps.flowDb, dialogue.id, null);
    await tools.say(dialogue, ft.checkoutCanceled, mainMenu(agent.type));
    return 'checkout_canceled';
  }

  return {
    placeOrder,
    /** Shop buttons; null when the action is not the shop's. */
    async act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload, tools: ShopTools): Promise<string | null> {
      const id = typeof payload.id === 'string' ? payload.id : '';
      switch (payload.action) {
        case ACTIONS.catalog:
          return showCatalog(agent, dialogue, tools, Number.isSafeInteger(payload.p) && (payload.p as number) >= 0 ? (payload.p as number) : 0);
        case ACTIONS.cart:
          return showCart(agent, dialogue, tools);
        case ACTIONS.cartAdd: {
          await orders.changeQuantity(agent.id, dialogue.id, id, 1);
          const lines = await orders.cart(dialogue.id);
          const added = lines.find((l) => l.productId === id);
          if (!added) return showCatalog(agent, dialogue, tools, 0);
          const count = lines.reduce((sum, l) => sum + l.quantity, 0);
          await tools.say(dialogue, t.added(added.title, count), [
            [callbackButton(t.buttonCart, { action: ACTIONS.cart }, 'primary'), callbackButton(t.buttonCatalog, { action: ACTIONS.catalog }, 'secondary')],
          ]);
          return 'cart_add';
        }
        case ACTIONS.cartInc:
        case ACTIONS.cartDec:
          await orders.changeQuantity(agent.id, dialogue.id, id, payload.action === ACTIONS.cartInc ? 1 : -1);
          return showCart(agent, dialogue, tools);
        case ACTIONS.cartClear:
          await orders.clear(dialogue.id);
          await tools.say(dialogue, t.cartCleared, [[callbackButton(t.buttonCatalog, { action: ACTIONS.catalog }, 'positive')]]);
          return 'cart_clear';
        case ACTIONS.checkout:
          return checkout(agent, dialogue, tools, dialogue.clientPhone);
        case ACTIONS.deliveryMethod:
          return chooseDelivery(agent, dialogue, tools, payload.m);
        default:
          return null;
      }
    },

    /** «Подтвердить» / «Изменить» under the order's summary; null when no order summary is open. */
    async answerSummary(agent: Agent, dialogue: DialogueRow, confirmed: boolean, tools: ShopTools): Promise<string | null> {
      const flow = dialogue.flow as Flow | null;
      if (flow?.step !== 'checkout_confirm') return null;
      if (confirmed) return place(agent, dialogue, tools, flow.clientPhone, flow.delivery);
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      return showCart(agent, dialogue, tools);
    },

    /** The step's question again, after a question in the middle of it was answered. */
    async resume(agent: Agent, dialogue: DialogueRow, flow: Flow, tools: ShopTools): Promise<string | null> {
      if (flow.step === 'checkout_delivery') return askDelivery(agent, dialogue, tools);
      if (flow.step === 'checkout_address') {
        await tools.say(dialogue, ft.askAddress(flow.method as Exclude<DeliveryMethod, 'pickup'>), cancelKeyboard());
        return 'ask_address';
      }
      if (flow.step === 'checkout_recipient') {
        await tools.say(dialogue, ft.askRecipient, cancelKeyboard());
        return 'ask_recipient';
      }
      if (flow.step === 'checkout_phone') return checkout(agent, dialogue, tools, null, flow.delivery);
      if (flow.step === 'checkout_confirm') return checkout(agent, dialogue, tools, flow.clientPhone, flow.delivery);
      return null;
    },

    /**
     * The phone asked for at check-out, or the answer to the order's summary. Cancel words end the check-out;
     * a question (or a sentence that is not a phone) returns null for the model, and the step is asked again.
     */
    async continue(agent: Agent, dialogue: DialogueRow, flow: Flow, text: string, tools: ShopTools): Promise<string | null> {
      if (flow.step === 'checkout_delivery' || flow.step === 'checkout_address' || flow.step === 'checkout_recipient')
        return continueDelivery(agent, dialogue, flow, text, tools);
      if (flow.step !== 'checkout_phone' && flow.step !== 'checkout_confirm') return null;
      if (flow.step === 'checkout_phone') {
        const phone = normalisePhone(text);
        if (phone) return checkout(agent, dialogue, tools, phone, flow.delivery);
      } else {
        if (isYes(text)) return place(agent, dialogue, tools, flow.clientPhone, flow.delivery);
        if (isNo(text)) {
          await tools.setFlow(deps.flowDb, dialogue.id, null);
          return showCart(agent, dialogue, tools);
        }
      }
      const intent = intentOf(text);
      if (intent === 'cancel') return canceled(agent, dialogue, tools);
      if (flow.step === 'checkout_phone' && refusesPhone(text)) {
        await tools.say(dialogue, ft.checkoutNeedsPhone, cancelKeyboard());
        return 'phone_required';
      }
      if (intent === 'question' || /\p{L}/u.test(text)) return null;
      if (flow.step === 'checkout_phone') {
        await tools.say(dialogue, t.phoneNotUnderstood, cancelKeyboard());
        return 'phone_not_understood';
      }
      return checkout(agent, dialogue, tools, flow.clientPhone, flow.delivery);
    },
  };

  /**
   * Typed text while the delivery is asked: «отмена» ends the check-out, a question goes to the model (the
   * step is asked again after its answer); an address or a recipient's name that passes the checks moves on,
   * anything else is asked for again with an example. The method itself is chosen by its button.
   */
  async function continueDelivery(
    agent: Agent,
    dialogue: DialogueRow,
    flow: Extract<Flow, { step: 'checkout_delivery' | 'checkout_address' | 'checkout_recipient' }>,
    text: string,
    tools: ShopTools,
  ): Promise<string | null> {
    const intent = intentOf(text);
    if (intent === 'cancel') return canceled(agent, dialogue, tools);
    if (intent === 'question') return null;
    if (flow.step === 'checkout_delivery') return /\p{L}/u.test(text) ? null : askDelivery(agent, dialogue, tools);
    if (flow.step === 'checkout_address') {
      const address = deliveryAddress.safeParse(text.replace(/\s+/g, ' '));
      if (!address.success) {
        await tools.say(dialogue, ft.addressNotUnderstood, cancelKeyboard());
        return 'address_not_understood';
      }
      await tools.setFlow(deps.flowDb, dialogue.id, { step: 'checkout_recipient', method: flow.method, priceMinor: flow.priceMinor, address: address.data });
      await tools.say(dialogue, ft.askRecipient, cancelKeyboard());
      return 'ask_recipient';
    }
    const name = recipientName.safeParse(nameOf(text) ?? '');
    if (!name.success) {
      await tools.say(dialogue, ft.recipientNotUnderstood, cancelKeyboard());
      return 'recipient_not_understood';
    }
    return checkout(agent, dialogue, tools, dialogue.clientPhone, {
      method: flow.method,
      priceMinor: flow.priceMinor,
      address: flow.address,
      recipientName: name.data,
    });
  }
}

export type ShopFlow = ReturnType<typeof createShopFlow>;
