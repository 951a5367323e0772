// A catalog product as its owner sends and reads it: zod only, so the dashboard page checks its product
// form with the schema the API applies (catalog.ts re-exports it for the server).
import { z } from 'zod';

export const MAX_IMPORT_ROWS = 5000;

const TRUE_WORDS = new Set(['true', '1', 'yes', 'да', 'в наличии', '+']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'нет', 'нет в наличии', '-']);

const availability = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const word = v.trim().toLowerCase();
  if (word === '') return undefined;
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return v;
}, z.boolean({ error: 'available: ожидается true/false (или да/нет)' }));

export const productFields = {
  title: z.string({ error: 'title: обязательное поле' }).trim().min(1, 'title: обязательное поле').max(200, 'title: не длиннее 200 символов'),
  description: z.string().trim().max(2000, 'description: не длиннее 2000 символов'),
  priceMinor: z.coerce
    .number({ error: 'priceMinor: ожидается цена в копейках (целое число)' })
    .int('priceMinor: ожидается цена в копейках (целое число)')
    .min(0, 'priceMinor: цена не может быть отрицательной')
    .max(1_000_000_000_000, 'priceMinor: слишком большая цена'),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'currency: трёхбуквенный код валюты ISO 4217, например RUB'),
  available: availability,
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
