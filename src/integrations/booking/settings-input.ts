// A Service agent's YCLIENTS settings as the owner sends and reads them: zod only, so the dashboard
// page validates its form with the schema the API applies.
import { z } from 'zod';

export const MIN_SLOT_CACHE_TTL_MINUTES = 5;
export const DEFAULT_SLOT_CACHE_TTL_MINUTES = 15;

/** YCLIENTS ids are 32-bit, and so are the columns that keep them. */
const MAX_YCLIENTS_ID = 2_147_483_647;

/**
 * A YCLIENTS id: a positive integer, as a JSON number or as its digits (the dashboard's form fields are
 * text). Nothing else is read as a number: null, "", true or [5] are refused, not turned into 0 or 5.
 */
const yclientsId = (message: string) =>
  z.union(
    [
      z.number({ error: message }).int(message).positive(message).max(MAX_YCLIENTS_ID, message),
      z
        .string({ error: message })
        .trim()
        .regex(/^[1-9]\d{0,9}$/, message)
        .transform(Number)
        .pipe(z.number().max(MAX_YCLIENTS_ID, message)),
    ],
    { error: message },
  );

const mapping = (what: string) =>
  z
    .record(z.string().trim().min(1, `идентификатор ${what} не может быть пустым`).max(100), yclientsId('ожидается числовой id YCLIENTS'))
    .refine((m) => Object.keys(m).length <= 500, `не больше 500 записей в сопоставлении ${what}`);

const secret = () => z.string({ error: 'ожидается строка' }).trim().min(1, 'не может быть пустым').max(500);

export const DEFAULT_REMINDER_OFFSETS_MINUTES = [24 * 60, 2 * 60];
export const DEFAULT_QUIET_FROM = '21:00';
export const DEFAULT_QUIET_TO = '09:00';
/** Up to this many reminders per visit, each between 15 minutes and 7 days before it. */
export const MAX_REMINDERS = 4;

/** A wall-clock time of the salon's day, HH:MM. */
const clockTime = z
  .string({ error: 'ожидается время ЧЧ:ММ' })
  .trim()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'ожидается время ЧЧ:ММ, например 21:00');

/** HH:MM → minutes after midnight, and back. */
export const minutesOfClock = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
export const clockOfMinutes = (minutes: number): string => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

export const DEFAULT_REVIEW_DELAY_MINUTES = 120;
export const DEFAULT_REVIEW_LOW_SCORE = 3;

/** The salon's public review page (Яндекс Карты, 2ГИС…): a web address that opens on any phone. */
const reviewUrl = z
  .string({ error: 'ожидается ссылка' })
  .trim()
  .max(500, 'не длиннее 500 символов')
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' && u.hostname.includes('.');
    } catch {
      return false;
    }
  }, 'ожидается ссылка, начинающаяся с https://');

export const bookingSettingsInput = z.object({
  // Sent in the Authorization header of every YCLIENTS call, so it must be a valid header value: a token
  // with a line break, NUL or a non-Latin-1 character would fail inside fetch (a 502) instead of here.
  partnerToken: secret()
    .regex(/^[\x21-\x7e]+$/, 'только латинские буквы, цифры и знаки без пробелов, как его выдаёт YCLIENTS')
    .optional(),
  login: secret().optional(),
  password: secret().optional(),
  companyId: yclientsId('ожидается числовой id компании в YCLIENTS'),
  syncEnabled: z.boolean().default(false),
  slotCacheTtlMinutes: z
    .number()
    .int()
    .min(MIN_SLOT_CACHE_TTL_MINUTES, `не меньше ${MIN_SLOT_CACHE_TTL_MINUTES} минут`)
    .max(24 * 60, 'не больше 1440 минут')
    .default(DEFAULT_SLOT_CACHE_TTL_MINUTES),
  specialistMapping: mapping('специалиста').default({}),
  serviceMapping: mapping('услуги').default({}),
  /** Minutes before the visit each reminder goes; left out keeps what is stored (24 h and 2 h at first). */
  reminderOffsetsMinutes: z
    .array(
      z
        .number({ error: 'ожидается число минут' })
        .int('ожидается целое число минут')
        .min(15, 'напоминание — не раньше чем за 15 минут до визита')
        .max(7 * 24 * 60, 'напоминание — не больше чем за 7 дней до визита'),
    )
    .max(MAX_REMINDERS, `не больше ${MAX_REMINDERS} напоминаний`)
    .refine((a) => new Set(a).size === a.length, 'два напоминания в одно и то же время')
    .optional(),
  /** The salon's quiet night hours (its own zone): a reminder due in them goes at their end, if still before the visit. */
  quietFrom: clockTime.optional(),
  quietTo: clockTime.optional(),
  /** After the visit: «Как прошёл визит?» this many minutes after its end; null: not asked. Left out keeps what is stored. */
  reviewDelayMinutes: z
    .number({ error: 'ожидается число минут' })
    .int('ожидается целое число минут')
    .min(0, 'не меньше 0 минут')
    .max(3 * 24 * 60, 'не позже чем через 3 дня после визита')
    .nullable()
    .optional(),
  /** A score at or below it tells the owner at once (1–4). */
  reviewLowScore: z.number({ error: 'ожидается оценка от 1 до 4' }).int('ожидается оценка от 1 до 4').min(1, 'не меньше 1').max(4, 'не больше 4').optional(),
  /** Offered after a high score; null: none. */
  reviewUrl: reviewUrl.nullable().optional(),
  /** «Записаться снова»: the agent's service id → days after a visit (1–365). */
  rebookDays: z
    .record(
      z.string().trim().min(1, 'идентификатор услуги не может быть пустым').max(100),
      z.number({ error: 'ожидается число дней' }).int('ожидается целое число дней').min(1, 'не меньше 1 дня').max(365, 'не больше 365 дней'),
    )
    .refine((m) => Object.keys(m).length <= 100, 'не больше 100 услуг')
    .optional(),
  /** «Мы вас ждали»: a message to a client who did not come; off by default. */
  noShowMessage: z.boolean({ error: 'ожидается да или нет' }).optional(),
  /**
   * Link the client's upcoming YCLIENTS records made elsewhere whose card's phone and name match what the client
   * gave in the dialogue (a typed phone is not verified: off by default); left out keeps what is stored.
   */
  matchClientRecords: z.boolean({ error: 'ожидается true или false' }).optional(),
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
  reminderOffsetsMinutes: z.array(z.number().int()),
  quietFrom: z.string(),
  quietTo: z.string(),
  reviewDelayMinutes: z.number().int().nullable(),
  reviewLowScore: z.number().int(),
  reviewUrl: z.string().nullable(),
  rebookDays: z.record(z.string(), z.number().int()),
  noShowMessage: z.boolean(),
  matchClientRecords: z.boolean(),
  lastSyncAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
});

export type BookingSettingsView = z.infer<typeof bookingSettingsView>;
