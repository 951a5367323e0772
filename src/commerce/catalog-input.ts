// A catalog product as its owner sends and reads it: zod only, so the dashboard page checks its product
// form with the schema the API applies (catalog.ts re-exports it for the server).
import { z } from 'zod';

export const MAX_IMPORT_ROWS = 5000;

const PRICE_MESSAGE = 'ожидается цена в копейках (целое число)';
const STOCK_MESSAGE = 'ожидается остаток — целое число штук (null — не учитывается)';
export const MAX_ATTRIBUTES = 20;

export const productFields = {
  title: z.string({ error: 'обязательное поле' }).trim().min(1, 'обязательное поле').max(200, 'не длиннее 200 символов'),
  description: z.string().trim().max(2000, 'не длиннее 2000 символов'),
  priceMinor: z.number({ error: PRICE_MESSAGE }).int(PRICE_MESSAGE).min(0, 'цена не может быть отрицательной').max(1_000_000_000_000, 'слишком большая цена'),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'трёхбуквенный код валюты ISO 4217, например RUB'),
  available: z.boolean({ error: 'ожидается true или false' }),
  /** Size, colour…: a client's question names them, and search_products finds them. */
  attributes: z
    .record(
      z.string().trim().min(1, 'название характеристики не может быть пустым').max(50, 'название характеристики не длиннее 50 символов'),
      z.string({ error: 'значение характеристики — текст' }).trim().max(200, 'значение характеристики не длиннее 200 символов'),
      { error: 'ожидается объект характеристик, например {"размер": "M", "цвет": "красный"}' },
    )
    .refine((v) => Object.keys(v).length <= MAX_ATTRIBUTES, `не больше ${MAX_ATTRIBUTES} характеристик`),
  /** Null: stock is not tracked. */
  stock: z.number({ error: STOCK_MESSAGE }).int(STOCK_MESSAGE).min(0, 'остаток не может быть отрицательным').max(1_000_000_000, 'слишком большой остаток').nullable(),
};

export const productInput = z.object({
  title: productFields.title,
  description: productFields.description.default(''),
  priceMinor: productFields.priceMinor,
  currency: productFields.currency.default('RUB'),
  available: productFields.available.default(true),
  attributes: productFields.attributes.default({}),
  stock: productFields.stock.default(null),
});

export const productPatch = z
  .object({
    title: productFields.title,
    description: productFields.description,
    priceMinor: productFields.priceMinor,
    currency: productFields.currency,
    available: productFields.available,
    attributes: productFields.attributes,
    stock: productFields.stock,
  })
  .partial();

const TRUE_WORDS = new Set(['true', '1', 'yes', 'да', 'в наличии', '+']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'нет', 'нет в наличии', '-']);
const DECIMAL = /^-?\d+(\.\d+)?$/;

const CSV_PRICE_MESSAGE = 'ожидается цена в рублях с копейками, например 1499,90 (столбец price), или в копейках целым числом (столбец priceMinor)';
/** Roubles with kopecks as the product form takes them: «1 499,90», «1499.9», «1499». */
const ROUBLES = /^(\d{1,10})(?:[.,](\d{1,2}))?$/;

/**
 * A file's `price` column is in roubles, the unit of the product form: it becomes priceMinor, read on its
 * digits (1499,99 is 149999 exactly). Text that is no such price is passed on for the schema's message.
 * The older priceMinor column (kopecks) is still read when there is no price column.
 */
function roublesToMinor(row: unknown): unknown {
  if (!row || typeof row !== 'object' || !('price' in row)) return row;
  const { price, ...rest } = row as Record<string, unknown>;
  const match = typeof price === 'string' ? ROUBLES.exec(price.replace(/[\s\u00a0\u202f]/g, '')) : null;
  return { ...rest, priceMinor: match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : price };
}

/**
 * A row of an imported CSV file. Every cell is text there, so the price is read from its digits and
 * availability from a word (да/нет, true/false, +/-) before the row is checked as a product; JSON bodies
 * carry real numbers and booleans and get no such reading.
 */
/** The columns a product file may have; any other column is an attribute named by its header («размер»). */
const CSV_COLUMNS = new Set(['title', 'description', 'price', 'priceMinor', 'currency', 'available', 'stock']);

function extraColumnsToAttributes(row: unknown): unknown {
  if (!row || typeof row !== 'object') return row;
  const known: Record<string, unknown> = {};
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row as Record<string, unknown>)) {
    if (CSV_COLUMNS.has(key)) known[key] = value;
    else attributes[key] = value;
  }
  return Object.keys(attributes).length > 0 ? { ...known, attributes } : known;
}

export const csvProductInput = z.preprocess(
  (row) => extraColumnsToAttributes(roublesToMinor(row)),
  productInput.extend({
    priceMinor: z.preprocess(
      (v) => (typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v),
      z.number({ error: CSV_PRICE_MESSAGE }).int(CSV_PRICE_MESSAGE).pipe(productFields.priceMinor),
    ),
    available: z
      .preprocess(
        (v) => {
          if (typeof v !== 'string') return v;
          const word = v.trim().toLowerCase();
          return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : v;
        },
        z.boolean({ error: 'ожидается да/нет (или true/false)' }),
      )
      .default(true),
    stock: z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), productFields.stock).default(null),
  }),
);

export type ProductInput = z.infer<typeof productInput>;

export const productView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  priceMinor: z.number().int(),
  currency: z.string(),
  available: z.boolean(),
  attributes: z.record(z.string(), z.string()),
  /** Null: not tracked. 0: out of stock (shown to clients as such, cannot be ordered). */
  stock: z.number().int().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type ProductView = z.infer<typeof productView>;
