// An agent's VK community settings as the owner sends and reads them: zod only, so the dashboard page
// validates its forms with the schemas the API applies.
import { z } from 'zod';
import { isCommunityTokenFormat } from './client';

export const SECRET_KEY_MIN = 10;

const groupId = z
  .union([z.string(), z.number()], { error: 'укажите числовой id сообщества' })
  .transform((v) => String(v).trim())
  .refine((v) => /^\d{1,15}$/.test(v) && Number(v) > 0, 'только цифры — числовой id сообщества ВКонтакте')
  .transform(Number);

const accessToken = z
  .string({ error: 'укажите ключ доступа сообщества' })
  .trim()
  .refine(isCommunityTokenFormat, 'ожидается ключ доступа сообщества ВКонтакте, он начинается с vk1.a.');

export const socialSettingsInput = z.object({
  groupId,
  accessToken: accessToken.optional(),
  secretKey: z
    .string({ error: 'ожидается строка' })
    .min(SECRET_KEY_MIN, `не короче ${SECRET_KEY_MIN} символов`)
    .max(50, 'не длиннее 50 символов (ограничение ВКонтакте)')
    .regex(/^[A-Za-z0-9]+$/, 'только латинские буквы и цифры')
    .optional(),
  confirmationCode: z
    .string()
    .trim()
    .max(100)
    .regex(/^[A-Za-z0-9]*$/, 'только латинские буквы и цифры')
    .optional(),
});

/**
 * A check of a typed token (`groupId` and `accessToken`, before saving), or of an agent's saved one
 * (`agentId`: the server opens the sealed token; a `groupId` given with it must be the saved one's).
 */
export const checkConnectionInput = z
  .object({ agentId: z.string().max(100).optional(), groupId: groupId.optional(), accessToken: accessToken.optional() })
  .refine((v) => v.agentId !== undefined || (v.groupId !== undefined && v.accessToken !== undefined), {
    message: 'укажите ID сообщества и ключ доступа, или агента с сохранёнными настройками',
    path: ['accessToken'],
  });

export type CheckConnectionInput = z.infer<typeof checkConnectionInput>;

/** What VK said the last time the saved token was tried: only `connected` means it worked. */
export const socialConnectionView = z.object({
  status: z.enum(['connected', 'failed', 'unchecked']),
  /** The community's name, as VK gave it on a successful check. */
  groupName: z.string().nullable(),
  /** Why the last check failed, in Russian. */
  reason: z.string().nullable(),
  checkedAt: z.string().nullable(),
});

export type SocialConnectionView = z.infer<typeof socialConnectionView>;

export type SocialSettingsInput = z.infer<typeof socialSettingsInput>;

export const socialSettingsView = z.object({
  configured: z.boolean(),
  groupId: z.number().int().nullable(),
  /** The first 10 characters, then a mask. */
  accessToken: z.string().nullable(),
  secretKeySet: z.boolean(),
  confirmationCode: z.string().nullable(),
  webhookUrl: z.string(),
  callbackServerId: z.number().int().nullable(),
  updatedAt: z.string().nullable(),
  /** Whether VK accepted the saved token: checked on saving, on «check», and when older than a few minutes. */
  connection: socialConnectionView,
});

export type SocialSettingsView = z.infer<typeof socialSettingsView>;
