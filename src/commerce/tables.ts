// A shop agent's commerce: settings, catalog, carts, orders and payment events.
import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt, tsvector } from '../db/columns';
import { agents } from '../agents/tables';
import { dialogues } from '../dialogues/tables';
import type { DeliverySettings, OrderDelivery } from './delivery';

/** An E-commerce agent's shop: how clients pay, and the secret the payment provider's notifications carry. */
export const commerceSettings = pgTable('commerce_settings', {
  agentId: uuid('agent_id')
    .primaryKey()
    .references(() => agents.id, { onDelete: 'cascade' }),
  /** The shop's payment page, with {orderNumber}, {orderId}, {amount} and {currency} filled in per order. */
  paymentLinkTemplate: text('payment_link_template').notNull(),
  webhookSecretSealed: text('webhook_secret_sealed').notNull(),
  /** The shop's own YooKassa account: when set, each order's payment is created there (the template is the fallback). */
  yookassaShopId: text('yookassa_shop_id'),
  yookassaSecretKeySealed: text('yookassa_secret_key_sealed'),
  /** Pickup / courier / post with prices (delivery.ts); null: no delivery step at check-out. */
  delivery: jsonb('delivery').$type<DeliverySettings>(),
  /** Hours after which an unpaid order is reminded of, once (order-reminders.ts); 0: never. */
  unpaidReminderHours: integer('unpaid_reminder_hours').notNull().default(2),
  /** The shop's YooKassa account sends 54-FZ receipts: each payment carries `receipt` (order-payments.ts). */
  yookassaReceipts: boolean('yookassa_receipts').notNull().default(false),
  /** YooKassa's vat_code for the receipt's lines (1: without VAT). */
  receiptVatCode: integer('receipt_vat_code').notNull().default(1),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/** The catalog of an E-commerce agent. Prices are integer minor units (kopecks, cents). */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    priceMinor: bigint('price_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull().default('RUB'),
    available: boolean('available').notNull().default(true),
    /** What a client may ask by (size, colour…): names to text values, searched with the title. */
    attributes: jsonb('attributes').$type<Record<string, string>>().notNull().default({}),
    /** Items in stock; null: not tracked (always orderable). A paid order takes its quantities off. */
    stock: integer('stock'),
    /**
     * Russian full-text document of the product for the assistant's search_products: the title weighs
     * most, then the description, then attribute values (stemmed: «красное» finds «красный»).
     */
    search: tsvector('search').generatedAlwaysAs(
      sql`setweight(to_tsvector('russian', title), 'A') || setweight(to_tsvector('russian', description), 'B') || setweight(jsonb_to_tsvector('russian', attributes, '["string"]'), 'C')`,
    ),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('products_agent_idx').on(t.agentId, t.createdAt, t.id),
    index('products_search_idx').using('gin', t.search),
    check('products_price_non_negative', sql`${t.priceMinor} >= 0`),
    check('products_stock_non_negative', sql`${t.stock} >= 0`),
  ],
);

/** What a client of the dialogue has put in their cart. */
export const cartItems = pgTable(
  'cart_items',
  {
    dialogueId: uuid('dialogue_id')
      .notNull()
      .references(() => dialogues.id, { onDelete: 'cascade' }),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    quantity: integer('quantity').notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ name: 'cart_items_pk', columns: [t.dialogueId, t.productId] }), check('cart_items_quantity_positive', sql`${t.quantity} > 0`)],
);

/**
 * Orders, numbered ORD-<YYYYMMDD>-<sequence> per agent and day. The items are a snapshot: later catalog
 * edits do not change what was ordered.
 */
export const orders = pgTable(
  'orders',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    dialogueId: uuid('dialogue_id').references(() => dialogues.id, { onDelete: 'set null' }),
    number: text('number').notNull(),
    /** pending | paid | shipped | delivered | cancelled (order-status.ts: which the owner may set from which) */
    status: text('status').notNull().default('pending'),
    items: jsonb('items').$type<{ productId: string; title: string; priceMinor: number; quantity: number }[]>().notNull(),
    totalMinor: bigint('total_minor', { mode: 'number' }).notNull(),
    currency: text('currency').notNull(),
    clientPhone: text('client_phone'),
    /** The method, its price (in totalMinor), the address and the recipient; null: ordered without a delivery step. */
    delivery: jsonb('delivery').$type<OrderDelivery>(),
    paymentLink: text('payment_link').notNull(),
    paymentId: text('payment_id'),
    paidAt: timestamp('paid_at', { withTimezone: true, mode: 'date' }),
    /** What the owner entered when shipping it: the carrier's tracking number, told to the client. */
    trackingNumber: text('tracking_number'),
    /** Why the owner cancelled it, told to the client. */
    cancelReason: text('cancel_reason'),
    /** When the status last changed by the owner (shipped, delivered, cancelled). */
    statusChangedAt: timestamp('status_changed_at', { withTimezone: true, mode: 'date' }),
    /** When the unpaid order's reminder was claimed (sent, or skipped for a client who denied messages): once. */
    unpaidReminderAt: timestamp('unpaid_reminder_at', { withTimezone: true, mode: 'date' }),
    /** Who placed it: `buttons` (the dialogue's shop buttons) or `model` (the assistant's checkout tool). */
    source: text('source').notNull().default('buttons'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('orders_number_unique').on(t.agentId, t.number),
    index('orders_agent_idx').on(t.agentId, t.createdAt, t.id),
    index('orders_unpaid_reminder_idx').on(t.createdAt).where(sql`${t.status} = 'pending' and ${t.unpaidReminderAt} is null`),
    check('orders_status_known', sql`${t.status} in ('pending', 'paid', 'shipped', 'delivered', 'cancelled')`),
    check('orders_source_known', sql`${t.source} in ('buttons', 'model')`),
  ],
);

/** The last order sequence of an agent's day; its row lock makes numbers gap-free under concurrency. */
export const orderCounters = pgTable(
  'order_counters',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    last: integer('last').notNull(),
  },
  (t) => [primaryKey({ name: 'order_counters_pk', columns: [t.agentId, t.day] })],
);

/** Payment notifications as received: the key drops a repeat, the outcome says what it did. */
export const paymentEvents = pgTable(
  'payment_events',
  {
    agentId: uuid('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    paymentId: text('payment_id').notNull(),
    event: text('event').notNull(),
    orderId: uuid('order_id').references(() => orders.id, { onDelete: 'set null' }),
    outcome: text('outcome').notNull(),
    payload: jsonb('payload').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'payment_events_pk', columns: [t.agentId, t.paymentId, t.event] })],
);
