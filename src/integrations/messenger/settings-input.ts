// An agent's messenger settings as the owner sends them: zod only, so the dashboard page validates its
// form with the schema the API applies.
import { z } from 'zod';
import { messengerMessages } from './texts';

const NUMERIC_CHAT_ID = /^-?[1-9]\d{0,18}$/;
const CHANNEL_NAME = /^@[A-Za-z][A-Za-z0-9_]{3,31}$/;

const chatIdText = (message: string) =>
  z.union([z.number({ error: message }).int(message), z.string({ error: message }).trim()], { error: message }).transform((v) => String(v));

const userId = chatIdText(messengerMessages.messengerUserIdInvalid).refine(
  (v) => NUMERIC_CHAT_ID.test(v) && Number.isSafeInteger(Number(v)),
  messengerMessages.messengerUserIdInvalid,
);

const channelId = z
  .union([chatIdText(messengerMessages.messengerChannelIdInvalid), z.null()])
  .transform((v) => (v === null || v === '' ? null : v))
  .refine((v) => v === null || CHANNEL_NAME.test(v) || (NUMERIC_CHAT_ID.test(v) && Number.isSafeInteger(Number(v))), messengerMessages.messengerChannelIdInvalid);

export const messengerSettingsInput = z.object({
  botToken: z.string({ error: messengerMessages.messengerBotTokenRequired }).trim().max(200, messengerMessages.messengerBotTokenFormat).optional(),
  userId,
  channelId: channelId.optional().transform((v) => v ?? null),
});
