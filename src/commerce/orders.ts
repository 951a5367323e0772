// Carts of dialogue clients, orders made from them, and the owner's view of orders.
//
// Order numbers are ORD-<YYYYMMDD>-<sequence>, the sequence counted per agent and day (in ORDER_TIME_ZONE). The counter
// row is incremented in the transaction that inserts the order: concurrent checkouts queue on its row
// lock, and a rolled-back checkout takes its increment with it, so numbers are unique and gap-free.
import { and, asc, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Database, Executor } from '../db/client';
import { afterCursor, cursorTime, decodeCursor, keysetPage } from '../db/cursor';
import { cartItems, orderCounters, orders, products } from './tables';
import { AppError } from '../http/errors';
import { commerceMessages } from './texts';
import { orderDelivery, type OrderDelivery } from './delivery';
import { dayIn, formatOrderNumber } from '../integrations/messenger';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Per product and cart: more is a wholesale order, for a person to handle. */
const MAX_QUANTITY = 99;
export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface CartLine {
  productId: string;
  title: string;
  priceMinor: number;
  currency: string;
  quantity: number;
  /** Orderable now: on sale and, when its stock is tracked, in stock. */
  available: boolean;
  /** Items left; null: not tracked. */
  stock: number | null;
}

/** Who placed an order: the dialogue's shop buttons, or the assistant's model through its checkout tool. */
export const ORDER_SOURCES = ['buttons', 'model'] as const;
export type OrderSource = (typeof ORDER_SOURCES)[number];

/** What adding to the cart came to. */
export type AddOutcome =
  | { status: 'added'; title: string; quantity: number }
  | { status: 'not_found' }
  | { status: 'unavailable'; title: string }
  | { status: 'not_enough'; title: string; inStock: number; inCart: number };

/** On sale and, when stock is tracked, some left: the one rule for the cart, the catalog and the search. */
export const orderableSql = sql<boolean>`(${products.available} and (${products.stock} is null or ${products.stock} > 0))`;

export const orderView = z.object({
  id: z.string(),
  number: z.string(),
  status: z.enum(ORDER_STATUSES),
  items: z.array(z.object({ productId: z.string(), title: z.string(), priceMinor: z.number().int(), quantity: z.number().int() })),
  totalMinor: z.number().int(),
  currency: z.string(),
  clientPhone: z.string().nullable(),
  delivery: orderDelivery.nullable().describe('Способ доставки, его цена (входит в totalMinor), адрес и получатель; null — без шага доставки'),
  paymentLink: z.string(),
  paymentId: z.string().nullable(),
  paidAt: z.string().nullable(),
  trackingNumber: z.string().nullable().describe('Трек-номер, введённый владельцем при отправке'),
  cancelReason: z.string().nullable().describe('Причина отмены, сообщённая клиенту'),
  statusChangedAt: z.string().nullable(),
  source: z.enum(ORDER_SOURCES).describe('Кто оформил заказ: buttons — клиент кнопками магазина, model — ассистент (инструмент checkout)'),
  createdAt: z.string(),
});

export type OrderView = z.infer<typeof orderView>;
type OrderRow = typeof orders.$inferSelect;

export function orderViewOf(row: OrderRow): OrderView {
  return {
    id: row.id,
    number: row.number,
    status: row.status as OrderStatus,
    items: row.items,
    totalMinor: row.totalMinor,
    currency: row.currency,
    clientPhone: row.clientPhone,
    delivery: row.delivery ?? null,
    paymentLink: row.paymentLink,
    paymentId: row.paymentId,
    paidAt: row.paidAt?.toISOString() ?? null,
    trackingNumber: row.trackingNumber,
    cancelReason: row.cancelReason,
    statusChangedAt: row.statusChangedAt?.toISOString() ?? null,
    source: row.source as OrderSource,
    createdAt: row.createdAt.toISOString(),
  };
}

