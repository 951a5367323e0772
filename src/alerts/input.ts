// What GET|PUT /api/account/alerts take and answer: zod only, shared with the dashboard's form.
import { z } from 'zod';
import { unitsToNano } from '../money';

/** The low-balance threshold in currency units; null switches the alert off. Exact to 1e-9, as money is kept. */
export const lowBalanceThresholdInput = z
  .number({ error: 'число в валюте баланса или null' })
  .gt(0, 'должен быть больше нуля (null — не уведомлять)')
  .max(1_000_000_000, 'не больше 1 000 000 000')
  .refine((v) => unitsToNano(v) !== null, 'не более 9 знаков после запятой')
  .nullable();

/** Its finer checks (scheme, private addresses) are the service's: they need the configuration and DNS. */
export const webhookUrlInput = z
  .string({ error: 'укажите адрес http:// или https:// или null' })
  .trim()
  .min(1, 'укажите адрес http:// или https:// или null')
  .max(2000, 'адрес не длиннее 2000 символов')
  .nullable();

/** Absent fields keep their value: `{lowBalanceThreshold}` alone changes only the threshold. */
export const alertSettingsInput = z.object({
  lowBalanceThreshold: lowBalanceThresholdInput
    .optional()
    .describe('Письмо (и вебхук), когда баланс опускается ниже этого порога, в валюте баланса; null — не уведомлять'),
  keyLimitAlerts: z
    .boolean({ error: 'keyLimitAlerts: true или false' })
    .optional()
    .describe('Уведомлять, когда API-ключ израсходовал 80 % своего лимита за период (по умолчанию true)'),
  webhookUrl: webhookUrlInput.optional().describe('Куда отправлять события POST-запросом с подписью; null — не отправлять'),
  rotateWebhookSecret: z
    .boolean({ error: 'rotateWebhookSecret: true или false' })
    .optional()
    .describe('true — выдать новый секрет подписи вебхука (старый перестаёт действовать сразу)'),
});

export type AlertSettingsInput = z.infer<typeof alertSettingsInput>;

export const alertSettingsOutput = z.object({
  lowBalanceThreshold: z.number().nullable(),
  keyLimitAlerts: z.boolean(),
  webhookUrl: z.string().nullable(),
  webhookSecret: z
    .string()
    .nullable()
    .describe(
      'Секрет подписи вебхука: полностью — только в ответе, который его создал (первый webhookUrl или rotateWebhookSecret), дальше — замаскирован; null — вебхука нет',
    ),
  webhookSecretShown: z.boolean().describe('true — в webhookSecret полный секрет, сохраните его: больше он показан не будет'),
  emailEnabled: z.boolean().describe('Отправляет ли сервер письма (настроен SMTP); без него уведомления идут только на вебхук'),
  currency: z.string(),
});

export type AlertSettingsView = z.infer<typeof alertSettingsOutput>;
