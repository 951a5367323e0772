// Promo codes as the dashboard and the console send and read them: zod only (no server imports), so the
// pages check their forms with the rules the API applies.
import { z } from 'zod';
import { isIsoInstant } from '../http/date-input';
import { unitsToNano } from '../money';
import { promoMessages } from './texts';

/** One kopeck (cent) in nano-units: a campaign credits whole kopecks. */
const NANO_PER_MINOR = 10_000_000n;
const MAX_AMOUNT_NANO = 100_000n * 1_000_000_000n;
export const MAX_CODES = 10_000;
export const MAX_SHARED_USES = 1_000_000;

/** Nano-units of a campaign's amount, or null when it is no positive sum in kopecks up to 100 000. */
export function promoAmountNano(amount: number): bigint | null {
  const nano = unitsToNano(amount);
  return nano !== null && nano > 0n && nano <= MAX_AMOUNT_NANO && nano % NANO_PER_MINOR === 0n ? nano : null;
}

/** What a person types: anything up to 64 characters; spaces, dashes and case do not matter. */
export const redeemInput = z.object({
  code: z
    .string({ error: promoMessages.codeRequired })
    .max(64, promoMessages.codeTooLong)
    .refine((v) => v.replace(/[\s\p{Pd}]+/gu, '').length > 0, promoMessages.codeRequired)
    .meta({ description: 'Промокод как написан: регистр, пробелы и дефисы не важны', example: 'K7QM-WX4R-9TZC-HB3N' }),
});

const instant = (message: string) => z.iso.datetime({ offset: true, error: message }).refine(isIsoInstant, message);

/** A campaign's shared code chosen by the operator: Latin letters, digits, dashes. */
export const SHARED_CODE = /^[A-Za-z0-9][A-Za-z0-9-]{2,30}[A-Za-z0-9]$/;

export const createCampaignInput = z
  .object({
    name: z.string().trim().min(1, promoMessages.nameRequired).max(200, promoMessages.nameRequired).describe('Название акции (видно в консоли)'),
    amount: z
      .number({ error: promoMessages.amountInvalid })
      .refine((v) => promoAmountNano(v) !== null, promoMessages.amountInvalid)
      .describe('Сколько зачисляется на баланс за одну активацию, в валюте баланса'),
    kind: z.enum(['unique', 'shared']).describe('unique — много кодов по одной активации; shared — один общий код на несколько активаций'),
    codeCount: z
      .number({ error: promoMessages.codeCountInvalid })
      .int(promoMessages.codeCountInvalid)
      .min(1, promoMessages.codeCountInvalid)
      .max(MAX_CODES, promoMessages.codeCountInvalid)
      .optional()
      .describe('unique: сколько кодов выпустить (до 10 000)'),
    uses: z
      .number({ error: promoMessages.usesInvalid })
      .int(promoMessages.usesInvalid)
      .min(1, promoMessages.usesInvalid)
      .max(MAX_SHARED_USES, promoMessages.usesInvalid)
      .optional()
      .describe('shared: сколько раз можно активировать общий код (разными учётными записями)'),
    code: z
      .string()
      .regex(SHARED_CODE, promoMessages.sharedCodeInvalid)
      .optional()
      .describe('shared: свой код (4–32 латинских буквы, цифры, дефисы); не задан — случайный'),
    expiresAt: instant(promoMessages.expiresInvalid)
      .refine((v) => Date.parse(v) > Date.now(), promoMessages.expiresInPast)
      .describe('Когда акция заканчивается (ISO 8601 со смещением)'),
    registeredAfter: instant(promoMessages.registeredAfterInvalid)
      .nullable()
      .optional()
      .describe('Только для учётных записей, зарегистрированных после этого момента; не задано — для всех'),
  })
  .superRefine((v, ctx) => {
    if (v.kind === 'unique' && v.codeCount === undefined) ctx.addIssue({ code: 'custom', path: ['codeCount'], message: promoMessages.codeCountInvalid });
    if (v.kind === 'shared' && v.uses === undefined) ctx.addIssue({ code: 'custom', path: ['uses'], message: promoMessages.usesInvalid });
    if (v.kind === 'unique' && v.code !== undefined) ctx.addIssue({ code: 'custom', path: ['code'], message: promoMessages.sharedCodeInvalid });
  });

export type CreateCampaignInput = z.infer<typeof createCampaignInput>;

export const campaignIdParam = z.object({ id: z.uuid().describe('Идентификатор акции') });

export const campaignView = z.object({
  id: z.string(),
  name: z.string(),
  amount: z.number().describe('Зачисляется за одну активацию, в валюте баланса'),
  currency: z.string(),
  kind: z.enum(['unique', 'shared']),
  codeCount: z.number().int().describe('Выпущено кодов'),
  usesPerCode: z.number().int().describe('Активаций одного кода'),
  redemptions: z.number().int().describe('Активировано всего'),
  credited: z.number().describe('Зачислено всего, в валюте баланса'),
  expiresAt: z.string(),
  registeredAfter: z.string().nullable(),
  status: z.enum(['active', 'stopped', 'expired']).describe('active — действует; stopped — остановлена оператором; expired — срок истёк'),
  stoppedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type CampaignView = z.infer<typeof campaignView>;

export const redemptionView = z.object({
  id: z.string(),
  userId: z.string(),
  email: z.string().describe('Адрес учётной записи, скрытый наполовину (a***@example.com)'),
  amount: z.number(),
  createdAt: z.string(),
});

export const campaignDetailView = campaignView.extend({
  redemptionList: z.array(redemptionView).describe('Активации, новые первыми (до 500)'),
});

/** The creation's answer: the campaign and, once here, its codes in clear (the CSV can be downloaded again). */
export const createdCampaignView = campaignView.extend({
  codes: z.array(z.string()).describe('Выпущенные коды'),
});

export const redeemedView = z.object({
  amount: z.number().describe('Зачислено'),
  balance: z.number().describe('Баланс после зачисления'),
  currency: z.string(),
  campaign: z.string().describe('Название акции'),
});
