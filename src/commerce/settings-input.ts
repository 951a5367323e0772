// An E-commerce agent's shop settings as its owner sends and reads them: zod only, so the dashboard page
// checks its form with the schema the API applies (settings.ts re-exports it for the server).
import { z } from 'zod';
import { commerceMessages } from './texts';
import { deliverySettingsInput } from './delivery';

export const commerceSettingsInput = z.object({
  paymentLinkTemplate: z
    .string({ error: commerceMessages.paymentLinkTemplate })
    .trim()
    .max(1000)
    .refine((v) => {
      try {
        const url = new URL(v.replaceAll(/\{(orderNumber|orderId|amount|currency)\}/g, 'x'));
        return url.protocol === 'https:' && /\{(orderNumber|orderId)\}/.test(v);
      } catch {
        return false;
      }
    }, commerceMessages.paymentLinkTemplate),
  /** A new secret: the notification URL changes and the old one stops working. */
  rotateWebhookSecret: z.boolean().default(false),
  /**
   * The shop's own YooKassa account: orders are then paid on YooKassa's page (the template stays the
   * fallback) and notifications are verified by re-reading the payment. Absent: unchanged; null: removed.
   */
  yookassaShopId: z
    .string({ error: commerceMessages.yookassaShopIdInvalid })
    .trim()
    .regex(/^\d{1,20}$/, commerceMessages.yookassaShopIdInvalid)
    .nullable()
    .optional(),
  /** Needed with a new yookassaShopId; absent keeps the stored one. Never returned. */
  yookassaSecretKey: z
    .string({ error: commerceMessages.yookassaSecretKeyInvalid })
    .trim()
    .regex(/^\S{8,200}$/, commerceMessages.yookassaSecretKeyInvalid)
    .optional(),
  /** Pickup / courier / post with prices, asked at check-out. Absent: unchanged; null: no delivery step. */
  delivery: deliverySettingsInput.nullable().optional(),
  /** Hours after check-out when an unpaid order is reminded of, once; 0: no reminder. Absent: unchanged. */
  unpaidReminderHours: z
    .number({ error: commerceMessages.unpaidReminderHours })
    .int(commerceMessages.unpaidReminderHours)
    .min(0, commerceMessages.unpaidReminderHours)
    .max(168, commerceMessages.unpaidReminderHours)
    .optional(),
  /** The shop's YooKassa account has 54-FZ receipts on: payments carry the order's lines. Absent: unchanged. */
  yookassaReceipts: z.boolean().optional(),
  /** YooKassa's vat_code for the lines (1 — без НДС … 12). Absent: unchanged. */
  receiptVatCode: z
    .number({ error: commerceMessages.receiptVatCode })
    .int(commerceMessages.receiptVatCode)
    .min(1, commerceMessages.receiptVatCode)
    .max(12, commerceMessages.receiptVatCode)
    .optional(),
});

export const commerceSettingsView = z.object({
  configured: z.boolean(),
  paymentLinkTemplate: z.string().nullable(),
  /** With the secret masked. */
  webhookUrl: z.string().nullable(),
  /** The full notification URL, only in the answer that created its secret: copy it now. */
  webhookUrlWithSecret: z.string().optional(),
  /** Null when orders are paid through the template link only. */
  yookassaShopId: z.string().nullable(),
  yookassaSecretKeySet: z.boolean(),
  /** Null: no delivery step at check-out. */
  delivery: deliverySettingsInput.nullable(),
  unpaidReminderHours: z.number().int(),
  yookassaReceipts: z.boolean(),
  receiptVatCode: z.number().int(),
  updatedAt: z.string().nullable(),
});

export type CommerceSettingsView = z.infer<typeof commerceSettingsView>;
