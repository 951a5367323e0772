// How a shop delivers: pickup (with its address), courier and post, each switched on or off with a price in
// minor units. Zod only, so the dashboard checks its form with the schema the API applies. An order keeps
// the method chosen, its price, the address and the recipient (a snapshot: later settings do not change it).
import { z } from 'zod';
import { commerceMessages } from './texts';

export const DELIVERY_METHODS = ['pickup', 'courier', 'post'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** Letters, digits and punctuation, no control characters (a line break included): one line of text. */
const CONTROL = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]/u;
const oneLine = (min: number, max: number, message: string) =>
  z
    .string({ error: message })
    .trim()
    .min(min, message)
    .max(max, message)
    .refine((v) => !CONTROL.test(v), message);

const price = z
  .number({ error: commerceMessages.deliveryPrice })
  .int(commerceMessages.deliveryPrice)
  .min(0, commerceMessages.deliveryPrice)
  .max(100_000_000, commerceMessages.deliveryPrice);

const method = z.object({ enabled: z.boolean(), priceMinor: price });

export const deliverySettingsInput = z
  .object({
    pickup: method.extend({ address: z.union([z.literal(''), oneLine(5, 300, commerceMessages.pickupAddress)]).default('') }),
    courier: method,
    post: method,
  })
  .refine((v) => !v.pickup.enabled || v.pickup.address !== '', { message: commerceMessages.pickupAddress, path: ['pickup', 'address'] });

export type DeliverySettings = z.infer<typeof deliverySettingsInput>;

/** The address a client types for courier or post: one line, 5–300 characters. */
export const deliveryAddress = oneLine(5, 300, commerceMessages.deliveryAddressInvalid);
/** The recipient's name: one line, 2–100 characters, letters in it, no digits. */
export const recipientName = oneLine(2, 100, commerceMessages.recipientNameInvalid).refine(
  (v) => /\p{L}/u.test(v) && !/\d/.test(v),
  commerceMessages.recipientNameInvalid,
);

/** What an order keeps of its delivery. */
export const orderDelivery = z.object({
  method: z.enum(DELIVERY_METHODS),
  priceMinor: z.number().int(),
  /** Pickup: the shop's address; courier and post: the client's. */
  address: z.string(),
  /** Courier and post only. */
  recipientName: z.string().nullable(),
});
export type OrderDelivery = z.infer<typeof orderDelivery>;

/** The methods a shop offers now, in a fixed order; none when delivery is not set up (no step is asked). */
export function offeredMethods(settings: DeliverySettings | null): { method: DeliveryMethod; priceMinor: number; address: string | null }[] {
  if (!settings) return [];
  return DELIVERY_METHODS.filter((m) => settings[m].enabled).map((m) => ({
    method: m,
    priceMinor: settings[m].priceMinor,
    address: m === 'pickup' ? settings.pickup.address : null,
  }));
}
