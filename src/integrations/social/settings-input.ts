// An agent's VK community settings as the owner sends and reads them: zod only, so the dashboard page
// validates its forms with the schemas the API applies.
import { z } from 'zod';
import { isCommunityTokenFormat } from './client';

export const SECRET_KEY_MIN = 10;

const groupId = z
  .union([z.string(), z.number()], { error: 'groupId: укажите числовой id сообщества' })
  .transform((v) => String(v).trim())
  .refine((v) => /^\d{1,15}$/.test(v) && Number(v) > 0, 'groupId: только цифры — числовой id сообщества ВКонтакте')
  .transform(Number);

const accessToken = z
  .string({ error: 'accessToken: укажите ключ доступа сообщества' })
  .trim()
  .refine(isCommunityTokenFormat, 'accessToken: ожидается ключ доступа сообщества ВКонтакте, он начинается с vk1.a.');

export const socialSettingsInput = z.object({
  groupId,
  accessToken: accessToken.optional(),
  secretKey: z
    .string({ error: 'secretKey: ожидается строка' })
    .min(SECRET_KEY_MIN, `secretKey: не короче ${SECRET_KEY_MIN} символов`)
    .max(50, 'secretKey: не длиннее 50 символов (ограничение ВКонтакте)')
    .regex(/^[A-Za-z0-9]+$/, 'secretKey: только латинские буквы и цифры')
    .optional(),
  confirmationCode: z.string().trim().max(100).regex(/^[A-Za-z0-9]*$/, 'confirmationCode: только латинские буквы и цифры').optional(),
});

export const checkConnectionInput = z.object({ groupId, accessToken });

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
});

export type SocialSettingsView = z.infer<typeof socialSettingsView>;
