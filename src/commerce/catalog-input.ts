// A catalog product as its owner sends and reads it: zod only, so the dashboard page checks its product
// form with the schema the API applies (catalog.ts re-exports it for the server).
import { z } from 'zod';

export const MAX_IMPORT_ROWS = 5000;

const PRICE_MESSAGE = 'priceMinor: ожидается цена в копейках (целое число)';

export const productFields = {
  title: z.string({ error: 'title: обязательное поле' }).trim().min(1, 'title: обязательное поле').max(200, 'title: не длиннее 200 символов'),
  description: z.string().trim().max(2000, 'description: не длиннее 2000 символов'),
  priceMinor: z
    .number({ error: PRICE_MESSAGE })
    .int(PRICE_MESSAGE)
    .min(0, 'priceMinor: цена не может быть отрицательной')
    .max(1_000_000_000_000, 'priceMinor: слишком большая цена'),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'currency: трёхбуквенный код валюты ISO 4217, например RUB'),
  available: z.boolean({ error: 'available: ожидается true или false' }),
};

export const productInput = z.object({
  title: productFields.title,
  description: productFields.description.default(''),
  priceMinor: productFields.priceMinor,
  currency: productFields.currency.default('RUB'),
  available: productFields.available.default(true),
});

export const productPatch = z
  .object({
    title: productFields.title,
    description: productFields.description,
    priceMinor: productFields.priceMinor,
    currency: productFields.currency,
    available: productFields.available,
  })
  .partial();

const TRUE_WORDS = new Set(['true', '1', 'yes', 'да', 'в наличии', '+']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'нет', 'нет в наличии', '-']);
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A row of an imported CSV file. Every cell is text there, so the price is read from its digits and
 * availability from a word (да/нет, true/false, +/-) before the row is checked as a product; JSON bodies
 * carry real numbers and booleans and get no such reading.
 */
export const csvProductInput = productInput.extend({
  priceMinor: z.preprocess((v) => (typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v), productFields.priceMinor),
  available: z
    .preprocess((v) => {
      if (typeof v !== 'string') return v;
      const word = v.trim().toLowerCase();
      return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : v;
    }, z.boolean({ error: 'available: ожидается да/нет (или true/false)' }))
    .default(true),
});

export type ProductInput = z.infer<typeof productInput>;

export const productView = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  priceMinor: z.number().int(),
  currency: z.string(),
  available: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export type ProductView = z.infer<typeof productView>;