/** "1500.00" from 150000 minor units: the decimal string payment providers and the notifier take. */
export function minorToDecimal(minor: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The payment link of an order from the shop's template. */
export function paymentLinkFor(template: string, order: { id: string; number: string; totalMinor: number; currency: string }): string {
  return template
    .replaceAll('{orderNumber}', encodeURIComponent(order.number))
    .replaceAll('{orderId}', encodeURIComponent(order.id))
    .replaceAll('{amount}', minorToDecimal(order.totalMinor))
    .replaceAll('{currency}', encodeURIComponent(order.currency));
}

/** `timeZone`: where the shop's day starts, for the date in order numbers (ORDER_TIME_ZONE). */
export function createOrders(db: Database, timeZone: string) {
  async function cart(executor: Executor, dialogueId: string): Promise<CartLine[]> {
    const rows = await executor
      .select({
        productId: products.id,
        title: products.title,
        priceMinor: products.priceMinor,
        currency: products.currency,
        available: orderableSql,
        stock: products.stock,
        quantity: cartItems.quantity,
      })
      .from(cartItems)
      .innerJoin(products, eq(products.id, cartItems.productId))
      .where(eq(cartItems.dialogueId, dialogueId))
      .orderBy(asc(cartItems.createdAt), asc(products.id));
    return rows;
  }

  return {
    cart: (dialogueId: string) => cart(db, dialogueId),

    /**
     * Adds `quantity` of a product to the cart (at most 99 a line). A product off sale or out of stock
     * is not added; with tracked stock the line may not pass what is left.
     */
    async add(agentId: string, dialogueId: string, productId: string, quantity: number): Promise<AddOutcome> {
      if (!UUID.test(productId)) return { status: 'not_found' };
      return db.transaction(async (tx) => {
        const [product] = await tx
          .select({ title: products.title, available: products.available, stock: products.stock })
          .from(products)
          .where(and(eq(products.agentId, agentId), eq(products.id, productId)));
        if (!product) return { status: 'not_found' as const };
        if (!product.available || product.stock === 0) return { status: 'unavailable' as const, title: product.title };
        const [line] = await tx
          .select({ quantity: cartItems.quantity })
          .from(cartItems)
          .where(and(eq(cartItems.dialogueId, dialogueId), eq(cartItems.productId, productId)));
        const inCart = line?.quantity ?? 0;
        const wanted = Math.min(inCart + quantity, MAX_QUANTITY);
        if (product.stock !== null && wanted > product.stock) {
          return { status: 'not_enough' as const, title: product.title, inStock: product.stock, inCart };
        }
        await tx
          .insert(cartItems)
          .values({ dialogueId, productId, quantity: wanted })
          .onConflictDoUpdate({ target: [cartItems.dialogueId, cartItems.productId], set: { quantity: wanted } });
        return { status: 'added' as const, title: product.title, quantity: wanted };
      });
    },

    /** Adds one (or `delta`, may be negative) of a product; a quantity reaching 0 leaves the cart. */
    async changeQuantity(agentId: string, dialogueId: string, productId: string, delta: number): Promise<void> {
      if (!UUID.test(productId)) return;
      if (delta > 0) {
        await this.add(agentId, dialogueId, productId, delta);
        return;
      }
      await db.transaction(async (tx) => {
        const [product] = await tx
          .select({ id: products.id })
          .from(products)
          .where(and(eq(products.agentId, agentId), eq(products.id, productId)));
        if (!product) return;
        const line = and(eq(cartItems.dialogueId, dialogueId), eq(cartItems.productId, productId));
        await tx.delete(cartItems).where(and(line, sql`${cartItems.quantity} + ${delta} <= 0`));
        await tx
          .update(cartItems)
          .set({ quantity: sql`${cartItems.quantity} + ${delta}` })
          .where(line);
      });
    },

    async clear(dialogueId: string, executor: Executor = db): Promise<void> {
      await executor.delete(cartItems).where(eq(cartItems.dialogueId, dialogueId));
    },

    /**
     * Turns the cart into an order in the caller's transaction: available lines only, one currency,
     * numbered from the day's counter. Null when nothing in the cart can be ordered.
     */
    async checkout(
      tx: Executor,
      input: {
        agentId: string;
        dialogueId: string;
        clientPhone: string;
        paymentLinkTemplate: string;
        source?: OrderSource;
        delivery?: OrderDelivery | null;
        now?: Date;
      },
    ): Promise<OrderView | null> {
      const lines = (await cart(tx, input.dialogueId)).filter((l) => l.available);
      if (lines.length === 0) return null;
      const currency = lines[0]!.currency;
      if (lines.some((l) => l.currency !== currency)) throw new AppError('invalid_request_error', commerceMessages.cartMixedCurrencies);
      // The stock may have fallen since the line was added (another client paid, the owner recounted).
      const over = lines.find((l) => l.stock !== null && l.quantity > l.stock);
      if (over) throw new AppError('invalid_request_error', commerceMessages.cartOverStock(over.title, over.stock!));
      const now = input.now ?? new Date();
      const day = dayIn(now, timeZone);
      const [counter] = await tx
        .insert(orderCounters)
        .values({ agentId: input.agentId, day, last: 1 })
        .onConflictDoUpdate({ target: [orderCounters.agentId, orderCounters.day], set: { last: sql`${orderCounters.last} + 1` } })
        .returning({ last: orderCounters.last });
      const number = formatOrderNumber(now, counter!.last, timeZone);
      const items = lines.map((l) => ({ productId: l.productId, title: l.title, priceMinor: l.priceMinor, quantity: l.quantity }));
      // The delivery's price is part of what the client pays (and of the payment's amount).
      const totalMinor = items.reduce((sum, i) => sum + i.priceMinor * i.quantity, 0) + (input.delivery?.priceMinor ?? 0);
      const id = crypto.randomUUID();
      const paymentLink = paymentLinkFor(input.paymentLinkTemplate, { id, number, totalMinor, currency });
      const [row] = await tx
        .insert(orders)
        .values({
          id,
          agentId: input.agentId,
          dialogueId: input.dialogueId,
          number,
          items,
          totalMinor,
          currency,
          clientPhone: input.clientPhone,
          delivery: input.delivery ?? null,
          paymentLink,
          source: input.source ?? 'buttons',
        })
        .returning();
      await tx.delete(cartItems).where(eq(cartItems.dialogueId, input.dialogueId));
      return orderViewOf(row!);
    },

    /** The order's payment created at the provider: its page replaces the template link. */
    async attachPayment(executor: Executor, orderId: string, payment: { paymentId: string; paymentLink: string }): Promise<void> {
      await executor.update(orders).set({ paymentId: payment.paymentId, paymentLink: payment.paymentLink, updatedAt: new Date() }).where(eq(orders.id, orderId));
    },

    async list(
      agentId: string,
      query: { limit: number; cursor?: string | undefined; status?: OrderStatus | undefined; from?: Date | undefined; to?: Date | undefined },
    ) {
      const filters: SQL[] = [eq(orders.agentId, agentId)];
      if (query.status) filters.push(eq(orders.status, query.status));
      if (query.from) filters.push(gte(orders.createdAt, query.from));
      if (query.to) filters.push(lt(orders.createdAt, query.to));
      if (query.cursor) filters.push(afterCursor(orders.createdAt, orders.id, decodeCursor(query.cursor, UUID), 'desc'));
      const rows = await db
        .select({ order: orders, cursorAt: cursorTime(orders.createdAt) })
        .from(orders)
        .where(and(...filters))
        .orderBy(desc(orders.createdAt), desc(orders.id))
        .limit(query.limit + 1);
      const { page, nextCursor } = keysetPage(rows, query.limit, (r) => r.order.id);
      return { orders: page.map((r) => orderViewOf(r.order)), nextCursor };
    },

    /**
     * An order by its number, only when the dialogue's own client placed it: another client's number is
     * null exactly like a number that does not exist.
     */
    async ofDialogue(agentId: string, dialogueId: string, number: string): Promise<OrderView | null> {
      const [row] = await db
        .select()
        .from(orders)
        .where(and(eq(orders.agentId, agentId), eq(orders.dialogueId, dialogueId), eq(orders.number, number)));
      return row ? orderViewOf(row) : null;
    },

    async get(agentId: string, orderId: string): Promise<OrderView> {
      if (!UUID.test(orderId)) throw new AppError('not_found', commerceMessages.orderNotFound);
      const [row] = await db
        .select()
        .from(orders)
        .where(and(eq(orders.agentId, agentId), eq(orders.id, orderId)));
      if (!row) throw new AppError('not_found', commerceMessages.orderNotFound);
      return orderViewOf(row);
    },
  };
}

export type Orders = ReturnType<typeof createOrders>;
