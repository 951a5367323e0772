// An E-commerce agent's shop settings: the payment page template, the secret that payment
// notifications must carry, and optionally the shop's own YooKassa account. The secret is generated here
// and shown once, inside the notification URL the owner pastes into the payment provider's settings;
// reads show that URL with the secret masked. The YooKassa secret key is sealed and never read back:
// reads say only whether it is set.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { maskSecret, SecretBoxError, type SecretBox } from '../crypto/secret-box';
import type { Database } from '../db/client';
import { commerceSettings } from './tables';
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import { commerceMessages } from './texts';
import { offeredMethods } from './delivery';
import type { YookassaCredentials } from '../payments/yookassa';
import type { commerceSettingsInput, CommerceSettingsView } from './settings-input';

export { commerceSettingsInput, commerceSettingsView } from './settings-input';
export type { CommerceSettingsView } from './settings-input';

export function paymentWebhookUrl(publicBaseUrl: string, agentId: string, secret: string): string {
  return `${publicBaseUrl}/api/v1/commerce/webhook/${agentId}?token=${secret}`;
}

export function createCommerceSettings(deps: { db: Database; box: SecretBox; publicBaseUrl: string }) {
  const { db, box } = deps;

  async function row(agentId: string) {
    if (!isUuid(agentId)) return undefined;
    const [found] = await db.select().from(commerceSettings).where(eq(commerceSettings.agentId, agentId));
    return found;
  }

  function openSecret(sealed: string): string {
    try {
      return box.open(sealed, 'webhookSecret');
    } catch (error) {
      if (error instanceof SecretBoxError) throw new AppError('invalid_request_error', `${error.message}. Сохраните настройки магазина с rotateWebhookSecret: true`);
      throw error;
    }
  }

  function view(found: Awaited<ReturnType<typeof row>>, agentId: string, fresh?: string): CommerceSettingsView {
    if (!found) {
      return {
        configured: false,
        paymentLinkTemplate: null,
        webhookUrl: null,
        yookassaShopId: null,
        yookassaSecretKeySet: false,
        delivery: null,
        unpaidReminderHours: 2,
        yookassaReceipts: false,
        receiptVatCode: 1,
        updatedAt: null,
      };
    }
    const secret = fresh ?? openSecret(found.webhookSecretSealed);
    return {
      configured: true,
      paymentLinkTemplate: found.paymentLinkTemplate,
      webhookUrl: paymentWebhookUrl(deps.publicBaseUrl, agentId, maskSecret(secret, 4)),
      ...(fresh ? { webhookUrlWithSecret: paymentWebhookUrl(deps.publicBaseUrl, agentId, fresh) } : {}),
      yookassaShopId: found.yookassaShopId,
      yookassaSecretKeySet: found.yookassaSecretKeySealed !== null,
      delivery: found.delivery ?? null,
      unpaidReminderHours: found.unpaidReminderHours,
      yookassaReceipts: found.yookassaReceipts,
      receiptVatCode: found.receiptVatCode,
      updatedAt: found.updatedAt.toISOString(),
    };
  }

  /** The stored account after this save: absent fields keep it, null removes it, a new shop id needs its key. */
  function yookassaAccount(existing: Awaited<ReturnType<typeof row>>, input: z.infer<typeof commerceSettingsInput>) {
    const stored = { yookassaShopId: existing?.yookassaShopId ?? null, yookassaSecretKeySealed: existing?.yookassaSecretKeySealed ?? null };
    const { yookassaShopId: shopId, yookassaSecretKey: secretKey } = input;
    if (shopId === null) {
      if (secretKey) throw new AppError('invalid_request_error', commerceMessages.yookassaShopIdRequired, { param: 'yookassaShopId' });
      return { yookassaShopId: null, yookassaSecretKeySealed: null };
    }
    if (shopId === undefined) {
      if (!secretKey) return stored;
      if (!stored.yookassaShopId) throw new AppError('invalid_request_error', commerceMessages.yookassaShopIdRequired, { param: 'yookassaShopId' });
      return { ...stored, yookassaSecretKeySealed: box.seal(secretKey) };
    }
    if (!secretKey) {
      // The same shop again keeps its key; another shop's key is never assumed.
      if (shopId !== stored.yookassaShopId || !stored.yookassaSecretKeySealed)
        throw new AppError('invalid_request_error', commerceMessages.yookassaSecretKeyRequired, { param: 'yookassaSecretKey' });
      return stored;
    }
    return { yookassaShopId: shopId, yookassaSecretKeySealed: box.seal(secretKey) };
  }

  function openYookassa(found: NonNullable<Awaited<ReturnType<typeof row>>>): YookassaCredentials | null {
    if (!found.yookassaShopId || !found.yookassaSecretKeySealed) return null;
    try {
      return { shopId: found.yookassaShopId, secretKey: box.open(found.yookassaSecretKeySealed, 'yookassaSecretKey') };
    } catch (error) {
      if (error instanceof SecretBoxError) throw new AppError('invalid_request_error', commerceMessages.yookassaSecretKeyUnreadable(error.message));
      throw error;
    }
  }

  return {
    async read(agentId: string): Promise<CommerceSettingsView> {
      return view(await row(agentId), agentId);
    },

    async save(agentId: string, input: z.infer<typeof commerceSettingsInput>): Promise<CommerceSettingsView> {
      const existing = await row(agentId);
      const fresh = !existing || input.rotateWebhookSecret ? randomBytes(24).toString('base64url') : undefined;
      const values = {
        paymentLinkTemplate: input.paymentLinkTemplate,
        webhookSecretSealed: fresh ? box.seal(fresh) : existing!.webhookSecretSealed,
        ...yookassaAccount(existing, input),
        delivery: input.delivery === undefined ? (existing?.delivery ?? null) : input.delivery,
        unpaidReminderHours: input.unpaidReminderHours ?? existing?.unpaidReminderHours ?? 2,
        yookassaReceipts: input.yookassaReceipts ?? existing?.yookassaReceipts ?? false,
        receiptVatCode: input.receiptVatCode ?? existing?.receiptVatCode ?? 1,
        updatedAt: new Date(),
      };
      const [saved] = await db
        .insert(commerceSettings)
        .values({ agentId, ...values })
        .onConflictDoUpdate({ target: commerceSettings.agentId, set: values })
        .returning();
      return view(saved, agentId, fresh);
    },

    /** The delivery methods the shop offers now (none: check-out asks no delivery step). */
    async deliveryOptions(agentId: string) {
      return offeredMethods((await row(agentId))?.delivery ?? null);
    },

    /** The payment page template, or null when the shop is not set up. */
    async paymentLinkTemplate(agentId: string): Promise<string | null> {
      return (await row(agentId))?.paymentLinkTemplate ?? null;
    },

    /**
     * How the shop takes payments: the template (always) and its YooKassa account when set; null when the
     * shop is not set up. A key that cannot be opened is a 400 asking the owner to save it again.
     */
    async paymentSetup(agentId: string): Promise<{ template: string; yookassa: YookassaCredentials | null; receipts: { vatCode: number } | null } | null> {
      const found = await row(agentId);
      if (!found) return null;
      return { template: found.paymentLinkTemplate, yookassa: openYookassa(found), receipts: found.yookassaReceipts ? { vatCode: found.receiptVatCode } : null };
    },

    /** 'unknown' (no shop), 'wrong', or 'ok' — compared on digests, in constant time. */
    async verifySecret(agentId: string, presented: string | null): Promise<'unknown' | 'wrong' | 'ok'> {
      const found = await row(agentId);
      if (!found) return 'unknown';
      if (!presented) return 'wrong';
      let secret: string;
      try {
        secret = box.open(found.webhookSecretSealed, 'webhookSecret');
      } catch {
        return 'wrong';
      }
      const digest = (v: string) => createHash('sha256').update(v).digest();
      return timingSafeEqual(digest(secret), digest(presented)) ? 'ok' : 'wrong';
    },
  };
}

export type CommerceSettings = ReturnType<typeof createCommerceSettings>;
