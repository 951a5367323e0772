// A Service agent's YCLIENTS settings as the owner sends and reads them: zod only, so the dashboard
// page validates its form with the schema the API applies.
import { z } from 'zod';

export const MIN_SLOT_CACHE_TTL_MINUTES = 5;
export const DEFAULT_SLOT_CACHE_TTL_MINUTES = 15;

const mapping = (what: string) =>
  z
    .record(
      z.string().trim().min(1, `идентификатор ${what} не может быть пустым`).max(100),
      z.coerce.number({ error: `${what}: ожидается числовой id YCLIENTS` }).int().positive(`${what}: ожидается числовой id YCLIENTS`),
    )
    .refine((m) => Object.keys(m).length <= 500, `не больше 500 записей в сопоставлении ${what}`);

const secret = (label: string) =>
  z.string({ error: `${label}: ожидается строка` }).trim().min(1, `${label} не может быть пустым`).max(500);

export const bookingSettingsInput = z.object({
  partnerToken: secret('partnerToken').optional(),
  login: secret('login').optional(),
  password: secret('password').optional(),
  companyId: z.coerce
    .number({ error: 'companyId: ожидается числовой id компании в YCLIENTS' })
    .int('companyId: ожидается целое число')
    .positive('companyId: ожидается числовой id компании в YCLIENTS'),
  syncEnabled: z.boolean().default(false),
  slotCacheTtlMinutes: z
    .number()
    .int()
    .min(MIN_SLOT_CACHE_TTL_MINUTES, `slotCacheTtlMinutes: не меньше ${MIN_SLOT_CACHE_TTL_MINUTES} минут`)
    .max(24 * 60, 'slotCacheTtlMinutes: не больше 1440 минут')
    .default(DEFAULT_SLOT_CACHE_TTL_MINUTES),
  specialistMapping: mapping('специалиста').default({}),
  serviceMapping: mapping('услуги').default({}),
});

export type BookingSettingsInput = z.infer<typeof bookingSettingsInput>;

export const bookingSettingsView = z.object({
  configured: z.boolean(),
  partnerTokenSet: z.boolean(),
  loginSet: z.boolean(),
  passwordSet: z.boolean(),
  companyId: z.number().int().nullable(),
  syncEnabled: z.boolean(),
  slotCacheTtlMinutes: z.number().int(),
  specialistMapping: z.record(z.string(), z.number().int()),
  serviceMapping: z.record(z.string(), z.number().int()),
  lastSyncAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export type BookingSettingsView = z.infer<typeof bookingSettingsView>;
