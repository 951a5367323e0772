// What GET /api/referrals takes and answers: zod only, so the dashboard page reads the same shapes.
import { z } from 'zod';

export const referralsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(300).optional(),
});

export const REFERRAL_STATUSES = ['active', 'expired', 'refused'] as const;
export type ReferralStatus = (typeof REFERRAL_STATUSES)[number];

export const referredAccountView = z.object({
  email: z.string().describe('E-mail приглашённого, скрытый частично: iv***@example.com'),
  registeredAt: z.string().describe('Когда зарегистрировался (ISO 8601, UTC)'),
  paysUntil: z.string().describe('До какого момента его пополнения приносят начисления (ISO 8601, UTC)'),
  status: z
    .enum(REFERRAL_STATUSES)
    .describe(
      'active — пополнения приносят начисления; expired — срок программы для него истёк; refused — не начисляется: тот же почтовый ящик или (по настройке оператора) тот же домен e-mail',
    ),
  earned: z.number().describe('Начислено за этот аккаунт всего'),
  payouts: z.number().int().describe('Число начислений за этот аккаунт'),
});
export type ReferredAccountView = z.infer<typeof referredAccountView>;

export const referralsView = z.object({
  enabled: z.boolean().describe('Начисления включены оператором (REFERRAL_PERCENT > 0)'),
  percent: z.number().describe('Доля пополнения приглашённого, которая начисляется, в процентах'),
  months: z.number().int().describe('Сколько месяцев после регистрации приглашённого начисляются его пополнения'),
  code: z.string().nullable().describe('Код приглашения; null — ссылка ещё не создана (POST /api/referrals/link)'),
  link: z.string().nullable().describe('Ссылка-приглашение на регистрацию; null — ещё не создана'),
  referredCount: z.number().int().describe('Приглашённых аккаунтов всего'),
  totalEarned: z.number().describe('Начислено за всех приглашённых всего (сумма строк журнала вида referral)'),
  currency: z.string(),
  referred: z.array(referredAccountView),
  nextCursor: z.string().nullable(),
});
export type ReferralsView = z.infer<typeof referralsView>;
