// The E-commerce agent's shop as tools of its model (decisions.md, third round): search_products,
// add_to_cart, show_cart, checkout and order_status. They act through the same catalog, cart and
// check-out path as the dialogue's buttons (shop-flow.ts), so an order placed by the model is numbered,
// paid and notified like any other; it is only marked `source = model` for the agent's results.
import { and, count, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Agent } from '../../agents';
import type { Catalog, ProductView, CommerceSettings, Orders, OrderView } from '../../commerce';
import type { Database } from '../../db/client';
import { orders as ordersTable } from '../../commerce/tables';
import { dialogues } from '../../dialogues/tables';
import { normalisePhone } from '../../phone';
import { linkButton } from '../reply';
import { price, type ShopFlow } from '../shop-flow';
import { assistantTexts } from '../texts';
import { shopKnowledgeTexts } from './shop-knowledge-texts';
import type { DialogueRow } from '../flow';
import type { AssistantTool, MissingTool, ToolProvider, ToolResult } from './types';

/** Products one search shows the model: enough to choose from, few enough to keep the request small. */
const SEARCH_LIMIT = 8;
const DESCRIPTION_CHARS = 300;
const ORDER_NUMBER = /^ORD-\d{8}-\d{4,}$/;

export const SHOP_TOOL_NAMES = ['search_products', 'add_to_cart', 'show_cart', 'checkout', 'order_status'] as const;

/** Arguments as the model sends them; anything else is a result telling it what was wrong. */
const searchArgs = z.object({ query: z.string().trim().max(300).default('') });
const addArgs = z.object({
  productId: z.string().trim().min(1).max(100),
  quantity: z.coerce.number().int().min(1).max(99).default(1),
});
const checkoutArgs = z.object({ clientPhone: z.string().trim().max(50).optional() });
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
  settings: Pick<CommerceSettings, 'paymentLinkTemplate' | 'paymentSetup'>;
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

  const checkout: AssistantTool = {
    name: 'checkout',
    description: shopKnowledgeTexts.checkout,
    parameters: {
      type: 'object',
      properties: { clientPhone: { type: 'string', description: shopKnowledgeTexts.checkoutPhone } },
      required: ['clientPhone'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const parsed = checkoutArgs.safeParse(args);
      if (!parsed.success) return badArguments(parsed.error);
      // A phone the client gave before (at an earlier order or escalation) serves when the model sends none.
      const phone = parsed.data.clientPhone ? normalisePhone(parsed.data.clientPhone) : await knownPhone(ctx.dialogue.id);
      if (!phone) return refusal(shopKnowledgeTexts.phoneNeeded, shopKnowledgeTexts.summaryPhoneNeeded);
      // A model stuck in a loop must not pile up orders: a client has at most so many unpaid at once.
      if ((await unpaidOrders(ctx.dialogue.id)) >= maxOpenOrders) {
        return refusal(shopKnowledgeTexts.openOrdersLimit(maxOpenOrders), shopKnowledgeTexts.summaryOpenOrdersLimit(maxOpenOrders));
      }
      const placed = await deps.shopFlow.placeOrder(ctx.agent, ctx.dialogue, phone, {
        source: 'model',
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
          const total = price(placed.order.totalMinor, placed.order.currency);
          return {
            result: { ok: true, ...orderFacts(placed.order), paymentLink: placed.order.paymentLink, note: shopKnowledgeTexts.orderCreatedNote },
            summary: shopKnowledgeTexts.summaryOrder(placed.order.number, total),
            // The number, the total and the way to pay reach the client from the system, not the model's goodwill.
            announce: {
              text: assistantTexts.orderCreated(placed.order.number, total, placed.order.paymentLink),
              buttons: [[linkButton(assistantTexts.buttonPay, placed.order.paymentLink)]],
            },
          };
        }
      }
    },
  };

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
        if (canPay) tools.push(checkout);
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
