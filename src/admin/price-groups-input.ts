// What the price-group routes accept (zod only: the console's forms check the same). A multiplier arrives
// as a JSON number and leaves as exact parts per million, or the request is refused: nothing is rounded.
import { z } from 'zod';
import { unitsToNano } from '../money';
import { PRICE_PATTERN } from '../pricing/pattern';
import { adminMessages } from './texts';
import { checkPriceRow, pricePattern, priceRowShape } from './input';

/** A group's name: a slug, as the table's check has it. */
export const PRICE_GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
/** Largest multiplier on list prices. */
export const MULTIPLIER_MAX = 1000;
/** Most entries a group's list of allowed models may hold. */
export const ALLOWED_MODELS_MAX = 500;

export const priceGroupName = z.string({ error: adminMessages.priceGroupNameInvalid }).trim().regex(PRICE_GROUP_NAME, adminMessages.priceGroupNameInvalid);

const title = z
  .string({ error: adminMessages.priceGroupTitleInvalid })
  .trim()
  .min(1, adminMessages.priceGroupTitleInvalid)
  .max(100, adminMessages.priceGroupTitleInvalid);

/** A multiplier from 0 to MULTIPLIER_MAX with at most 6 decimals, as parts per million. */
const multiplier = z.number({ error: adminMessages.priceGroupMultiplierInvalid(MULTIPLIER_MAX) }).transform((value, ctx) => {
  const nano = value >= 0 && value <= MULTIPLIER_MAX ? unitsToNano(value) : null;
  if (nano === null || nano % 1000n !== 0n) {
    ctx.addIssue({ code: 'custom', message: adminMessages.priceGroupMultiplierInvalid(MULTIPLIER_MAX) });
    return z.NEVER;
  }
  return nano / 1000n;
});

/** Model ids or prefixes ending in `*`; null or an empty list: every model. */
const allowedModels = z
  .array(
    z.string({ error: adminMessages.pricePatternInvalid }).trim().max(200, adminMessages.pricePatternInvalid).regex(PRICE_PATTERN, adminMessages.pricePatternInvalid),
    { error: adminMessages.priceGroupAllowedInvalid(ALLOWED_MODELS_MAX) },
  )
  .max(ALLOWED_MODELS_MAX, adminMessages.priceGroupAllowedInvalid(ALLOWED_MODELS_MAX))
  .nullable()
  .transform((list) => (list && list.length > 0 ? [...new Set(list)] : null));

export const priceGroupNameInput = z.object({ name: priceGroupName });

export const createPriceGroupInput = z.object({
  name: priceGroupName,
  title,
  /** Absent: 1, the list prices. */
  multiplier: multiplier.optional(),
  allowedModels: allowedModels.default(null),
  isDefault: z.boolean().default(false),
});

export const updatePriceGroupInput = z.object({
  name: priceGroupName,
  title: title.optional(),
  multiplier: multiplier.optional(),
  allowedModels: allowedModels.optional(),
  /** Only true: the default moves to another group by naming that one. */
  isDefault: z.literal(true, { error: adminMessages.priceGroupDefaultUnset }).optional(),
});

/** A group's own price: the price table's row shape, under the group's name. */
export const putGroupPriceInput = z.object({ name: priceGroupName, ...priceRowShape }).superRefine(checkPriceRow);

export const deleteGroupPriceInput = z.object({ name: priceGroupName, pattern: pricePattern });

export const moveUserInput = z.object({ id: z.string().max(100), group: priceGroupName });
