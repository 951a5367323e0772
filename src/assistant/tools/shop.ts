// The E-commerce agent's shop as tools of its model (decisions.md, third round): search_products,
// add_to_cart, show_cart, checkout and order_status. They act through the same catalog, cart and
// check-out path as the dialogue's buttons (shop-flow.ts), so an order placed by the model is numbered,
// paid and notified like any other; it is only marked `source = model` for the agent's results.
import { and, count, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Agent } from '../../agents';
import {
  type Catalog,
  type ProductView,
  type CommerceSettings,
  type Orders,
  type OrderView,
  type OrderDelivery,
  deliveryAddress,
  recipientName,
} from '../../commerce';
import type { Database } from '../../db/client';
import { orders as ordersTable } from '../../commerce/tables';
import { dialogues } from '../../dialogues/tables';
import { normalisePhone } from '../../phone';
import { linkButton } from '../reply';
import { flowTexts } from '../flow-texts';
import { deliveryLines, price, type ShopFlow } from '../shop-flow';
import { assistantTexts } from '../texts';
import { shopKnowledgeTexts } from './shop-knowledge-texts';
import type { DialogueRow } from '../flow';
import type { AssistantTool, MissingTool, ToolContext, ToolProvider, ToolResult } from './types';

/** Products one search shows the model: enough to choose from, few enough to keep the request small. */
const SEARCH_LIMIT = 8;
const DESCRIPTION_CHARS = 300;
const ORDER_NUMBER = /^ORD-\d{8}-\d{4,}$/;
/** A product's currency when none is given (commerce/catalog-input.ts). */
const DEFAULT_CURRENCY = 'RUB';

export const SHOP_TOOL_NAMES = ['search_products', 'add_to_cart', 'show_cart', 'checkout', 'order_status'] as const;

/** Arguments as the model sends them; anything else is a result telling it what was wrong. */
const searchArgs = z.object({ query: z.string().trim().max(300).default('') });
const addArgs = z.object({
  productId: z.string().trim().min(1).max(100),
  quantity: z.coerce.number().int().min(1).max(99).default(1),
});
const checkoutArgs = z.object({
  clientPhone: z.string().trim().max(50).nullish(),
  // Checked below against the shop's methods and with the commerce validators the buttons use.
  deliveryMethod: z.string().trim().max(50).nullish(),
  deliveryAddress: z.string().max(1000).nullish(),
  recipientName: z.string().max(300).nullish(),
});
type CheckoutArgs = z.infer<typeof checkoutArgs>;
type DeliveryOption = Awaited<ReturnType<CommerceSettings['deliveryOptions']>>[number];
const statusArgs = z.object({ orderNumber: z.string().trim().max(50) });

function productFacts(p: ProductView) {
  return {
    productId: p.id,
    title: p.title,
    description: p.description.length > DESCRIPTION_CHARS ? `${p.description.slice(0, DESCRIPTION_CHARS - 1)}…` : p.description,
    price: price(p.priceMinor, p.currency),
    priceMinor: p.priceMinor,
    currency: p.currency,
    attributes: p.attributes,
    inStock: p.stock !== 0,
    // Null: the shop does not count it (it can be ordered).
    stock: p.stock,
  };
}

function orderFacts(order: OrderView) {
  return {
    orderNumber: order.number,
    status: order.status,
    statusText: shopKnowledgeTexts.orderStatus[order.status],
    items: order.items.map((i) => ({ title: i.title, quantity: i.quantity, price: price(i.priceMinor, order.currency) })),
    total: price(order.totalMinor, order.currency),
    paymentLink: order.status === 'pending' ? order.paymentLink : null,
    createdAt: order.createdAt,
    paidAt: order.paidAt,
  };
}

const DEFAULT_MAX_OPEN_ORDERS_PER_CLIENT = 3;

/** The arguments' first problem, named by its field, so the model knows what to correct. */
function badArguments(error: z.ZodError): ToolResult {
  const field = error.issues[0]?.path.join('.') || '';
  return refusal(field ? shopKnowledgeTexts.badArgument(field) : shopKnowledgeTexts.badArguments, shopKnowledgeTexts.summaryBadArgument(field));
}

/** A result telling the model what to correct; the owner's transcript line says the same briefly. */
const refusal = (error: string, summary: string, extra: Record<string, unknown> = {}): ToolResult => ({ result: { ok: false, error, ...extra }, summary });

export function createShopTools(deps: {
  db: Database;
  catalog: Pick<Catalog, 'search' | 'hasProducts' | 'page'>;
  orders: Pick<Orders, 'add' | 'cart' | 'ofDialogue'>;
  settings: Pick<CommerceSettings, 'paymentLinkTemplate' | 'paymentSetup' | 'deliveryOptions'>;
  shopFlow: Pick<ShopFlow, 'placeOrder'>;
  /** Config ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT: unpaid orders one client may have in their dialogue. */
  maxOpenOrdersPerClient?: number;
}): ToolProvider {
  const maxOpenOrders = deps.maxOpenOrdersPerClient ?? DEFAULT_MAX_OPEN_ORDERS_PER_CLIENT;

  async function unpaidOrders(dialogueId: string): Promise<number> {
    const [row] = await deps.db
      .select({ n: count() })
      .from(ordersTable)
      .where(and(eq(ordersTable.dialogueId, dialogueId), eq(ordersTable.status, 'pending')));
    return Number(row?.n ?? 0);
  }

  /** Read now, not from the turn's dialogue row: a checkout earlier in the same turn may have stored it. */
  async function knownPhone(dialogueId: string): Promise<string | null> {
    const [row] = await deps.db.select({ phone: dialogues.clientPhone }).from(dialogues).where(eq(dialogues.id, dialogueId));
    return row?.phone ?? null;
  }

  const searchProducts: AssistantTool = {
    name: 'search_products',
    description: shopKnowledgeTexts.searchProducts,
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: shopKnowledgeTexts.searchProductsQuery } },
      required: ['query'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = searchArgs.safeParse(args);
      if (!parsed.success) return badArguments(parsed.error);
      // No words (the client asked what there is): the catalog's first products, as the «Каталог» button shows.
      const found = parsed.data.query
        ? await deps.catalog.search(ctx.agent.id, parsed.data.query, SEARCH_LIMIT)
        : { products: (await deps.catalog.page(ctx.agent.id, 0, SEARCH_LIMIT)).items, matched: 'all' as const };
      return {
        result: {
          products: found.products.map(productFacts),
          matched: found.matched,
          ...(found.products.length === 0 ? { note: shopKnowledgeTexts.nothingFound } : {}),
        },
        summary: shopKnowledgeTexts.summarySearch(parsed.data.query, found.products.length),
      };
    },
  };

  const addToCart: AssistantTool = {
    name: 'add_to_cart',
    description: shopKnowledgeTexts.addToCart,
    parameters: {
      type: 'object',
      properties: {
        productId: { type: 'string', description: shopKnowledgeTexts.addToCartProductId },
        quantity: { type: 'integer', minimum: 1, maximum: 99, description: shopKnowledgeTexts.addToCartQuantity },
      },
      required: ['productId', 'quantity'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = addArgs.safeParse(args);
      if (!parsed.success) return badArguments(parsed.error);
      const outcome = await deps.orders.add(ctx.agent.id, ctx.dialogue.id, parsed.data.productId, parsed.data.quantity);
      switch (outcome.status) {
        case 'not_found':
          return refusal(shopKnowledgeTexts.productNotFound, shopKnowledgeTexts.summaryProductNotFound);
        case 'unavailable':
          return refusal(shopKnowledgeTexts.outOfStock(outcome.title), shopKnowledgeTexts.summaryOutOfStock(outcome.title));
        case 'not_enough':
          return refusal(shopKnowledgeTexts.notEnough(outcome.title, outcome.inStock, outcome.inCart), shopKnowledgeTexts.summaryOutOfStock(outcome.title), {
            inStock: outcome.inStock,
            inCart: outcome.inCart,
          });
        case 'added':
          return {
            result: { ok: true, title: outcome.title, quantityInCart: outcome.quantity },
            summary: shopKnowledgeTexts.summaryAdded(outcome.title, outcome.quantity),
          };
      }
    },
  };

  const showCart: AssistantTool = {
    name: 'show_cart',
    description: shopKnowledgeTexts.showCart,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    async run(_args, ctx) {
      const lines = await deps.orders.cart(ctx.dialogue.id);
      const orderable = lines.filter((l) => l.available);
      const currency = (orderable[0] ?? lines[0])?.currency ?? 'RUB';
      const totalMinor = orderable.filter((l) => l.currency === currency).reduce((sum, l) => sum + l.priceMinor * l.quantity, 0);
      return {
        result: {
          items: lines.map((l) => ({
            productId: l.productId,
            title: l.title,
            quantity: l.quantity,
            price: price(l.priceMinor, l.currency),
            sum: price(l.priceMinor * l.quantity, l.currency),
            // Off sale or out of stock since it was added: it stays in the cart but is not ordered.
            orderable: l.available,
          })),
          total: price(totalMinor, currency),
          empty: lines.length === 0,
        },
        summary: shopKnowledgeTexts.summaryCart(lines.length, price(totalMinor, currency)),
      };
    },
  };

  /** The shop's delivery methods as the model is told them: id, name, price and the pickup address. */
  const methodFacts = (options: DeliveryOption[], currency: string) =>
    options.map((o) => ({
      id: o.method,
      name: flowTexts.deliveryName[o.method],
      price: o.priceMinor > 0 ? price(o.priceMinor, currency) : null,
      needsAddress: o.method !== 'pickup',
      ...(o.method === 'pickup' ? { pickupAddress: o.address } : {}),
    }));

  /**
   * The delivery the model asked for, checked as the buttons check it: a method the shop offers now (its
   * price and pickup address as the settings have them), and for courier and post an address and a recipient
   * that pass the commerce validators. What is missing or wrong is named so the model asks the client.
   */
  function chooseDelivery(options: DeliveryOption[], args: CheckoutArgs): { delivery: OrderDelivery | null; problems: string[]; what: string[] } {
    if (options.length === 0) return { delivery: null, problems: [], what: [] };
    const method = args.deliveryMethod?.toLowerCase();
    if (!method) return { delivery: null, problems: [shopKnowledgeTexts.deliveryMethodNeeded], what: [shopKnowledgeTexts.summaryWhatMethod] };
    const chosen = options.find((o) => o.method === method);
    if (!chosen) return { delivery: null, problems: [shopKnowledgeTexts.deliveryMethodUnknown(method)], what: [shopKnowledgeTexts.summaryWhatMethod] };
    if (chosen.method === 'pickup')
      return { delivery: { method: 'pickup', priceMinor: chosen.priceMinor, address: chosen.address ?? '', recipientName: null }, problems: [], what: [] };
    const problems: string[] = [];
    const what: string[] = [];
    const address = deliveryAddress.safeParse((args.deliveryAddress ?? '').replace(/\s+/g, ' '));
    if (!address.success) {
      problems.push(
        args.deliveryAddress?.trim()
          ? shopKnowledgeTexts.addressInvalid(address.error.issues[0]!.message)
          : shopKnowledgeTexts.addressNeeded(chosen.method === 'post'),
      );
      what.push(shopKnowledgeTexts.summaryWhatAddress);
    }
    const name = recipientName.safeParse(args.recipientName ?? '');
    if (!name.success) {
      problems.push(args.recipientName?.trim() ? shopKnowledgeTexts.recipientInvalid(name.error.issues[0]!.message) : shopKnowledgeTexts.recipientNeeded);
      what.push(shopKnowledgeTexts.summaryWhatRecipient);
    }
    if (!address.success || !name.success) return { delivery: null, problems, what };
    return { delivery: { method: chosen.method, priceMinor: chosen.priceMinor, address: address.data, recipientName: name.data }, problems, what };
  }

  /** Without delivery methods the declaration is the one owners' prompts know; with them it asks the delivery too. */
  function checkoutTool(options: DeliveryOption[]): AssistantTool {
    const withDelivery = options.length > 0;
    return {
      name: 'checkout',
      description: withDelivery ? shopKnowledgeTexts.checkoutWithDelivery : shopKnowledgeTexts.checkout,
      parameters: withDelivery
        ? {
            type: 'object',
            properties: {
              clientPhone: { type: 'string', description: shopKnowledgeTexts.checkoutPhone },
              deliveryMethod: {
                type: 'string',
                enum: options.map((o) => o.method),
                description: shopKnowledgeTexts.checkoutDeliveryMethod(
                  options.map((o) =>
                    // In the catalog's default currency; the refusal's deliveryMethods give them in the cart's.
                    shopKnowledgeTexts.checkoutMethodLine(
                      o.method,
                      flowTexts.deliveryName[o.method],
                      o.priceMinor > 0 ? price(o.priceMinor, DEFAULT_CURRENCY) : null,
                      o.address,
                    ),
                  ),
                ),
              },
              deliveryAddress: { type: 'string', description: shopKnowledgeTexts.checkoutDeliveryAddress },
              recipientName: { type: 'string', description: shopKnowledgeTexts.checkoutRecipientName },
            },
            required: ['clientPhone', 'deliveryMethod'],
            additionalProperties: false,
          }
        : {
            type: 'object',
            properties: { clientPhone: { type: 'string', description: shopKnowledgeTexts.checkoutPhone } },
            required: ['clientPhone'],
            additionalProperties: false,
          },
      run: runCheckout,
    };
  }

  async function runCheckout(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const parsed = checkoutArgs.safeParse(args);
    if (!parsed.success) return badArguments(parsed.error);
    // A phone the client gave before (at an earlier order or escalation) serves when the model sends none.
    const phone = parsed.data.clientPhone ? normalisePhone(parsed.data.clientPhone) : await knownPhone(ctx.dialogue.id);
    // The methods as the shop offers them now, whatever the declaration the model saw said.
    const options = await deps.settings.deliveryOptions(ctx.agent.id);
    const chosen = chooseDelivery(options, parsed.data);
    if (chosen.problems.length > 0) {
      // Everything missing at once, so the model asks the client one question rather than three turns.
      const problems = phone ? chosen.problems : [...chosen.problems, shopKnowledgeTexts.phoneNeeded];
      const what = phone ? chosen.what : [...chosen.what, shopKnowledgeTexts.summaryWhatPhone];
      const currency = (await deps.orders.cart(ctx.dialogue.id)).find((l) => l.available)?.currency ?? 'RUB';
      return refusal(problems.join(' '), shopKnowledgeTexts.summaryDeliveryNeeded(what), { deliveryMethods: methodFacts(options, currency) });
    }
    if (!phone) return refusal(shopKnowledgeTexts.phoneNeeded, shopKnowledgeTexts.summaryPhoneNeeded);
    // A model stuck in a loop must not pile up orders: a client has at most so many unpaid at once.
    if ((await unpaidOrders(ctx.dialogue.id)) >= maxOpenOrders) {
      return refusal(shopKnowledgeTexts.openOrdersLimit(maxOpenOrders), shopKnowledgeTexts.summaryOpenOrdersLimit(maxOpenOrders));
    }
    const placed = await deps.shopFlow.placeOrder(ctx.agent, ctx.dialogue, phone, {
      source: 'model',
      delivery: chosen.delivery,
      rememberPhone: async (tx, clientPhone) => {
        await tx.update(dialogues).set({ clientPhone, updatedAt: new Date() }).where(eq(dialogues.id, ctx.dialogue.id));
      },
    });
    switch (placed.status) {
      case 'payments_unavailable':
        return refusal(shopKnowledgeTexts.paymentsUnavailable, shopKnowledgeTexts.summaryPaymentsUnavailable);
      case 'nothing_to_order':
        return refusal(shopKnowledgeTexts.nothingToOrder, shopKnowledgeTexts.summaryNothingToOrder);
      case 'refused':
        return refusal(placed.message, placed.message);
      case 'created': {
        const { order } = placed;
        const total = price(order.totalMinor, order.currency);
        const delivery = chosen.delivery;
        return {
          result: {
            ok: true,
            ...orderFacts(order),
            paymentLink: order.paymentLink,
            ...(delivery
              ? {
                  delivery: {
                    method: delivery.method,
                    text: shopKnowledgeTexts.deliveryFact(
                      flowTexts.deliveryName[delivery.method],
                      delivery.priceMinor > 0 ? price(delivery.priceMinor, order.currency) : null,
                    ),
                    address: delivery.address,
                    recipientName: delivery.recipientName,
                  },
                }
              : {}),
            note: shopKnowledgeTexts.orderCreatedNote,
          },
          summary: shopKnowledgeTexts.summaryOrder(order.number, total),
          // The number, the delivery, the total and the way to pay reach the client from the system, not the model's goodwill.
          announce: {
            text: assistantTexts.orderCreated(order.number, total, order.paymentLink, deliveryLines(delivery, order.currency)),
            buttons: [[linkButton(assistantTexts.buttonPay, order.paymentLink)]],
          },
        };
      }
    }
  }

  const orderStatus: AssistantTool = {
    name: 'order_status',
    description: shopKnowledgeTexts.orderStatusTool,
    parameters: {
      type: 'object',
      properties: { orderNumber: { type: 'string', description: shopKnowledgeTexts.orderStatusNumber } },
      required: ['orderNumber'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = statusArgs.safeParse(args);
      if (!parsed.success) return badArguments(parsed.error);
      const number = parsed.data.orderNumber.toUpperCase();
      // Another client's order is answered exactly like a number that does not exist.
      const order = ORDER_NUMBER.test(number) ? await deps.orders.ofDialogue(ctx.agent.id, ctx.dialogue.id, number) : null;
      if (!order) return { result: { found: false, error: shopKnowledgeTexts.orderNotFound }, summary: shopKnowledgeTexts.summaryOrderNotFound(number || '—') };
      return {
        result: { found: true, ...orderFacts(order) },
        summary: shopKnowledgeTexts.summaryOrderStatus(order.number, shopKnowledgeTexts.orderStatus[order.status]),
      };
    },
  };

  return {
    async clientFacts(agent: Agent, dialogue: DialogueRow) {
      if (agent.type !== 'ecommerce') return [];
      const open = await deps.db
        .select({ number: ordersTable.number, totalMinor: ordersTable.totalMinor, currency: ordersTable.currency, paymentLink: ordersTable.paymentLink })
        .from(ordersTable)
        .where(and(eq(ordersTable.agentId, agent.id), eq(ordersTable.dialogueId, dialogue.id), eq(ordersTable.status, 'pending')))
        .orderBy(desc(ordersTable.createdAt))
        .limit(5);
      return open.map((o) => shopKnowledgeTexts.factOpenOrder(o.number, price(o.totalMinor, o.currency), o.paymentLink));
    },
    async toolsFor(agent: Agent) {
      if (agent.type !== 'ecommerce') return { tools: [], missing: [] };
      const missing: MissingTool[] = [];
      const tools: AssistantTool[] = [];
      if (await deps.catalog.hasProducts(agent.id)) {
        tools.push(searchProducts, addToCart, showCart);
        const canPay = (await deps.settings.paymentLinkTemplate(agent.id).catch(() => null)) !== null;
        if (canPay) tools.push(checkoutTool(await deps.settings.deliveryOptions(agent.id)));
        else missing.push({ name: 'checkout', reason: shopKnowledgeTexts.missingPayments });
      } else {
        for (const name of ['search_products', 'add_to_cart', 'show_cart', 'checkout']) missing.push({ name, reason: shopKnowledgeTexts.missingProducts });
      }
      // A client asks about an order they placed whatever the catalog holds now.
      tools.push(orderStatus);
      return { tools, missing };
    },
  };
}
